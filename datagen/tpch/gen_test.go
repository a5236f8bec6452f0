package tpch

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

func TestNewRejectsBadScale(t *testing.T) {
	for _, sf := range []float64{0, -1, 0.0001, 30000, 1e9} {
		if _, err := New(sf); err == nil {
			t.Errorf("New(%v) = nil error", sf)
		}
	}
}

func TestRowCounts(t *testing.T) {
	for _, tc := range []struct {
		sf   float64
		t    Table
		want int64
	}{
		{0.01, Part, 2000}, {0.01, Supplier, 100}, {0.01, PartSupp, 8000},
		{0.01, Customer, 1500}, {0.01, Orders, 15000}, {1, Orders, 1500000},
		{10, Customer, 1500000}, {0.01, Nation, 25}, {0.01, Region, 5},
	} {
		g, err := New(tc.sf)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Rows(tc.t); got != tc.want {
			t.Errorf("sf %v %s: %d rows, want %d", tc.sf, tc.t, got, tc.want)
		}
	}
}

// A range generated on its own equals the same rows of a full run: the
// streams skip to any row.
func TestRangeMatchesFullRun(t *testing.T) {
	g, err := New(0.01)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	collect := func(tbl Table, first, count int64) []string {
		var out []string
		err := g.GenerateRange(ctx, tbl, first, count, 100, func(r arrow.Record) error {
			defer r.Release()
			out = append(out, tblLines(r)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tbl := range []Table{Part, PartSupp, Supplier, Customer, Orders, LineItem} {
		driving := map[Table]Table{PartSupp: Part, LineItem: Orders}[tbl]
		if driving == 0 {
			driving = tbl
		}
		k := min(400, g.Rows(driving)/2)
		full := collect(tbl, 1, 2*k)
		tail := collect(tbl, k+1, k)
		off := len(collect(tbl, 1, k))
		if got, want := strings.Join(tail, "\n"), strings.Join(full[off:], "\n"); got != want || len(tail) == 0 {
			t.Errorf("%s: rows from %d differ from the full run", tbl, k+1)
		}
	}
}

func TestGenerateStopsOnCancel(t *testing.T) {
	g, err := New(0.01)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = g.Generate(ctx, LineItem, 0, func(r arrow.Record) error { r.Release(); return nil })
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Records, which generates ranges in parallel, returns the rows of one
// sequential run, in order.
func TestRecordsMatchesSequentialRun(t *testing.T) {
	g, err := New(0.01)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tbl := range []Table{PartSupp, LineItem, Region} {
		recs, err := g.Records(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		var par []string
		for _, r := range recs {
			par = append(par, tblLines(r)...)
			r.Release()
		}
		var seq []string
		err = g.Generate(ctx, tbl, 0, func(r arrow.Record) error {
			defer r.Release()
			seq = append(seq, tblLines(r)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(par, "\n") != strings.Join(seq, "\n") || len(seq) == 0 {
			t.Errorf("%s: Records differs from a sequential run (%d vs %d rows)", tbl, len(par), len(seq))
		}
	}
}

// TestReleaseTextPool checks that comments generated after the text pool
// is released (and rebuilt) are the same as before.
func TestReleaseTextPool(t *testing.T) {
	if testing.Short() {
		t.Skip("rebuilding the text pool takes seconds")
	}
	comments := func() []string {
		g, err := New(0.01)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := g.Records(context.Background(), Supplier)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			col := r.Column(r.Schema().FieldIndices("s_comment")[0]).(*array.String)
			for i := 0; i < col.Len(); i++ {
				out = append(out, col.Value(i))
			}
			r.Release()
		}
		return out
	}
	before := comments()
	ReleaseTextPool()
	if p := pool.Load(); p != nil {
		t.Fatal("the pool is still held")
	}
	after := comments()
	if len(before) != 100 || !slices.Equal(before, after) {
		t.Errorf("%d comments before, %d after; equal: %v", len(before), len(after), slices.Equal(before, after))
	}
}
