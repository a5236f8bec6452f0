// Package operators holds gsql's pull-based physical operators. Each one
// produces column batches on demand (Next) from its inputs; a nil batch means
// the input is exhausted. Expressions are evaluated a whole batch at a time
// through the expr registry.
package operators

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// Operator is the interface every physical operator implements.
type Operator interface {
	// Open prepares the operator (and its inputs) to produce batches.
	Open(ctx context.Context) error
	// Next returns the next non-empty batch, or nil at the end.
	Next(ctx context.Context) (*coldata.Batch, error)
	// Close releases resources; it is safe to call more than once.
	Close() error
}

// Stats counts what an operator did, for EXPLAIN ANALYZE.
type Stats struct {
	Rows     atomic.Int64
	Batches  atomic.Int64
	Nanos    atomic.Int64 // wall time inside Next, inputs included
	Bytes    atomic.Int64 // bytes moved between host and device
	Launches atomic.Int64 // kernel launches
	// Fallbacks counts batches a GPU operator evaluated on the CPU.
	Fallbacks atomic.Int64
	// WarningBatches counts batches a GPU operator computed and then
	// evaluated on the CPU for their warnings (device_warn.go).
	WarningBatches atomic.Int64
	// WarpBatches counts batches a fused kernel evaluated one row per warp
	// (long strings).
	WarpBatches atomic.Int64
	// Tier0Batches and Tier1Batches count the batches a GPU filter or
	// projection ran through the precompiled interpreter and through its
	// own fused kernels; LibraryBatches through the kernel library.
	Tier0Batches, Tier1Batches, LibraryBatches atomic.Int64
	// CompileWaitNanos is time the query waited for kernel compiles;
	// CompileBackgroundNanos is compile time that ran beside the query
	// while another tier answered.
	CompileWaitNanos, CompileBackgroundNanos atomic.Int64
	// HashPartitions counts the partitions a GPU GROUP BY grouped its
	// input in, each partition's rows from every batch at once, because
	// the batches were too large to concatenate.
	HashPartitions atomic.Int64
	// BatchPartials counts the batches, too large to concatenate, that a
	// GPU GROUP BY grouped one by one instead, each having few groups for
	// its rows: their partial groups merged on the host.
	BatchPartials atomic.Int64
	// ProbeSplits counts the probe batches a device join cut into row
	// slices because their output passed the pairs one probe may hold or
	// the device's memory (device_join_split.go).
	ProbeSplits atomic.Int64
	// OOMSplits counts the batches a GPU GROUP BY grouped in halves
	// because the device ran out of memory for the whole batch's table.
	OOMSplits atomic.Int64
	// HashedLeft is 1 when a join hashed its left input instead of its
	// right one (it was much smaller).
	HashedLeft atomic.Int64
	// HostSorts counts the sorts a device ORDER BY ran on the host (its
	// keys downloaded): a key type the device does not order, or text
	// too long to pack, found at run time.
	HostSorts atomic.Int64
	// HostOrders counts the device ORDER BYs whose input was tiny and
	// was ordered on the host whole (device_tiny.go), HostOrderRows
	// their rows.
	HostOrders, HostOrderRows atomic.Int64
	// HostJoins counts the device joins whose two sides were tiny and
	// were joined on the host (device_tiny.go), HostJoinRows their input
	// rows, both sides.
	HostJoins, HostJoinRows atomic.Int64
	// HostJoinOOM is 1 when a device join's build side, split into
	// partitions, still ran out of device memory and a partition ran on
	// the host (device_join_oom.go).
	HostJoinOOM atomic.Int64
	// OOMPartitions is the partitions a device join whose build side ran
	// out of device memory was joined in, one after the other
	// (device_join_partitioned.go), or a device GROUP BY that ran out
	// grouped its input in (device_aggregate_partitioned.go); 0 when none
	// did.
	OOMPartitions atomic.Int64
	// OOMResplits counts the partitions of such a join or GROUP BY that
	// still ran out of device memory and were split again, with another
	// hash.
	OOMResplits atomic.Int64
	// HostGroupOOM is 1 when a device GROUP BY, split into partitions
	// after it ran out of device memory, still ran out and grouped a
	// partition on the CPU (device_aggregate_partitioned.go).
	HostGroupOOM atomic.Int64
	// HostAggs counts the device GROUP BYs whose input was tiny and was
	// grouped on the host (device_tiny.go), HostAggRows their input rows.
	HostAggs, HostAggRows atomic.Int64
	// HostGroups counts the GROUP BYs a device operator read whose groups
	// were finished on the host and uploaded (an aggregate the device
	// cannot finish, a value it cannot finish exactly, a partitioned
	// input) instead of staying on the device.
	HostGroups atomic.Int64
	// LentBatches counts the batches an operator passed as a selection of
	// its input's rows, ungathered, to a consumer that reads them so
	// (NextSelection: a Filter under a GROUP BY, a ParallelCompute under
	// a sort with a small LIMIT).
	LentBatches atomic.Int64
	// TopGroups counts the groups a GROUP BY's top-groups cut kept (the
	// ones that left the device), plus one: 0 when there was no cut.
	TopGroups atomic.Int64
	// SpillPartitions counts the partitions an operator wrote to disk
	// because its state passed the memory limit, SpillBytes their bytes.
	SpillPartitions, SpillBytes atomic.Int64
	// PeakHostBytes is the most host memory an operator's state held at
	// once: a GROUP BY's groups and a join's hashed side (as MemoryLimit
	// counts them), a sort's, window's or shared CTE's buffered batches,
	// spill write buffers; recorded when the operator closes.
	PeakHostBytes atomic.Int64
}

