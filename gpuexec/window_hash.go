package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// WindowHashAgg is one window aggregate over whole partitions: COUNT(*)
// (CountStar, Arg ignored), or Kind (COUNT, SUM, AVG, MIN, MAX) of column
// Arg; Out is the result type (DECIMAL for AVG of integers, IntAvgType).
type WindowHashAgg struct {
	CountStar bool
	Kind      WindowAggKind
	Arg       int
	Out       coldata.Type
}

// groupKind is the GROUP BY state that a computes from, and whether the
// result divides it by the count (AVG).
func (a WindowHashAgg) groupKind(in *DeviceBatch) (GroupAggKind, bool, error) {
	if a.CountStar {
		return GroupCountStar, false, nil
	}
	if a.Arg < 0 || a.Arg >= len(in.Cols) {
		return 0, false, invalidf("window aggregate argument column %d out of range", a.Arg)
	}
	t := in.Cols[a.Arg].Type
	p := t.Physical()
	switch {
	case a.Kind == WindowCount && t != coldata.Null:
		return GroupCount, false, nil
	case (a.Kind == WindowSum || a.Kind == WindowAvg) && (p == coldata.Int64 || p == coldata.Bool):
		return GroupSumInt, a.Kind == WindowAvg, nil
	case (a.Kind == WindowSum || a.Kind == WindowAvg) && p == coldata.Float64:
		return GroupSumFloat, a.Kind == WindowAvg, nil
	case (a.Kind == WindowMin || a.Kind == WindowMax) && p == coldata.Int64:
		return map[bool]GroupAggKind{true: GroupMinInt, false: GroupMaxInt}[a.Kind == WindowMin], false, nil
	case (a.Kind == WindowMin || a.Kind == WindowMax) && p == coldata.Float64:
		return map[bool]GroupAggKind{true: GroupMinFloat, false: GroupMaxFloat}[a.Kind == WindowMin], false, nil
	}
	return 0, false, invalidf("hashed window aggregate %d of %s", a.Kind, t)
}

// WindowHashed computes window aggregates whose frame is the whole
// partition without sorting: GROUP BY's hash table (groupTableOn) groups
// in's rows by the key columns keys and folds each aggregate per group,
// then one kernel per aggregate gives every row its group's value
// (kernels/hash.cu, gsql_win_hash_finish). The result has one column per
// aggregate, in input row order. Grouping is GROUP BY's: NULL keys form
// one partition, -0.0 equals 0.0. DOUBLE sums add in the device's order,
// so their last bits may differ from the CPU's; integer sums are exact,
// and one past BIGINT returns ErrWindowOverflow (the caller computes it
// on the host, which reports the error). One host synchronisation reads
// the table's size, one the overflow flag.
func (d *Device) WindowHashed(ctx context.Context, in *DeviceBatch, keys []int, aggs []WindowHashAgg) (*DeviceBatch, error) {
	if err := d.own(in); err != nil {
		return nil, err
	}
	if in.Len == 0 {
		return nil, invalidf("hashed window over no rows")
	}
	for _, k := range keys {
		if k < 0 || k >= len(in.Cols) || !groupableType(in.Cols[k].Type) {
			return nil, invalidf("window partition key column %d is not groupable", k)
		}
	}
	gaggs := make([]GroupAgg, len(aggs))
	avgs := make([]bool, len(aggs))
	for i, a := range aggs {
		k, avg, err := a.groupKind(in)
		if err != nil {
			return nil, err
		}
		switch p := a.Out.Physical(); {
		case k == GroupCountStar || k == GroupCount || k == GroupSumInt && !avg || k == GroupMinInt || k == GroupMaxInt:
			if p != coldata.Int64 {
				return nil, invalidf("hashed window aggregate %d with a %s result", a.Kind, a.Out)
			}
		case k == GroupSumInt && p == coldata.Decimal:
			if !IntAvgType(a.Out) {
				return nil, invalidf("hashed window aggregate %d with a %s result", a.Kind, a.Out)
			}
		case p != coldata.Float64:
			return nil, invalidf("hashed window aggregate %d with a %s result", a.Kind, a.Out)
		}
		gaggs[i], avgs[i] = GroupAgg{Kind: k, Arg: a.Arg}, avg
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	overflow := false
	err := d.Do(func() error {
		sc := &hashScratch{d: d}
		var keep []*Buffer // the results, released on failure
		defer func() {
			// Scratch is read by kernels still in flight on failure.
			d.drv.syncStream(d.stream.h)
			sc.release()
			for _, b := range keep {
				b.Release()
			}
		}()
		run, _, _, err := d.groupTableOn(ctx, sc, in, keys, gaggs)
		if err != nil {
			return err
		}
		n := int64(in.Len)
		flag, err := sc.alloc(8)
		if err != nil {
			return err
		}
		if err := d.drv.memset8(flag.ptr, 0, 8, d.stream.h); err != nil {
			return err
		}
		cols := make([]DeviceVec, len(aggs))
		for i, g := range gaggs {
			elem, p10 := uint64(8), uint64(0)
			if aggs[i].Out.IsDecimal() {
				elem, p10 = 16, pow10u64(aggs[i].Out.Scale())
			}
			res, err := d.allocOn(elem * uint64(n))
			if err != nil {
				return err
			}
			keep = append(keep, res)
			cols[i] = DeviceVec{Type: aggs[i].Out, Len: in.Len, Data: res.ptr}
			var valid DevicePtr
			if g.Kind != GroupCountStar && g.Kind != GroupCount {
				size := uint64(4 * ((n + 31) / 32))
				vb, err := d.allocOn(size)
				if err != nil {
					return err
				}
				keep = append(keep, vb)
				if err := d.drv.memset8(vb.ptr, 0, size, d.stream.h); err != nil {
					return err
				}
				valid, cols[i].Nulls = vb.ptr, vb.ptr
			}
			st := run.states[i]
			avg := int64(0)
			if avgs[i] {
				avg = 1
			}
			if err := d.launchGrid("gsql_win_hash_finish", d.strided(n), int64(g.Kind), avg, n, run.slotOf.ptr,
				st[2].ptr, statePtr(st[0]), statePtr(st[1]), res.ptr, valid, flag.ptr, p10); err != nil {
				return err
			}
		}
		raw := make([]byte, 4)
		if err := d.drv.d2h(raw, flag.ptr, d.stream.h); err != nil {
			return err
		}
		if err := d.drv.syncStream(d.stream.h); err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(raw) != 0 {
			overflow = true
			return nil
		}
		out = &DeviceBatch{Cols: cols, Len: in.Len, d: d, bufs: keep}
		keep = nil
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hashed window: %w", err)
	}
	if overflow {
		return nil, ErrWindowOverflow
	}
	return out, nil
}

// statePtr is a state array's address, 0 for one the kind keeps none of.
func statePtr(b *Buffer) DevicePtr {
	if b == nil {
		return 0
	}
	return b.ptr
}
