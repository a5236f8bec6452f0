package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/planner"
)

// starCatalog is a small star schema shaped like SSB's: fact (20,000 rows)
// references part (2,000 rows, 25 categories) and supplier (200 rows, 5
// regions) and dates (700 days, 7 years).
func starCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	table := func(name string, n int, cols []catalog.Column, val func(row, col int) any) {
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
		var vecs []*coldata.Vec
		for c, col := range cols {
			b := coldata.NewBuilder(col.Type, n)
			for i := 0; i < n; i++ {
				b.AppendValue(val(i, c))
			}
			vecs = append(vecs, b.Finish())
		}
		if err := cat.Append(name, coldata.NewBatch(vecs, n)); err != nil {
			t.Fatal(err)
		}
	}
	i64 := func(name string) catalog.Column { return catalog.Column{Name: name, Type: coldata.Int64} }
	str := func(name string) catalog.Column { return catalog.Column{Name: name, Type: coldata.String} }
	table("part", 2000, []catalog.Column{i64("p_partkey"), str("p_category")}, func(i, c int) any {
		if c == 0 {
			return int64(i)
		}
		return fmt.Sprintf("MFGR#%d", i%25)
	})
	table("supplier", 200, []catalog.Column{i64("s_suppkey"), str("s_region")}, func(i, c int) any {
		if c == 0 {
			return int64(i)
		}
		return []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}[i%5]
	})
	table("dates", 700, []catalog.Column{i64("d_datekey"), i64("d_year")}, func(i, c int) any {
		if c == 0 {
			return int64(i)
		}
		return int64(1992 + i/100)
	})
	table("fact", 20000, []catalog.Column{i64("f_partkey"), i64("f_suppkey"), i64("f_datekey"), i64("f_revenue")}, func(i, c int) any {
		switch c {
		case 0:
			return int64(i * 7919 % 2000)
		case 1:
			return int64(i * 104729 % 200)
		case 2:
			return int64(i % 700)
		}
		return int64(i)
	})
	return cat
}

// TestStarJoinMostSelectiveFirst plans star joins over starCatalog: the
// fact table must meet the dimension whose filter keeps the fewest fact
// rows first, whatever the order written. Column statistics give
// p_category = c 1/25, s_region = r 1/5, d_year = y 1/7, d_year IN (2)
// 2/7; the flat guesses (0.1 for every equality) could not tell them
// apart.
func TestStarJoinMostSelectiveFirst(t *testing.T) {
	cat := starCatalog(t)
	for _, tc := range []struct {
		name, where string
		first       string // the dimension scanned right after fact
	}{
		{"part before supplier", "p_category = 'MFGR#12' AND s_region = 'AMERICA'", "part"},
		{"written the other way", "s_region = 'AMERICA' AND p_category = 'MFGR#12'", "part"},
		{"supplier before a year range", "s_region = 'ASIA' AND d_year >= 1993 AND d_year <= 1997", "supplier"},
		{"one year before one region", "s_region = 'ASIA' AND d_year = 1994 AND p_category IN ('MFGR#1', 'MFGR#2', 'MFGR#3', 'MFGR#4', 'MFGR#5', 'MFGR#6')", "dates"},
		{"an IN list of two categories", "p_category IN ('MFGR#1', 'MFGR#2') AND d_year IN (1994, 1995)", "part"},
		{"a range of one year of seven before a region", "s_region = 'ASIA' AND d_year < 1993", "dates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := "SELECT SUM(f_revenue) FROM dates, supplier, part, fact WHERE f_partkey = p_partkey AND f_suppkey = s_suppkey AND f_datekey = d_datekey AND " + tc.where
			n, err := plan(t, cat, q)
			if err != nil {
				t.Fatal(err)
			}
			lines := planner.Explain(n)
			var scans []string
			for _, l := range lines {
				if i := strings.Index(l, "Scan "); i >= 0 {
					scans = append(scans, strings.Fields(l[i+5:])[0])
				}
			}
			i := 0
			for i < len(scans) && scans[i] != "fact" {
				i++
			}
			if i+1 >= len(scans) || scans[i+1] != tc.first {
				t.Errorf("fact meets %v first, want %s:\n%s", scans, tc.first, strings.Join(lines, "\n"))
			}
		})
	}
}

