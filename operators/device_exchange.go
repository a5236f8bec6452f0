package operators

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// The exchange of a plan spread over several GPUs (planner.Exchange):
// one ExchangeSource per exchange, read through one ExchangeOutput per
// device that consumes it. The first read drains every input at once
// (each on its device, so that their uploads, kernels and copies
// overlap), moves the batches with the exchange.Group and deals each
// device its share. The exchange holds its rows until they are read: a
// pipeline breaker, like the GROUP BY and join builds it feeds.

// ExchangeKind is how an exchange moves rows (opspec.ExchangeKind).
type ExchangeKind = opspec.ExchangeKind

// The exchange kinds.
const (
	ExchangeGather      = opspec.ExchangeGather
	ExchangeRepartition = opspec.ExchangeRepartition
	ExchangeBroadcast   = opspec.ExchangeBroadcast
)

// ExchangeSource runs one exchange.
type ExchangeSource struct {
	Group *exchange.Group
	Kind  ExchangeKind
	Keys  []int // repartition: key columns
	// Inputs[i] produces batches on Group.Devices[i]; a single input
	// (a broadcast of one device's rows) produces them on device 0.
	Inputs []DeviceOperator
	// Stats, when set, are the exchange's statistics by receiving device
	// (indexed as Group.Devices, nil entries skipped): the bytes a device
	// received from the others count in its Bytes.
	Stats []*Stats

	once sync.Once
	mu   sync.Mutex
	out  exchange.Parts
	err  error
}

// Output is device i's reader of the exchange (a gather has one reader,
// on device 0).
func (s *ExchangeSource) Output(i int) DeviceOperator { return &ExchangeOutput{Src: s, Device: i} }

// run drains the inputs and moves their rows, once.
func (s *ExchangeSource) run(ctx context.Context) {
	s.once.Do(func() {
		out, err := s.exchange(ctx)
		s.mu.Lock()
		s.out, s.err = out, err
		s.mu.Unlock()
	})
}

func (s *ExchangeSource) exchange(ctx context.Context) (exchange.Parts, error) {
	n := len(s.Group.Devices)
	if len(s.Inputs) != n && len(s.Inputs) != 1 {
		return nil, fmt.Errorf("exchange %s: %w: %d inputs for %d devices", s.Kind, gpuexec.ErrInvalidArgument, len(s.Inputs), n)
	}
	in := make(exchange.Parts, n)
	defer func() { in.Release() }()
	if err := s.drain(ctx, in); err != nil {
		return nil, err
	}
	var out exchange.Parts
	var err error
	counted := &countingTransport{Transport: s.Group.Transport, devs: s.Group.Devices, bytes: make([]atomic.Int64, n)}
	g := *s.Group
	g.Transport = counted
	switch s.Kind {
	case ExchangeGather:
		var got []*gpuexec.DeviceBatch
		got, err = g.Gather(ctx, in, 0)
		out = make(exchange.Parts, n)
		out[0] = got
	case ExchangeRepartition:
		out, err = g.Repartition(ctx, in, s.Keys)
	case ExchangeBroadcast:
		var all []*gpuexec.DeviceBatch
		for _, bs := range in {
			all = append(all, bs...)
		}
		out, err = g.Broadcast(ctx, all)
	default:
		err = fmt.Errorf("%w: exchange kind %d", gpuexec.ErrInvalidArgument, s.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("exchange %s over %d devices: %w", s.Kind, n, err)
	}
	for j, st := range s.Stats {
		if st != nil && j < n {
			st.Bytes.Add(counted.bytes[j].Load())
		}
	}
	return out, nil
}

// countingTransport counts the bytes each device of an exchange receives
// from the others (a batch already on its device moves nothing).
type countingTransport struct {
	exchange.Transport
	devs  []*gpuexec.Device
	bytes []atomic.Int64
}

func (c *countingTransport) Move(ctx context.Context, b *gpuexec.DeviceBatch, dst *gpuexec.Device) (*gpuexec.DeviceBatch, error) {
	out, err := c.Transport.Move(ctx, b, dst)
	if err == nil && !dst.Same(b.Device()) {
		for j, d := range c.devs {
			if d.Same(dst) {
				c.bytes[j].Add(int64(out.Bytes()))
				break
			}
		}
	}
	return out, err
}

// drain reads every input to its end at once, one goroutine each, into
// in; empty batches are dropped.
func (s *ExchangeSource) drain(ctx context.Context, in exchange.Parts) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(s.Inputs))
	var wg sync.WaitGroup
	for i, op := range s.Inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = drainDevice(ctx, op, &in[i]); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The cause, not the cancellations it made in the other inputs.
	first := -1
	for i, err := range errs {
		switch {
		case err == nil:
		case !errors.Is(err, context.Canceled):
			return fmt.Errorf("exchange %s, input on device %d: %w", s.Kind, i, err)
		case first < 0:
			first = i
		}
	}
	if first >= 0 {
		return fmt.Errorf("exchange %s, input on device %d: %w", s.Kind, first, errs[first])
	}
	return nil
}

