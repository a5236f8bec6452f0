package gpuexec

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// RowOrder is SortRows' result: the first Len rows of a sort as int64 row
// numbers on the device (the index a gather reads).
type RowOrder struct {
	Rows *Buffer
	Len  int
	// Launches counts the kernels the sort ran.
	Launches int
}

// Release frees the row numbers.
func (o *RowOrder) Release() {
	if o.Rows != nil {
		o.Rows.Release()
		o.Rows = nil
	}
}

// RowSortable reports whether SortRows orders keys of type t: the
// WindowSortable types (text packed whole when no string is longer than
// MaxTextSortBytes).
func RowSortable(t coldata.Type) bool { return WindowSortable(t) }

// SortRows orders n rows by keys on the device, as ORDER BY does: a
// stable sort (ties keep input order), each key ascending or descending
// with its NULLs first or last, DOUBLE's -0.0 equal to 0.0 and every NaN
// one value above +Inf, text bytewise. The keys are packed and
// radix-sorted as SortWindow's (sortKeysOn); only their ranges and the
// sort's digit ranges come to the host. It returns the first limit rows
// of the order (all n when limit <= 0 or limit >= n). Every key's type
// must be RowSortable; ok is false, and nothing sorted, when a text key
// holds a string longer than MaxTextSortBytes. The caller releases the
// result.
func (d *Device) SortRows(ctx context.Context, n int, keys []WindowKey, limit int) (o *RowOrder, ok bool, err error) {
	if n <= 0 || n >= 1<<31-1 {
		return nil, false, invalidf("sort of %d rows on the device (at least one, fewer than 2^31)", n)
	}
	for i, k := range keys {
		if !RowSortable(k.Col.Type) || k.Col.Len != n {
			return nil, false, invalidf("sort key %d: %d rows of %s for a sort of %d", i, k.Col.Len, k.Col.Type, n)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	m := n
	if limit > 0 && limit < n {
		m = limit
	}
	o = &RowOrder{Len: m}
	err = d.Do(func() error {
		sc := &hashScratch{d: d}
		defer func() {
			// Kernels reading the scratch may still be in flight.
			d.drv.syncStream(d.stream.h)
			sc.release()
		}()
		ks, err := d.sortKeysOn(ctx, sc, int64(n), keys, 0)
		if err != nil {
			return err
		}
		o.Launches += ks.launches
		if ks.long {
			return nil
		}
		ok = true
		rows := ks.rows
		if rows == nil {
			// No key varies: the input order is the order.
			if rows, err = sc.alloc(uint64(4 * m)); err != nil {
				return err
			}
			if err := d.launchGrid("gsql_sort_iota", d.strided(int64(m)), rows.ptr, int64(m)); err != nil {
				return err
			}
			o.Launches++
		}
		out, err := d.allocOn(uint64(8 * m))
		if err != nil {
			return err
		}
		if err := d.launchGrid("gsql_rows_i64", d.strided(int64(m)), rows.ptr, int64(m), int64(0), out.ptr); err != nil {
			out.Release()
			return err
		}
		o.Launches++
		o.Rows = out
		return nil
	})
	if err != nil || !ok {
		o.Release()
		if err != nil {
			return nil, false, fmt.Errorf("sort on the device: %w", err)
		}
		return nil, false, nil
	}
	return o, true, nil
}