// stateSizer is an operator that can tell its state's host memory.
type stateSizer interface{ StateBytes() uint64 }

// Duration returns the time spent in Next.
func (s *Stats) Duration() time.Duration { return time.Duration(s.Nanos.Load()) }

// Instrument wraps op so that its batches, rows and time are counted in st.
func Instrument(op Operator, st *Stats) Operator { return &instrumented{Operator: op, st: st} }

type instrumented struct {
	Operator
	st *Stats
}

// Close records the operator's peak host memory before the operator
// drops its state.
func (o *instrumented) Close() error {
	recordPeak(o.Operator, o.st)
	return o.Operator.Close()
}

// recordPeak raises st's PeakHostBytes to what op reports held.
func recordPeak(op any, st *Stats) {
	var n int64
	if s, ok := op.(stateSizer); ok {
		n = int64(s.StateBytes())
	}
	if p, ok := op.(peakHolder); ok {
		n = max(n, p.PeakHostBytes())
	}
	raisePeak(st, n)
}

// raisePeak raises st's PeakHostBytes to n (st may be nil).
func raisePeak(st *Stats, n int64) {
	if st == nil {
		return
	}
	for {
		old := st.PeakHostBytes.Load()
		if n <= old || st.PeakHostBytes.CompareAndSwap(old, n) {
			return
		}
	}
}

func (o *instrumented) Next(ctx context.Context) (*coldata.Batch, error) {
	start := time.Now()
	b, err := o.Operator.Next(ctx)
	o.st.Nanos.Add(int64(time.Since(start)))
	if b != nil {
		o.st.Rows.Add(int64(b.Len))
		o.st.Batches.Add(1)
	}
	return b, err
}

// NextSelection passes a selection source's batches and selections (see
// selectionSource), counting the rows selected.
func (o *instrumented) NextSelection(ctx context.Context) (*coldata.Batch, []int, error) {
	src, ok := o.Operator.(selectionSource)
	if !ok {
		b, err := o.Next(ctx)
		return b, nil, err
	}
	start := time.Now()
	b, sel, err := src.NextSelection(ctx)
	o.st.Nanos.Add(int64(time.Since(start)))
	if b != nil {
		n := b.Len
		if sel != nil {
			n = len(sel)
		}
		o.st.Rows.Add(int64(n))
		o.st.Batches.Add(1)
		if sel != nil {
			o.st.LentBatches.Add(1)
		}
	}
	return b, sel, err
}

// releaseBatch passes a batch back to the operator that produced it
// (see batchReleaser).
func (o *instrumented) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	releaseInput(o.Operator, b, live)
}

// selectMinOthers is the fewest output columns besides a sort's keys for
// which its filter passes selections (ClickBench Q24's 104; Q25 and Q27,
// one, ran slower selecting: BenchmarkClickBench Q25, Q27 on the CPU).
const selectMinOthers = 4

// selectionSource is an operator that can pass its output as the selected
// rows of a batch, ungathered (ParallelCompute with Select).
type selectionSource interface {
	NextSelection(ctx context.Context) (b *coldata.Batch, sel []int, err error)
}

// SelectRowsOf makes op, a (possibly instrumented) ParallelCompute whose
// outputs are all input columns, pass its kept rows as selections to a
// consumer that reads them with NextSelection (a Sort with a small Limit
// on keys of the output's columns); it reports whether op is such an
// operator. Only outputs with several columns besides the keys gain: the
// keys are gathered on the consumer's goroutine, where the filter's
// workers gathered every column in parallel. Call it before Open.
func SelectRowsOf(op Operator, keys []opspec.SortKey) bool {
	var keyCols []int
	for _, k := range keys {
		if !slices.Contains(keyCols, k.Col) {
			keyCols = append(keyCols, k.Col)
		}
	}
	if in, ok := op.(*instrumented); ok {
		op = in.Operator
	}
	p, ok := op.(*ParallelCompute)
	if !ok || p.Pred == nil || len(p.Exprs) < len(keyCols)+selectMinOthers {
		return false
	}
	for _, e := range p.Exprs {
		if _, ok := e.(*expr.ColumnRef); !ok {
			return false
		}
	}
	p.Select = true
	return true
}

