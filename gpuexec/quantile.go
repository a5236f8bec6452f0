package gpuexec

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
)

// Grouped quantiles (MEDIAN, QUANTILE_CONT/DISC, PERCENTILE_CONT/DISC) on
// the device: the GROUP BY's hash table gives every row its group, the
// rows are radix-sorted by (group, value) with NULL values in a group of
// their own, each group's run is found in the sorted order, and one thread
// per group picks its element(s) (kernels/sort.cu).

// isQuantile reports whether k is a quantile kind.
func isQuantile(k GroupAggKind) bool { return k == GroupQuantileCont || k == GroupQuantileDisc }

// tableAggs returns aggs with each quantile replaced by COUNT of its
// argument: the hash pass counts a quantile's values, and the quantile
// itself comes from the sort.
func tableAggs(aggs []GroupAgg) ([]GroupAgg, bool) {
	var out []GroupAgg
	for i, a := range aggs {
		if !isQuantile(a.Kind) {
			continue
		}
		if out == nil {
			out = slices.Clone(aggs)
		}
		out[i] = GroupAgg{Kind: GroupCount, Arg: a.Arg}
	}
	if out == nil {
		return aggs, false
	}
	return out, true
}

// quantileRuns is one (argument, direction)'s rows sorted by (group,
// value): group g's values are rows[start[g]:end[g]] (both int32 per
// group), in the order the quantile reads them.
type quantileRuns struct {
	start, end *Buffer
	rows       DevicePtr // uint32 rows; 0 when no value is non-NULL
}

// quantilesOn computes the quantile aggregates of aggs into res, whose
// other states (and each quantile's Count) are filled. slotOf (nil: one
// group) is each row's hash slot and occ the used slots in group order
// (cap slots in all). Context thread only.
func (d *Device) quantilesOn(ctx context.Context, sc *hashScratch, in *DeviceBatch, aggs []GroupAgg, res *GroupPartial,
	slotOf, occ *Buffer, cap, groups int64) error {
	var rank DevicePtr
	var slots DevicePtr
	if slotOf != nil {
		r, err := sc.alloc(uint64(4 * cap))
		if err != nil {
			return err
		}
		if err := d.launchGrid("gsql_q_rank", d.strided(groups), occ.ptr, groups, r.ptr); err != nil {
			return err
		}
		res.Launches++
		rank, slots = r.ptr, slotOf.ptr
	}
	type sortKey struct {
		arg  int
		desc bool
	}
	runs := map[sortKey]*quantileRuns{}
	for a, spec := range aggs {
		if !isQuantile(spec.Kind) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		arg := in.Cols[spec.Arg]
		sk := sortKey{spec.Arg, spec.Desc}
		qr := runs[sk]
		if qr == nil {
			var err error
			if qr, err = d.quantileSortOn(ctx, sc, arg, spec.Desc, slots, rank, groups, int64(in.Len), res); err != nil {
				return err
			}
			runs[sk] = qr
		}
		out, err := sc.alloc(uint64(8 * groups))
		if err != nil {
			return err
		}
		disc := int64(0)
		if spec.Kind == GroupQuantileDisc {
			disc = 1
		}
		if err := d.launchGrid("gsql_q_pick", d.strided(groups), arg.Data, disc, spec.Quantile, qr.start.ptr, qr.end.ptr,
			qr.rows, groups, out.ptr, out.ptr); err != nil {
			return err
		}
		res.Launches++
		p := &res.Aggs[a]
		if disc == 0 {
			p.Float = make([]float64, groups)
			if groups > 0 {
				if err := d.CopyToHost(unsafe.Slice((*byte)(unsafe.Pointer(&p.Float[0])), 8*groups), out.ptr, nil); err != nil {
					return err
				}
			}
			continue
		}
		// The picked rows, gathered from the argument column.
		vb, err := d.gatherRows(ctx, []DeviceVec{arg}, in, []coldata.Type{arg.Type}, out.ptr, int(groups))
		if err != nil {
			return err
		}
		res.Launches += 2
		p.Vals = vb.Cols[0]
	}
	return nil
}

