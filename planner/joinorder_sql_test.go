package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/planner"
)

// sizedCatalog holds tables of one BIGINT column k and the given row counts.
func sizedCatalog(t *testing.T, sizes map[string]int) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	for name, n := range sizes {
		cols := []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "j", Type: coldata.Int64}}
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
		k, j := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			k.AppendValue(int64(i))
			j.AppendValue(int64(i % 7))
		}
		if err := cat.Append(name, coldata.NewBatch([]*coldata.Vec{k.Finish(), j.Finish()}, n)); err != nil {
			t.Fatal(err)
		}
	}
	return cat
}

// TestJoinOrderPlans checks the order chosen from SQL: the written order
// would cross big with small first.
func TestJoinOrderPlans(t *testing.T) {
	cat := sizedCatalog(t, map[string]int{"big": 1000, "mid": 100, "small": 10, "tiny": 3})
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT big.k FROM big, small, mid WHERE big.k = mid.k AND mid.j = small.j", []string{
			// j holds 7 values (zone maps bound its range): joining on
			// the key k first keeps the intermediate result at 100 rows.
			"Project k [cpu]",
			"  Project k [cpu]",
			"    Inner HashJoin on j = j [cpu]",
			"      Inner HashJoin on k = k [cpu]",
			"        Scan big [k] (1000 rows) [cpu]",
			"        Scan mid [k j] (100 rows) [cpu]",
			"      Scan small [j] (10 rows) [cpu]",
		}},
		// A filter makes tiny's side the one to start from; the outer join
		// stays where it was written, a leaf of the reordered tree.
		{"SELECT COUNT(*) FROM big JOIN mid ON big.k = mid.k JOIN small ON small.k = mid.j LEFT JOIN tiny ON tiny.k = big.j WHERE small.j > 2", []string{
			"Project count(*) AS COUNT(*) [cpu]",
			"  HashAggregate aggs: count(*) [cpu]",
			"    Left HashJoin on j = k [cpu]",
			"      Inner HashJoin on k = k [cpu]",
			"        Scan big [k j] (1000 rows) [cpu]",
			"        Inner HashJoin on j = k [cpu]",
			"          Scan mid [k j] (100 rows) [cpu]",
			"          Filter (j > 2) [cpu]",
			"            Scan small [k j] (10 rows) [cpu]",
			"      Scan tiny [k] (3 rows) [cpu]",
		}},
		// A left join inside a comma list is one leaf.
		{"SELECT tiny.j FROM small, big, mid LEFT JOIN tiny ON tiny.k = mid.j WHERE big.k = mid.k AND mid.j = small.k AND big.j = 3", []string{
			"Project j [cpu]",
			"  Project j [cpu]",
			"    Inner HashJoin on k = k [cpu]",
			"      Filter (j = 3) [cpu]",
			"        Scan big [k j] (1000 rows) [cpu]",
			"      Inner HashJoin on j = k [cpu]",
			"        Left HashJoin on j = k [cpu]",
			"          Scan mid [k j] (100 rows) [cpu]",
			"          Scan tiny [k j] (3 rows) [cpu]",
			"        Scan small [k] (10 rows) [cpu]",
		}},
		// The WHERE filter over a left join reaches the scans through the
		// Project that restores the column order.
		{"SELECT tiny.j FROM small JOIN big ON big.j = small.j JOIN mid ON mid.k = big.k LEFT JOIN tiny ON tiny.k = mid.j WHERE big.k < 5", []string{
			"Project j [cpu]",
			"  Left HashJoin on j = k [cpu]",
			"    Project j [cpu]",
			"      Inner HashJoin on j = j [cpu]",
			"        Inner HashJoin on k = k [cpu]",
			"          Filter (k < 5) [cpu]",
			"            Scan big [k j] (1000 rows) [cpu]",
			"          Scan mid [k j] (100 rows) [cpu]",
			"        Scan small [j] (10 rows) [cpu]",
			"    Scan tiny [k j] (3 rows) [cpu]",
		}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := planner.Explain(n); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