// InstrumentDevice wraps a device operator like Instrument. Its time is
// host time: kernels still running when NextDevice returns are counted by
// the operator that waits for them.
func InstrumentDevice(op DeviceOperator, st *Stats) DeviceOperator {
	return &instrumentedDevice{DeviceOperator: op, st: st}
}

type instrumentedDevice struct {
	DeviceOperator
	st *Stats
}

// Close records the operator's peak host memory (a device operator
// that finishes work on the host) before the operator drops its state.
func (o *instrumentedDevice) Close() error {
	recordPeak(o.DeviceOperator, o.st)
	return o.DeviceOperator.Close()
}

func (o *instrumentedDevice) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	start := time.Now()
	b, err := o.DeviceOperator.NextDevice(ctx)
	o.st.Nanos.Add(int64(time.Since(start)))
	if b != nil {
		o.st.Rows.Add(int64(b.Len))
		o.st.Batches.Add(1)
	}
	return b, err
}

// UseResultMemory lets the GPU download at the top of a query's plan hand
// out batches backed by page-locked result memory (gpuexec.ResultPool),
// looking through LIMIT; it reports whether there is such a download. The
// caller must release every batch's Owner once it no longer reads it
// (coldata.BatchToRecord passes it on to the Arrow record).
func UseResultMemory(op Operator) bool {
	for {
		switch x := op.(type) {
		case *instrumented:
			op = x.Operator
		case *Limit:
			op = x.Input
		case *DeviceToHost:
			x.Results = true
			return true
		default:
			return false
		}
	}
}

// KeepDeviceResults makes the GPU download at the top of a plan keep its
// device batches (DeviceToHost.Keep) and returns it, or nil when the plan's
// rows do not come straight from the GPU. The caller releases what it kept.
func KeepDeviceResults(op Operator) *DeviceToHost {
	for {
		switch x := op.(type) {
		case *instrumented:
			op = x.Operator
		case *DeviceToHost:
			x.Keep = true
			return x
		default:
			return nil
		}
	}
}

// Drain runs op to the end and returns all of its batches.
func Drain(ctx context.Context, op Operator) ([]*coldata.Batch, error) {
	if err := op.Open(ctx); err != nil {
		op.Close()
		return nil, err
	}
	var out []*coldata.Batch
	for {
		b, err := op.Next(ctx)
		if err != nil {
			op.Close()
			return nil, err
		}
		if b == nil {
			break
		}
		out = append(out, b)
	}
	return out, op.Close()
}

// MergeStats adds up the statistics of one plan node's copies, one per
// device of a plan spread over several GPUs: counters add up, and the
// time is the longest copy's, since the copies run at once.
func MergeStats(parts []*Stats) *Stats {
	out := &Stats{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		out.Rows.Add(p.Rows.Load())
		out.Batches.Add(p.Batches.Load())
		out.Nanos.Store(max(out.Nanos.Load(), p.Nanos.Load()))
		out.Bytes.Add(p.Bytes.Load())
		out.Launches.Add(p.Launches.Load())
		out.Fallbacks.Add(p.Fallbacks.Load())
		out.WarpBatches.Add(p.WarpBatches.Load())
		out.Tier0Batches.Add(p.Tier0Batches.Load())
		out.Tier1Batches.Add(p.Tier1Batches.Load())
		out.LibraryBatches.Add(p.LibraryBatches.Load())
		out.CompileWaitNanos.Add(p.CompileWaitNanos.Load())
		out.CompileBackgroundNanos.Add(p.CompileBackgroundNanos.Load())
		out.HashPartitions.Add(p.HashPartitions.Load())
		out.HashedLeft.Store(max(out.HashedLeft.Load(), p.HashedLeft.Load()))
		out.HostSorts.Add(p.HostSorts.Load())
		out.HostOrders.Add(p.HostOrders.Load())
		out.HostOrderRows.Add(p.HostOrderRows.Load())
		out.HostJoins.Add(p.HostJoins.Load())
		out.HostJoinRows.Add(p.HostJoinRows.Load())
		out.HostJoinOOM.Store(max(out.HostJoinOOM.Load(), p.HostJoinOOM.Load()))
		out.OOMPartitions.Store(max(out.OOMPartitions.Load(), p.OOMPartitions.Load()))
		out.HostGroupOOM.Store(max(out.HostGroupOOM.Load(), p.HostGroupOOM.Load()))
		out.OOMResplits.Add(p.OOMResplits.Load())
		out.OOMSplits.Add(p.OOMSplits.Load())
		out.HostAggs.Add(p.HostAggs.Load())
		out.HostAggRows.Add(p.HostAggRows.Load())
		out.HostGroups.Add(p.HostGroups.Load())
		// TopGroups is the groups kept plus one (0: no cut).
		if k := p.TopGroups.Load(); k > 0 {
			out.TopGroups.Store(max(out.TopGroups.Load(), 1) + k - 1)
		}
		out.SpillPartitions.Add(p.SpillPartitions.Load())
		out.SpillBytes.Add(p.SpillBytes.Load())
		out.PeakHostBytes.Add(p.PeakHostBytes.Load())
	}
	return out
}
