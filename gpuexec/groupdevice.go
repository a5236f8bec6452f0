package gpuexec

import (
	"context"
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// GroupFinish says how GroupByOnDevice turns an aggregate's state into its
// output column (kernels/hash.cu, gsql_group_finish's modes).
type GroupFinish int

// The finishes, each for the GroupAggKinds named.
const (
	// FinishCount is a BIGINT count (GroupCountStar, GroupCount).
	FinishCount GroupFinish = iota
	// FinishSumInt is a BIGINT sum (GroupSumInt).
	FinishSumInt
	// FinishAvgInt is a BIGINT sum's average as a DOUBLE (GroupSumInt).
	FinishAvgInt
	// FinishFloat is a DOUBLE state as it is (GroupSumFloat,
	// GroupMinFloat, GroupMaxFloat).
	FinishFloat
	// FinishAvgFloat is a DOUBLE sum's average (GroupSumFloat).
	FinishAvgFloat
	// FinishInt is the low word, in any 8-byte integer type (GroupMinInt,
	// GroupMaxInt over BIGINT, DATE, TIMESTAMP ...).
	FinishInt
	// FinishSumDec is a DECIMAL sum (GroupSumDec).
	FinishSumDec
	// FinishAvgDec is a DECIMAL sum's average at the output type's scale,
	// at least the argument's (GroupSumDec).
	FinishAvgDec
	// FinishRows is MIN or MAX of text or DECIMAL: the winning rows'
	// values gathered from the argument (GroupMinString, GroupMaxString,
	// GroupMinDec, GroupMaxDec).
	FinishRows
)

// finishMode is gsql_group_finish's mode of each finish.
var finishMode = map[GroupFinish]int64{
	FinishCount: 0, FinishSumInt: 1, FinishAvgInt: 2, FinishFloat: 3, FinishAvgFloat: 4, FinishInt: 5,
	FinishSumDec: 6, FinishAvgDec: 7, FinishRows: 8,
}

// finishKinds are the state kinds each finish reads.
var finishKinds = map[GroupFinish][]GroupAggKind{
	FinishCount:    {GroupCountStar, GroupCount},
	FinishSumInt:   {GroupSumInt},
	FinishAvgInt:   {GroupSumInt},
	FinishFloat:    {GroupSumFloat, GroupMinFloat, GroupMaxFloat},
	FinishAvgFloat: {GroupSumFloat},
	FinishInt:      {GroupMinInt, GroupMaxInt},
	FinishSumDec:   {GroupSumDec},
	FinishAvgDec:   {GroupSumDec},
	FinishRows:     {GroupMinString, GroupMaxString, GroupMinDec, GroupMaxDec},
}

// finishStorage is the physical type of each finish's output column.
var finishStorage = map[GroupFinish]coldata.Type{
	FinishCount: coldata.Int64, FinishSumInt: coldata.Int64, FinishAvgInt: coldata.Float64, FinishFloat: coldata.Float64,
	FinishAvgFloat: coldata.Float64, FinishInt: coldata.Int64, FinishSumDec: coldata.Decimal, FinishAvgDec: coldata.Decimal,
}

// ErrGroupsOnHost says GroupByOnDevice left the groups to the host's
// finish: a group's value does not fit the device's output (an integer
// sum past BIGINT, a DECIMAL sum past 38 digits, which the host reports
// as SQL does), or there was nothing to group. The caller groups as
// GroupBy does.
var ErrGroupsOnHost = errors.New("gpu: the groups are finished on the host")

// GroupByOnDevice is GroupBy whose result stays on the device: a batch of
// the key columns then one column per aggregate, finished as finish says
// into columns of the given types (whose storage each finish fixes), a
// group without values NULL except under FinishCount. Groups come in order
// of first appearance, as GroupBy's. A GROUP BY feeding a device join or
// filter is then never downloaded and uploaded again (TPC-H Q18's 15M
// groups of l_orderkey at SF10). One host synchronisation reads the group
// count and another whether any value needs the host (ErrGroupsOnHost).
func (d *Device) GroupByOnDevice(ctx context.Context, in *DeviceBatch, keys []int, aggs []GroupAgg, finish []GroupFinish, types []coldata.Type) (*DeviceBatch, error) {
	if err := d.own(in); err != nil {
		return nil, err
	}
	if len(finish) != len(aggs) || len(types) != len(aggs) {
		return nil, invalidf("group on device: %d aggregates, %d finishes, %d types", len(aggs), len(finish), len(types))
	}
	if len(keys) == 0 || in.Len == 0 {
		return nil, ErrGroupsOnHost
	}
	keyTypes := make([]coldata.Type, len(keys))
	keyCols := make([]DeviceVec, len(keys))
	for i, k := range keys {
		if k < 0 || k >= len(in.Cols) || !groupableType(in.Cols[k].Type) {
			return nil, invalidf("group key column %d is not groupable", k)
		}
		keyCols[i], keyTypes[i] = in.Cols[k], in.Cols[k].Type
	}
	for a, g := range aggs {
		if g.Kind != GroupCountStar && (g.Arg < 0 || g.Arg >= len(in.Cols)) {
			return nil, invalidf("aggregate argument column %d out of range", g.Arg)
		}
		ok := false
		for _, k := range finishKinds[finish[a]] {
			ok = ok || k == g.Kind
		}
		storage, fixed := finishStorage[finish[a]]
		if finish[a] == FinishRows && g.Kind != GroupCountStar {
			storage = in.Cols[g.Arg].Type.Physical()
		} else if !fixed {
			ok = false
		}
		if !ok || types[a].Physical() != storage {
			return nil, invalidf("aggregate %d: finish %d of kind %d into %s", a, finish[a], g.Kind, types[a])
		}
		if finish[a] == FinishAvgDec {
			if up := types[a].Scale() - in.Cols[g.Arg].Type.Scale(); up < 0 || up > 18 {
				return nil, invalidf("aggregate %d: an average of scale %d over a sum of scale %d", a, types[a].Scale(), in.Cols[g.Arg].Type.Scale())
			}
		}
	}
	gk, err := fuse.GenerateGather(keyTypes)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err = d.Do(func() error {
		sc := &hashScratch{d: d}
		defer func() {
			// Kernels in flight read the scratch.
			d.drv.syncStream(d.stream.h)
			sc.release()
		}()
		n := int64(in.Len)
		run, groups, _, err := d.groupTableOn(ctx, sc, in, keys, aggs)
		if err != nil {
			return err
		}
		firsts, occ, _, err := d.orderGroupsOn(sc, run, groups, n)
		if err != nil {
			return err
		}
		src, err := Combine(keyCols, in.Len, in)
		if err != nil {
			return err
		}
		defer src.Release()
		kb, err := d.gather(ctx, gk, src, firsts.ptr, int(groups))
		if err != nil {
			return err
		}
		defer kb.Release()
		vals := &DeviceBatch{Len: int(groups), d: d}
		defer vals.Release()
		bad, err := sc.alloc(8)
		if err != nil {
			return err
		}
		if err := d.fillWords(bad.ptr, 0, 1); err != nil {
			return err
		}
		owners := []*DeviceBatch{kb, vals}
		defer func() {
			for _, o := range owners[2:] {
				o.Release()
			}
		}()
		for a := range aggs {
			st := run.states[a]
			f := finish[a]
			if f == FinishRows {
				col, b, err := d.finishRowsOn(ctx, sc, vals, in, aggs[a].Arg, st, occ, groups, types[a])
				if err != nil {
					return err
				}
				owners = append(owners, b)
				vals.Cols = append(vals.Cols, col)
				continue
			}
			col := DeviceVec{Type: types[a], Len: int(groups)}
			data, err := d.allocOn(uint64(groups * elemSize(types[a])))
			if err != nil {
				return err
			}
			vals.bufs = append(vals.bufs, data)
			col.Data = data.ptr
			if f != FinishCount {
				valid, err := d.allocOn(uint64(4 * ((groups + 31) / 32)))
				if err != nil {
					return err
				}
				vals.bufs = append(vals.bufs, valid)
				col.Nulls = valid.ptr
			}
			word := func(i int) DevicePtr {
				if st[i] == nil || (f == FinishCount && i != 2) {
					return 0
				}
				return st[i].ptr
			}
			var p10 uint64
			var lim decimal.Int128
			if f == FinishAvgDec {
				p10 = decimal.Pow10(types[a].Scale() - in.Cols[aggs[a].Arg].Type.Scale()).Lo
				lim = decimal.Pow10(types[a].Precision())
			}
			if err := d.launchGrid("gsql_group_finish", d.strided(groups), finishMode[f], col.Data, col.Nulls, word(2), word(0), word(1), word(3),
				occ.ptr, groups, bad.ptr, p10, lim.Lo, uint64(lim.Hi)); err != nil {
				return err
			}
			vals.Cols = append(vals.Cols, col)
		}
		var flag [8]byte
		if err := d.CopyToHost(flag[:], bad.ptr, nil); err != nil {
			return err
		}
		if flag != [8]byte{} {
			return ErrGroupsOnHost
		}
		out, err = Combine(append(append([]DeviceVec(nil), kb.Cols...), vals.Cols...), int(groups), owners...)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrGroupsOnHost) {
			return nil, err
		}
		return nil, fmt.Errorf("group on device: %w", err)
	}
	return out, nil
}

// finishRowsOn gathers MIN or MAX of text or DECIMAL from the argument
// column at each group's winning row; the validity (a bitmap owned by
// vals) is the group's having a value. The returned batch owns the
// gathered values. Context thread only.
func (d *Device) finishRowsOn(ctx context.Context, sc *hashScratch, vals *DeviceBatch, in *DeviceBatch, arg int, st [4]*Buffer,
	occ *Buffer, groups int64, t coldata.Type) (DeviceVec, *DeviceBatch, error) {
	rows, err := sc.alloc(uint64(8 * groups))
	if err != nil {
		return DeviceVec{}, nil, err
	}
	valid, err := d.allocOn(uint64(4 * ((groups + 31) / 32)))
	if err != nil {
		return DeviceVec{}, nil, err
	}
	vals.bufs = append(vals.bufs, valid)
	if err := d.launchGrid("gsql_group_finish", d.strided(groups), finishMode[FinishRows], rows.ptr, valid.ptr, st[2].ptr, st[0].ptr,
		DevicePtr(0), DevicePtr(0), occ.ptr, groups, DevicePtr(0), uint64(0), uint64(0), uint64(0)); err != nil {
		return DeviceVec{}, nil, err
	}
	k, err := fuse.GenerateGather([]coldata.Type{in.Cols[arg].Type})
	if err != nil {
		return DeviceVec{}, nil, err
	}
	src, err := Combine([]DeviceVec{in.Cols[arg]}, in.Len, in)
	if err != nil {
		return DeviceVec{}, nil, err
	}
	defer src.Release()
	g, err := d.gather(ctx, k, src, rows.ptr, int(groups))
	if err != nil {
		return DeviceVec{}, nil, err
	}
	col := g.Cols[0]
	col.Type, col.Nulls, col.NullOffset = t, valid.ptr, 0
	return col, g, nil
}
