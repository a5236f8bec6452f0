package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// DeviceRuntime is what GPU operators share: the device and the cache of
// device-resident tables.
type DeviceRuntime struct {
	Dev   *gpuexec.Device
	Cache *gpuexec.TableCache
}

// DeviceOperator is an operator whose batches live in device memory. The
// caller releases every batch it receives.
type DeviceOperator interface {
	Open(ctx context.Context) error
	NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error)
	Close() error
}

// DeviceBatchRows bounds the rows of one device batch (a variable so that
// tests can make tables of many batches); string columns are further
// limited by deviceBatchChars so that 32-bit offsets never overflow.
var DeviceBatchRows = 1 << 28

const deviceBatchChars = 1 << 30

// GroupForDevice groups host batches into few large device batches (the
// GPU wants millions of rows per launch) within the device batch limits;
// each group is uploaded as one batch, packed without a host copy.
func GroupForDevice(batches []*coldata.Batch) [][]*coldata.Batch {
	var out [][]*coldata.Batch
	var group []*coldata.Batch
	rows := 0
	var chars []int
	for _, b := range batches {
		if chars == nil {
			chars = make([]int, len(b.Cols))
		}
		over := rows+b.Len > DeviceBatchRows
		for c, v := range b.Cols {
			if v != nil && v.Type == coldata.String && !v.Const && chars[c]+int(v.Offsets[b.Len]-v.Offsets[0]) > deviceBatchChars {
				over = true
			}
		}
		if over && len(group) > 0 {
			out = append(out, group)
			group, rows = nil, 0
			clear(chars)
		}
		group = append(group, b)
		rows += b.Len
		for c, v := range b.Cols {
			if v != nil && v.Type == coldata.String && !v.Const {
				chars[c] += int(v.Offsets[b.Len] - v.Offsets[0])
			}
		}
	}
	if len(group) > 0 {
		out = append(out, group)
	}
	return out
}

// NewDeviceRuntime opens the GPU with a table cache of cacheBudget bytes
// (0: DefaultCacheBudget of the device's limit). The device state is
// shared with every other runtime of the process on that GPU
// (gpuexec.Open); the table cache and opts.PoolLimit, a quota on the
// memory this runtime's buffers hold, are its own. Close gives both back.
func NewDeviceRuntime(opts gpuexec.Options, cacheBudget uint64) (*DeviceRuntime, error) {
	d, err := gpuexec.Open(opts)
	if err != nil {
		return nil, err
	}
	if cacheBudget == 0 {
		cacheBudget = DefaultCacheBudget(d.MemoryLimit())
	}
	return &DeviceRuntime{Dev: d, Cache: gpuexec.NewTableCache(d, cacheBudget)}, nil
}

// Close drops the runtime's resident tables and its reference on the
// shared device (which closes with its last user).
func (rt *DeviceRuntime) Close() error {
	rt.Cache.Clear()
	if err := rt.Dev.Close(); err != nil {
		return fmt.Errorf("closing the GPU: %w", err)
	}
	return nil
}

// ForQuery is the runtime one query's operators use: the same device,
// quota and resident tables, through a device handle that counts the
// query's waits (context thread, compiles, pool memory) in w.
func (rt *DeviceRuntime) ForQuery(w *gpuexec.Waits) *DeviceRuntime {
	return &DeviceRuntime{Dev: rt.Dev.ForQuery(w), Cache: rt.Cache}
}

// waitCtx carries the query's Waits to the calls that take a context but
// use the database's handle (the table cache's retries and scans).
func (rt *DeviceRuntime) waitCtx(ctx context.Context) context.Context {
	if w := rt.Dev.Waits(); w != nil && gpuexec.WaitsOf(ctx) == nil {
		return gpuexec.WithWaits(ctx, w)
	}
	return ctx
}

// DefaultCacheBudget is the resident tables' share of a device with limit
// bytes of memory (the GPU's, or the database's pool limit): half of it,
// leaving the other half to the queries' working memory. A fixed 8 GiB is
// less than a TPC-H SF10 database, whose tables would then take turns on
// an 80 GB card, uploaded again by every query; "at least 8 GiB", as this
// once read, let the tables of a database capped at 8 GiB fill its whole
// pool and its joins and GROUP BYs run out of memory (TPC-H SF10 under
// --pool-limit 8GiB: Q13, Q18, Q20 and Q21 failed on the H200).
func DefaultCacheBudget(limit uint64) uint64 {
	return limit / 2
}

// splitHalves cuts b into two views near its middle, at a multiple of
// splitRows so that the halves' validity bitmaps stay byte-aligned (fused
// kernels take no bit-shifted views); ok is false when b is too small.
func splitHalves(b *gpuexec.DeviceBatch) (lo, hi *gpuexec.DeviceBatch, ok bool) {
	if b.Len < 2*splitRows {
		return nil, nil, false
	}
	mid := (b.Len / 2) &^ (splitRows - 1)
	lo, err := gpuexec.Slice(b, 0, mid)
	if err != nil {
		return nil, nil, false
	}
	hi, err = gpuexec.Slice(b, mid, b.Len)
	if err != nil {
		lo.Release()
		return nil, nil, false
	}
	return lo, hi, true
}

func releasePending(p *[]*gpuexec.DeviceBatch) {
	for _, b := range *p {
		b.Release()
	}
	*p = nil
}
