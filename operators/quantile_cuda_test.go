//go:build cuda

package operators_test

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestDeviceQuantileBatches: a GROUP BY with quantiles over several
// device batches concatenates them and groups once on the device, or
// (when they cannot be one batch) groups on the host; both give
// HashAggregate's rows exactly, by many groups, by few and without keys.
func TestDeviceQuantileBatches(t *testing.T) {
	data := newAggTable(1<<18, 37)
	rt := openRuntime(t, false)
	var parts []*coldata.Batch
	for lo := 0; lo < data.Len; lo += data.Len / 3 {
		hi := min(lo+data.Len/3, data.Len)
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		parts = append(parts, coldata.GatherBatch(data, idx))
	}
	ref := func(i int) *expr.ColumnRef {
		return &expr.ColumnRef{Index: i, Name: newAggNames[i], T: data.Cols[i].Type}
	}
	d, i, dec, b := ref(3), ref(2), ref(5), ref(6)
	desc := []opspec.AggOrder{{Desc: true}}
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggQuantileCont, Arg: d, Quantile: 0.5, Type: coldata.Float64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggQuantileCont, Arg: d, Quantile: 0.2, Order: desc, Type: coldata.Float64},
		{Kind: opspec.AggQuantileDisc, Arg: i, Quantile: 0.75, Type: coldata.Int64},
		{Kind: opspec.AggQuantileDisc, Arg: dec, Quantile: 0.5, Order: desc, Type: dec.T},
		{Kind: opspec.AggSum, Arg: i, Type: coldata.Int64},
		{Kind: opspec.AggQuantileDisc, Arg: b, Quantile: 0.9, Type: coldata.Bool},
	}
	for _, onHost := range []bool{false, true} {
		restore := operators.SetQuantilesOnHost(onHost)
		for _, keys := range [][]int{{0}, {1}, nil} {
			stats := &operators.Stats{}
			w, g := aggregateBothWays(t, rt, parts, ref, keys, aggs, stats)
			if fb := stats.Fallbacks.Load(); (fb > 0) != onHost {
				t.Errorf("on host %v, keys %v: %d batches grouped on the host", onHost, keys, fb)
			}
			if len(w) != len(g) {
				t.Fatalf("on host %v, keys %v: %d groups on the GPU, %d on the CPU", onHost, keys, len(g), len(w))
			}
			for r := range w {
				for j := range w[r] {
					// Exact: quantiles interpolate with the CPU's arithmetic.
					if g[r][j] != w[r][j] {
						t.Fatalf("on host %v, keys %v: row %d column %d: GPU %v, CPU %v", onHost, keys, r, j, g[r][j], w[r][j])
					}
				}
			}
			t.Logf("on host %v, keys %v: %d groups from %d batches", onHost, keys, len(w), len(parts))
		}
		restore()
	}
}
