package operators_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestCountStarNoGroupsAddsLengths: COUNT(*) without GROUP BY (twice, as
// SELECT COUNT(*), COUNT(*) has it) adds the batches' lengths, empty
// batches and one of 100M rows included, without memory per row (a
// group number per row was a 400 MB slice for the 100M-row batch).
func TestCountStarNoGroupsAddsLengths(t *testing.T) {
	in := []*coldata.Batch{{Len: 3}, {Len: 0}, {Len: 100_000_000}, {Len: 1}}
	star := opspec.AggSpec{Kind: opspec.AggCountStar, Type: coldata.Int64}
	h := &operators.HashAggregate{Input: &operators.Materialized{Batches: in}, Aggs: []opspec.AggSpec{star, star}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := h.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := h.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	defer h.Close()
	const want = 100_000_004
	if out.Len != 1 || out.Cols[0].Ints[0] != want || out.Cols[1].Ints[0] != want {
		t.Fatalf("got %d rows %v %v, want one row of %d twice", out.Len, out.Cols[0].Ints, out.Cols[1].Ints, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("counting allocated %d bytes", grew)
	}
}
