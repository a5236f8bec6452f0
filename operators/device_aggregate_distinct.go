package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A GROUP BY whose DISTINCT aggregates all count one column x, beside
// plain aggregates that merge (COUNT, SUM, MIN, MAX), groups twice on the
// device and never brings its groups to the host: first by (keys, x), each
// plain aggregate computed per (keys, x) group; then by the keys, counting
// the x values (each now once per group) and merging the plain partials
// (counts and sums added, extremes of extremes). The result is a device
// batch of the keys and the aggregates, as a GROUP BY that stays on the
// device gives it. The host path it replaces matched the count's groups
// with the plain aggregates' by key in a Go map: 4 s of a random-suite
// query at 10M hits (COUNT(DISTINCT URL) by ClientIP, 2M groups) that
// DuckDB answers in 0.5 s.
type twoPhaseDistinct struct {
	// first groups the input by (keys, x): the plain aggregates'
	// partials, finished into columns of firstTypes after the keys and x.
	first      []gpuexec.GroupAgg
	firstFin   []gpuexec.GroupFinish
	firstTypes []coldata.Type
	// second groups the first's output by the keys: one aggregate per
	// output aggregate, in order.
	second      []gpuexec.GroupAgg
	secondFin   []gpuexec.GroupFinish
	secondTypes []coldata.Type
	// x is the counted column of the input.
	x int
}

// planTwoPhaseDistinct returns how the device groups h's aggregates in two
// phases, or nil when one aggregate does not merge that way (AVG, a
// variance, COUNT(DISTINCT) of two columns, DISTINCT other than COUNT).
func (h *DeviceHashAggregate) planTwoPhaseDistinct(kinds []gpuexec.GroupAgg) *twoPhaseDistinct {
	nk := len(h.Keys)
	if nk == 0 {
		return nil
	}
	p := &twoPhaseDistinct{x: -1}
	for a, s := range h.Aggs {
		k := kinds[a]
		if s.Distinct {
			if s.Kind != opspec.AggCount || s.Type != coldata.Int64 || (p.x >= 0 && p.x != k.Arg) {
				return nil
			}
			p.x = k.Arg
			continue
		}
	}
	if p.x < 0 {
		return nil
	}
	for a, s := range h.Aggs {
		k := kinds[a]
		if s.Distinct {
			p.second = append(p.second, gpuexec.GroupAgg{Kind: gpuexec.GroupCount, Arg: nk})
			p.secondFin = append(p.secondFin, gpuexec.FinishCount)
			p.secondTypes = append(p.secondTypes, coldata.Int64)
			continue
		}
		// The partial's column in the first phase's output.
		col := nk + 1 + len(p.first)
		first, merge := k, gpuexec.GroupAgg{Kind: k.Kind, Arg: col}
		var fin1, fin2 gpuexec.GroupFinish
		t1 := s.Type
		switch {
		case (s.Kind == opspec.AggCountStar || s.Kind == opspec.AggCount) && s.Type == coldata.Int64:
			fin1, t1 = gpuexec.FinishCount, coldata.Int64
			merge.Kind, fin2 = gpuexec.GroupSumInt, gpuexec.FinishSumInt
		case s.Kind == opspec.AggSum && k.Kind == gpuexec.GroupSumInt && s.Type == coldata.Int64:
			fin1, fin2 = gpuexec.FinishSumInt, gpuexec.FinishSumInt
		case s.Kind == opspec.AggSum && k.Kind == gpuexec.GroupSumFloat && s.Type == coldata.Float64:
			fin1, fin2 = gpuexec.FinishFloat, gpuexec.FinishFloat
		case s.Kind == opspec.AggSum && k.Kind == gpuexec.GroupSumDec && s.Type.IsDecimal():
			fin1, fin2 = gpuexec.FinishSumDec, gpuexec.FinishSumDec
		case (k.Kind == gpuexec.GroupMinInt || k.Kind == gpuexec.GroupMaxInt) && s.Type.Physical() == coldata.Int64:
			fin1, fin2 = gpuexec.FinishInt, gpuexec.FinishInt
		case (k.Kind == gpuexec.GroupMinFloat || k.Kind == gpuexec.GroupMaxFloat) && s.Type == coldata.Float64:
			fin1, fin2 = gpuexec.FinishFloat, gpuexec.FinishFloat
		case (k.Kind == gpuexec.GroupMinString || k.Kind == gpuexec.GroupMaxString || k.Kind == gpuexec.GroupMinDec || k.Kind == gpuexec.GroupMaxDec) &&
			s.Arg != nil && s.Type.Physical() == s.Arg.Type().Physical():
			fin1, fin2 = gpuexec.FinishRows, gpuexec.FinishRows
		default:
			return nil
		}
		p.first, p.firstFin, p.firstTypes = append(p.first, first), append(p.firstFin, fin1), append(p.firstTypes, t1)
		p.second, p.secondFin, p.secondTypes = append(p.second, merge), append(p.secondFin, fin2), append(p.secondTypes, s.Type)
	}
	return p
}

// groupTwoPhase runs p over in (one batch): the groups, on the device.
// gpuexec.ErrGroupsOnHost says a value needs the host's finish (a sum past
// BIGINT): the caller then groups as before.
func (h *DeviceHashAggregate) groupTwoPhase(ctx context.Context, in *gpuexec.DeviceBatch, p *twoPhaseDistinct) (*gpuexec.DeviceBatch, error) {
	nk := len(h.Keys)
	keys := append(append(make([]int, 0, nk+1), h.Keys...), p.x)
	tuples, err := h.RT.Dev.GroupByOnDevice(ctx, in, keys, p.first, p.firstFin, p.firstTypes)
	if err != nil {
		return nil, err
	}
	defer tuples.Release()
	h.addLaunches(4 + len(p.first))
	outer := make([]int, nk)
	for i := range outer {
		outer[i] = i
	}
	out, err := h.RT.Dev.GroupByOnDevice(ctx, tuples, outer, p.second, p.secondFin, p.secondTypes)
	if err != nil {
		return nil, err
	}
	h.addLaunches(4 + len(p.second))
	return out, nil
}