// quantileSortOn sorts the rows by (group, order key of arg) and finds
// each group's run. NULL values take group `groups`, after every real
// one. Context thread only.
func (d *Device) quantileSortOn(ctx context.Context, sc *hashScratch, arg DeviceVec, desc bool, slots, rank DevicePtr,
	groups, n int64, res *GroupPartial) (*quantileRuns, error) {
	qr := &quantileRuns{}
	var err error
	if qr.start, err = sc.alloc(uint64(4 * (groups + 1))); err != nil {
		return nil, err
	}
	if qr.end, err = sc.alloc(uint64(4 * (groups + 1))); err != nil {
		return nil, err
	}
	for _, b := range []*Buffer{qr.start, qr.end} {
		if err := d.drv.memset8(b.ptr, 0, uint64(4*(groups+1)), d.stream.h); err != nil {
			return nil, err
		}
	}
	key, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	grp, err := sc.alloc(uint64(4 * n))
	if err != nil {
		return nil, err
	}
	rng, err := sc.upload([]uint64{math.MaxUint64, 0})
	if err != nil {
		return nil, err
	}
	descArg := int64(0)
	if desc {
		descArg = 1
	}
	if err := d.launchGrid("gsql_q_keys", d.strided(n), int64(arg.Type.Physical()), arg.Nulls, int64(arg.NullOffset), arg.Data,
		descArg, slots, rank, groups, n, key.ptr, grp.ptr, rng.ptr); err != nil {
		return nil, err
	}
	res.Launches++
	var raw [16]byte
	if err := d.CopyToHost(raw[:], rng.ptr, nil); err != nil {
		return nil, err
	}
	kmin, kmax := binary.LittleEndian.Uint64(raw[:]), binary.LittleEndian.Uint64(raw[8:])
	if kmin > kmax {
		return qr, nil // no value is non-NULL: every run is empty
	}
	vbits, packed := quantilePacking(kmin, kmax, groups)
	sortKeys, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	with := int64(0)
	if packed {
		with = 1
	}
	if err := d.launchGrid("gsql_q_pack", d.strided(n), key.ptr, grp.ptr, groups, kmin, int64(vbits), with, n, sortKeys.ptr); err != nil {
		return nil, err
	}
	res.Launches++
	r, err := d.radixSortOn(ctx, sc, sortKeys.ptr, 0, n)
	if err != nil {
		return nil, err
	}
	res.Launches += r.launches
	shift := int64(vbits)
	if !packed {
		// Sorted by value; now stably by group.
		gk, err := sc.alloc(uint64(8 * n))
		if err != nil {
			return nil, err
		}
		if err := d.launchGrid("gsql_q_group_of", d.strided(n), r.rows.ptr, grp.ptr, n, gk.ptr); err != nil {
			return nil, err
		}
		if r, err = d.radixSortOn(ctx, sc, gk.ptr, r.rows.ptr, n); err != nil {
			return nil, err
		}
		res.Launches += 1 + r.launches
		shift = 0
	}
	if err := d.launchGrid("gsql_q_bounds", d.strided(n), r.keys.ptr, shift, n, qr.start.ptr, qr.end.ptr); err != nil {
		return nil, err
	}
	res.Launches++
	qr.rows = r.rows.ptr
	return qr, nil
}

// quantilePacking decides how the rows of a grouped quantile are sorted:
// the order keys of the non-NULL values lie in [kmin, kmax], so key -
// kmin takes vbits bits; with group numbers up to groups (the NULL group)
// above them in one 64-bit key (packed), one sort orders the rows by
// (group, value); otherwise a sort by value and a stable sort by group.
func quantilePacking(kmin, kmax uint64, groups int64) (vbits int, packed bool) {
	vbits = bits.Len64(kmax - kmin)
	return vbits, bits.Len64(uint64(groups))+vbits <= 64
}
