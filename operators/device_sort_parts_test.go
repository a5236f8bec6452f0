package operators

import (
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/gpuexec"
)

// TestPartOrderPlan checks how a sort over several batches maps sorted key
// rows back to batch rows (candidates or whole batches) and plans each
// output chunk: every output row is found in its batch, in output order,
// and through the concatenated pieces when several batches hold some.
func TestPartOrderPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		starts []int
		cand   [][]int
		order  []int
		lo, hi int
		rows   [][]int
		pick   []int
	}{
		{
			name:   "whole batches, interleaved",
			starts: []int{0, 3, 5},
			cand:   [][]int{nil, nil},
			order:  []int{4, 0, 3, 2, 1},
			lo:     0, hi: 5,
			rows: [][]int{{0, 2, 1}, {1, 0}},
			// output: b1r1 b0r0 b1r0 b0r2 b0r1; pieces: b0 (3) then b1 (2)
			pick: []int{3, 0, 4, 1, 2},
		},
		{
			name:   "one batch holds the chunk",
			starts: []int{0, 3, 5},
			cand:   [][]int{nil, nil},
			order:  []int{4, 0, 3, 2, 1},
			lo:     3, hi: 5,
			rows: [][]int{{2, 1}, nil},
		},
		{
			name:   "candidates of a LIMIT",
			starts: []int{0, 2, 3, 5},
			cand:   [][]int{{7, 90}, nil, {0, 41}},
			order:  []int{3, 1, 2},
			lo:     0, hi: 3,
			rows: [][]int{{90}, {0}, {0}},
			pick: []int{2, 0, 1},
		},
		{
			name:   "empty key ranges are skipped",
			starts: []int{0, 0, 2, 2, 4},
			cand:   [][]int{nil, {5, 6}, nil, {1, 3}},
			order:  []int{3, 0, 2},
			lo:     1, hi: 3,
			rows: [][]int{nil, {5}, nil, {1}},
			pick: []int{0, 1},
		},
	} {
		o := &partOrder{starts: tc.starts, cand: tc.cand, order: tc.order}
		rows, pick := o.plan(tc.lo, tc.hi)
		if len(rows) != len(tc.rows) {
			t.Fatalf("%s: %d batches planned, want %d", tc.name, len(rows), len(tc.rows))
		}
		for p := range rows {
			if !slices.Equal(rows[p], tc.rows[p]) {
				t.Errorf("%s: batch %d rows %v, want %v", tc.name, p, rows[p], tc.rows[p])
			}
		}
		if !slices.Equal(pick, tc.pick) {
			t.Errorf("%s: pick %v, want %v", tc.name, pick, tc.pick)
		}
	}
}

// TestDropEmpty: batches without rows are released and left out of a
// sort over several batches, except one when no batch has rows.
func TestDropEmpty(t *testing.T) {
	for _, tc := range []struct {
		lens []int
		want []int // indexes kept
	}{
		{[]int{0, 3, 0, 5}, []int{1, 3}},
		{[]int{2}, []int{0}},
		{[]int{0, 0}, []int{0}},
		{[]int{4, 0}, []int{0}},
	} {
		in := make([]*gpuexec.DeviceBatch, len(tc.lens))
		for i, n := range tc.lens {
			in[i] = &gpuexec.DeviceBatch{Len: n}
		}
		orig := slices.Clone(in)
		got := dropEmpty(in)
		var idx []int
		for _, b := range got {
			idx = append(idx, slices.Index(orig, b))
		}
		if !slices.Equal(idx, tc.want) {
			t.Errorf("lens %v: kept %v, want %v", tc.lens, idx, tc.want)
		}
		for i, b := range orig {
			kept := slices.Contains(tc.want, i)
			if _, err := b.Retain(); (err == nil) != kept {
				t.Errorf("lens %v: batch %d kept %v but released: %v", tc.lens, i, kept, err != nil)
			}
		}
	}
}