func drainDevice(ctx context.Context, op DeviceOperator, into *[]*gpuexec.DeviceBatch) (err error) {
	if err := op.Open(ctx); err != nil {
		return err
	}
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		b, err := op.NextDevice(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if b.Len == 0 {
			b.Release()
			continue
		}
		*into = append(*into, b)
	}
}

// take hands over device i's next batch (nil at the end).
func (s *ExchangeSource) take(i int) (*gpuexec.DeviceBatch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if i < 0 || i >= len(s.out) || len(s.out[i]) == 0 {
		return nil, nil
	}
	b := s.out[i][0]
	s.out[i][0] = nil
	s.out[i] = s.out[i][1:]
	return b, nil
}

// drop releases what device i has not read.
func (s *ExchangeSource) drop(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= 0 && i < len(s.out) {
		for _, b := range s.out[i] {
			if b != nil {
				b.Release()
			}
		}
		s.out[i] = nil
	}
}

// ExchangeOutput is one device's stream of an exchange's rows.
type ExchangeOutput struct {
	Src    *ExchangeSource
	Device int
}

// Open implements DeviceOperator; the exchange runs on the first read.
func (o *ExchangeOutput) Open(ctx context.Context) error { return nil }

// NextDevice implements DeviceOperator.
func (o *ExchangeOutput) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	o.Src.run(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return o.Src.take(o.Device)
}

// Close implements DeviceOperator: the rows not read are released.
func (o *ExchangeOutput) Close() error {
	o.Src.drop(o.Device)
	return nil
}

// ShareName is the table cache's name of device i's share (of n) of a
// table's row groups, so that a device keeps its share beside the whole
// table without the two meeting.
func ShareName(table string, i, n int) string { return fmt.Sprintf("%s#share%d/%d", table, i, n) }

// RowGroupShare is the row groups of load that device i of n holds: the
// groups, in order, each dealt to the device holding the fewest rows so
// far (the lowest numbered on a tie), so that groups of one size go
// round-robin (group k on device k mod n) and groups of uneven sizes
// (appends, a short last group) still leave every device about a share
// of the rows. Every device deals the same list alike.
func RowGroupShare(load func() ([]*coldata.Batch, error), i, n int) func() ([]*coldata.Batch, error) {
	return func() ([]*coldata.Batch, error) {
		all, err := load()
		if err != nil {
			return nil, err
		}
		var out []*coldata.Batch
		held := make([]int, n)
		for _, b := range all {
			to := 0
			for d := 1; d < n; d++ {
				if held[d] < held[to] {
					to = d
				}
			}
			held[to] += b.Len
			if to == i {
				out = append(out, b)
			}
		}
		return out, nil
	}
}
