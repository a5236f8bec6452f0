package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// MaxPartitions is the most partitions PartitionRows splits a batch into.
const MaxPartitions = 256

// PartitionedRows is a batch's rows reordered by partition (PartitionRows).
type PartitionedRows struct {
	// Batch holds the input's columns, then an Int64 column with each
	// row's number in the input plus the base PartitionRows was given.
	Batch *DeviceBatch
	// Bounds[p] is the first row of partition p in Batch; partition p is
	// rows Bounds[p] to Bounds[p+1].
	Bounds []int
	// Launches counts the kernels run.
	Launches int
}

// Part returns partition p's rows as a view, every column (the row
// numbers last). The caller releases it.
func (r *PartitionedRows) Part(p int) (*DeviceBatch, error) {
	if p < 0 || p+1 >= len(r.Bounds) {
		return nil, invalidf("partition %d of %d", p, len(r.Bounds)-1)
	}
	return Slice(r.Batch, r.Bounds[p], r.Bounds[p+1])
}

// Release frees the reordered batch.
func (r *PartitionedRows) Release() {
	if r.Batch != nil {
		r.Batch.Release()
		r.Batch = nil
	}
}

// PartitionRows reorders the rows of in by partition: a row's partition is
// the top bits of the GROUP BY hash of its key columns keys, so rows with
// equal keys (NULLs equal) share one, whichever batch they are in. parts
// is a power of two from 2 to MaxPartitions. Within a partition rows keep
// their order in in. A GROUP BY over batches too large to concatenate
// groups each partition's rows from every batch at once: its groups are
// then final, and no partition shares a group with another.
func (d *Device) PartitionRows(ctx context.Context, in *DeviceBatch, keys []int, parts int, base int64) (*PartitionedRows, error) {
	if parts < 2 || parts > MaxPartitions || parts&(parts-1) != 0 {
		return nil, invalidf("partition rows into %d parts (a power of two from 2 to %d)", parts, MaxPartitions)
	}
	if err := d.own(in); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, invalidf("partition rows without key columns")
	}
	for _, k := range keys {
		if k < 0 || k >= len(in.Cols) || !groupableType(in.Cols[k].Type) {
			return nil, invalidf("partition key column %d is not groupable", k)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	types := make([]coldata.Type, len(in.Cols))
	for i, c := range in.Cols {
		types[i] = c.Type
	}
	gk, err := fuse.GenerateGather(types)
	if err != nil {
		return nil, fmt.Errorf("partition rows: %w", err)
	}
	var out *PartitionedRows
	err = d.Do(func() error {
		var err error
		out, err = d.partitionRowsOn(ctx, in, keys, parts, base, gk)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("partition rows: %w", err)
	}
	return out, nil
}

func (d *Device) partitionRowsOn(ctx context.Context, in *DeviceBatch, keys []int, parts int, base int64, gk *fuse.Kernel) (*PartitionedRows, error) {
	n := int64(in.Len)
	sc := &hashScratch{d: d}
	defer sc.release()
	res := &PartitionedRows{Bounds: make([]int, parts+1)}
	var words []uint64
	for _, k := range keys {
		c := colDesc(in.Cols[k])
		words = append(words, c[:]...)
	}
	keyDesc, err := sc.upload(words)
	if err != nil {
		return nil, err
	}
	partOf, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	shift := int64(64 - bits.TrailingZeros(uint(parts)))
	if n > 0 {
		if err := d.launchGrid("gsql_part_keys", d.strided(n), keyDesc.ptr, int64(len(keys)), n, shift, partOf.ptr); err != nil {
			return nil, err
		}
		res.Launches++
	}
	run, err := d.radixSortOn(ctx, sc, partOf.ptr, 0, n)
	if err != nil {
		return nil, err
	}
	res.Launches += run.launches
	bounds, err := sc.alloc(uint64(8 * (parts + 1)))
	if err != nil {
		return nil, err
	}
	if err := d.launchGrid("gsql_part_bounds", d.strided(n+1), run.keys.ptr, n, int64(parts), bounds.ptr); err != nil {
		return nil, err
	}
	res.Launches++
	raw := make([]byte, 8*(parts+1))
	if err := d.CopyToHost(raw, bounds.ptr, nil); err != nil {
		return nil, err
	}
	for p := range res.Bounds {
		res.Bounds[p] = int(binary.LittleEndian.Uint64(raw[8*p:]))
	}
	if res.Bounds[0] != 0 || res.Bounds[parts] != int(n) {
		return nil, fmt.Errorf("gpu: partition bounds %d..%d for %d rows", res.Bounds[0], res.Bounds[parts], n)
	}
	// The gather reads row numbers as 64-bit words; the row column adds
	// the base to the same numbers.
	idx, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	rowNums, err := d.allocOn(uint64(8 * max(n, 1)))
	if err != nil {
		return nil, err
	}
	rowBatch := &DeviceBatch{Cols: []DeviceVec{{Type: coldata.Int64, Len: int(n), Data: rowNums.ptr}}, Len: int(n), d: d, bufs: []*Buffer{rowNums}}
	defer rowBatch.Release()
	if n > 0 {
		for _, w := range []struct {
			dst  *Buffer
			base int64
		}{{idx, 0}, {rowNums, base}} {
			if err := d.launchGrid("gsql_rows_i64", d.strided(n), run.rows.ptr, n, w.base, w.dst.ptr); err != nil {
				return nil, err
			}
			res.Launches++
		}
	}
	g, err := d.gather(ctx, gk, in, idx.ptr, int(n))
	if err != nil {
		return nil, err
	}
	defer g.Release()
	res.Launches++
	cols := append(append([]DeviceVec{}, g.Cols...), rowBatch.Cols[0])
	if res.Batch, err = Combine(cols, int(n), g, rowBatch); err != nil {
		return nil, err
	}
	return res, nil
}

// SplitByHash splits b's rows among n destinations by the hash of its key
// columns keys: part i holds, as a view, the rows whose
// HashDestination(RowHash(keys), n) is i (what the CPU computes for the
// same rows, so a host and a device split agree). It partitions the rows
// into 2^8 hash partitions (PartitionRows) and hands each destination a
// contiguous run of them; rows keep their order within a partition. The
// caller releases the parts.
func (d *Device) SplitByHash(ctx context.Context, b *DeviceBatch, keys []int, n int) ([]*DeviceBatch, error) {
	if n < 1 || n > 1<<hashPartBits {
		return nil, invalidf("hash split into %d destinations (1 to %d)", n, 1<<hashPartBits)
	}
	if err := d.own(b); err != nil {
		return nil, err
	}
	if n == 1 || b.Len == 0 {
		// Nothing to hash: every part is b itself (empty ones for an
		// empty b), so no kernel runs over zero rows.
		out := make([]*DeviceBatch, n)
		for i := range out {
			r, err := b.Retain()
			if err != nil {
				for _, o := range out[:i] {
					o.Release()
				}
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	pr, err := d.PartitionRows(ctx, b, keys, 1<<hashPartBits, 0)
	if err != nil {
		return nil, fmt.Errorf("hash split: %w", err)
	}
	defer pr.Release()
	width := len(b.Cols) // the row numbers PartitionRows adds are dropped
	out := make([]*DeviceBatch, 0, n)
	p := 0
	for dest := 0; dest < n; dest++ {
		lo := pr.Bounds[p]
		for p < 1<<hashPartBits && int((uint64(p)*uint64(n))>>hashPartBits) == dest {
			p++
		}
		part, err := Slice(pr.Batch, lo, pr.Bounds[p])
		if err == nil {
			var view *DeviceBatch
			view, err = Combine(part.Cols[:width], part.Len, part)
			part.Release()
			out = append(out, view)
		}
		if err != nil {
			for _, o := range out {
				if o != nil {
					o.Release()
				}
			}
			return nil, fmt.Errorf("hash split: %w", err)
		}
	}
	return out, nil
}
