package execbuild

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// buildDeviceAggregate builds the device GROUP BY whose output is on the
// host.
func (b *Built) buildDeviceAggregate(x *planner.DeviceAggregate) (operators.Operator, error) {
	op, st, err := b.deviceAggregate(x)
	if err != nil {
		return nil, err
	}
	return operators.Instrument(op, st), nil
}

// deviceAggregate builds the device GROUP BY, for either side.
func (b *Built) deviceAggregate(x *planner.DeviceAggregate) (*operators.DeviceHashAggregate, *operators.Stats, error) {
	in, err := b.buildDevice(x.Input)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]int, x.NKeys)
	types := make([]coldata.Type, x.NKeys)
	for i := range keys {
		keys[i] = i
		types[i] = x.Orig.Keys[i].Type()
	}
	st := b.nodeStats(x)
	op := &operators.DeviceHashAggregate{Input: in, RT: b.GPU, Keys: keys, KeyTypes: types, Aggs: x.Aggs,
		MemoryLimit: b.MemoryLimit, Stats: st, Top: b.aggTop[x], Spill: b.MemoryLimit > 0 && len(keys) > 0, SpillDir: b.TempDir}
	return op, st, nil
}

// buildDeviceJoin builds the device hash join.
func (b *Built) buildDeviceJoin(x *planner.DeviceJoin, st *operators.Stats) (operators.DeviceOperator, error) {
	l, err := b.buildDevice(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.buildDevice(x.Right)
	if err != nil {
		return nil, err
	}
	if len(x.Orig.Right.Columns()) > len(x.Right.Columns()) {
		return nil, fmt.Errorf("internal error: GPU join right side lost columns")
	}
	rightOut := columnTypes(x.Orig.Right.Columns())
	if x.Orig.Kind == opspec.SemiJoin || x.Orig.Kind == opspec.AntiJoin {
		rightOut = nil // the left rows alone come out
	}
	return &operators.DeviceHashJoin{Left: l, Right: r, RT: b.GPU, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys,
		Kind: x.Orig.Kind, LeftTypes: columnTypes(x.Orig.Left.Columns()), RightTypes: rightOut,
		RightInTypes: columnTypes(x.Right.Columns()), Cond: x.Cond, Stats: st, MemoryLimit: b.MemoryLimit, SpillDir: b.TempDir}, nil
}