// TestDistinctLeafEstimate plans a SELECT DISTINCT derived table over the
// fact table (20,000 rows, each its own group: f_revenue is unique)
// joined with two dimensions (and the same with GROUP BY, and with an
// outer join instead). Its key columns keep fact's statistics
// (200 suppliers, 2,000 parts), so it is estimated at its real size and
// streams through both joins; counted as distinct as its rows, its join
// with supplier was estimated at 40 rows instead of 4,000 and became the
// build side of the join with part.
func TestDistinctLeafEstimate(t *testing.T) {
	cat := starCatalog(t)
	for _, sub := range []string{
		"SELECT DISTINCT f_partkey, f_suppkey, f_revenue FROM fact",
		"SELECT f_partkey, f_suppkey, f_revenue FROM fact GROUP BY f_partkey, f_suppkey, f_revenue",
		// An outer join's columns keep their tables' statistics too.
		"SELECT f_partkey, f_suppkey, d_year FROM fact LEFT JOIN dates ON f_datekey = d_datekey",
		"SELECT f_partkey, f_suppkey, d_year FROM dates RIGHT JOIN fact ON f_datekey = d_datekey",
	} {
		q := "SELECT COUNT(*) FROM (" + sub + ") d, supplier, part WHERE d.f_suppkey = s_suppkey AND d.f_partkey = p_partkey AND s_region = 'ASIA'"
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatal(err)
		}
		lines := planner.Explain(n)
		// The derived table's rows stream: every join's first input
		// (its probe side) holds the fact scan.
		for i, l := range lines {
			if !strings.Contains(l, "Join") {
				continue
			}
			depth := len(l) - len(strings.TrimLeft(l, " "))
			probe := lines[i+1:]
			for k, m := range probe[1:] {
				if len(m)-len(strings.TrimLeft(m, " ")) <= depth+2 {
					probe = probe[:k+1]
					break
				}
			}
			if !strings.Contains(strings.Join(probe, "\n"), "Scan fact") {
				t.Errorf("%s: a join builds the derived table:\n%s", sub, strings.Join(lines, "\n"))
				break
			}
		}
	}
}

// TestImpliedJoinKeys plans joins whose keys are written pairwise: of
// the equalities among one class of columns, the joins keep a spanning
// tree (n-1 keys for n tables), since the others then hold.
func TestImpliedJoinKeys(t *testing.T) {
	cat := starCatalog(t)
	for _, tc := range []struct {
		q    string
		keys int
	}{
		{"SELECT COUNT(*) FROM fact f1, fact f2, part WHERE f1.f_partkey = p_partkey AND f2.f_partkey = p_partkey AND f1.f_partkey = f2.f_partkey", 2},
		{"SELECT COUNT(*) FROM fact f1 JOIN part ON f1.f_partkey = p_partkey JOIN fact f2 ON f2.f_partkey = p_partkey AND f2.f_partkey = f1.f_partkey AND f2.f_suppkey = f1.f_suppkey JOIN supplier ON s_suppkey = f1.f_suppkey AND s_suppkey = f2.f_suppkey", 4},
		// Equalities between columns of two types are kept (a
		// conversion need not be transitive).
		{"SELECT COUNT(*) FROM fact f1, fact f2, part WHERE f1.f_partkey = p_partkey AND f2.f_partkey = p_partkey AND CAST(f1.f_partkey AS DOUBLE) = f2.f_partkey", 3},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		lines := planner.Explain(n)
		keys := 0
		for _, l := range lines {
			if i := strings.Index(l, "Join on "); i >= 0 {
				keys += strings.Count(l[i:], " = ")
			}
			if strings.Contains(l, "Filter") {
				keys += strings.Count(l, " = ")
			}
		}
		if keys != tc.keys {
			t.Errorf("%s: %d equalities, want %d:\n%s", tc.q, keys, tc.keys, strings.Join(lines, "\n"))
		}
	}
}
