package difftest

import (
	"errors"
	"strings"
	"testing"
)

func num(f float64) cell { return cell{num: true, f: f} }
func str(s string) cell  { return cell{s: s} }

var null = cell{null: true}

// TestDiff checks that the comparison catches what it must and forgives
// only the normalisations the package comment lists.
func TestDiff(t *testing.T) {
	rows := func(rs ...[]cell) result { return result{rows: rs} }
	r := func(cs ...cell) []cell { return cs }
	for _, tc := range []struct {
		name    string
		g, s    result
		ordered bool
		want    string // "" for equal, else a substring of the reason
	}{
		{"equal", rows(r(num(1), str("a"))), rows(r(num(1), str("a"))), false, ""},
		{"multiset order", rows(r(num(1)), r(num(2))), rows(r(num(2)), r(num(1))), false, ""},
		{"sequence order", rows(r(num(1)), r(num(2))), rows(r(num(2)), r(num(1))), true, "row 1 column 1"},
		{"duplicates count", rows(r(num(1)), r(num(1))), rows(r(num(1))), false, "row counts differ"},
		{"multiset content", rows(r(num(1)), r(num(1))), rows(r(num(1)), r(num(2))), false, "sorted row 2"},
		{"null vs zero", rows(r(null)), rows(r(num(0))), false, "column 1"},
		{"null vs empty text", rows(r(null)), rows(r(str(""))), false, "column 1"},
		{"text vs number", rows(r(str("1"))), rows(r(num(1))), false, "column 1"},
		{"text case", rows(r(str("a"))), rows(r(str("A"))), false, "column 1"},
		{"double rounding", rows(r(num(tenth + 0.2))), rows(r(num(0.3))), false, ""},
		{"double difference", rows(r(num(0.3001))), rows(r(num(0.3))), false, "column 1"},
		{"decimal scale", rows(r(cell{num: true, f: 0.3333, tol: 0.00005})), rows(r(num(1.0 / 3))), false, ""},
		{"decimal off", rows(r(cell{num: true, f: 0.3334, tol: 0.00005})), rows(r(num(1.0 / 3))), false, "column 1"},
		{"column count", rows(r(num(1), num(2))), rows(r(num(1))), false, "column counts differ"},
		{"both fail", result{err: errors.New("x")}, result{err: errors.New("y")}, false, ""},
		{"gsql fails", result{err: errors.New("boom")}, rows(), false, "gsql failed"},
		{"sqlite fails", rows(), result{err: errors.New("boom")}, false, "SQLite failed"},
		{"empty", rows(), rows(), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := diff(tc.g, tc.s, tc.ordered)
			if tc.want == "" && got != "" {
				t.Fatalf("diff = %q, want equal", got)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("diff = %q, want it to mention %q", got, tc.want)
			}
		})
	}
}

// TestGeneratorDeterministic checks that a seed gives the same data and
// queries every time, so a reported seed reproduces.
func TestGeneratorDeterministic(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		a, b := genDataset(seed), genDataset(seed)
		if strings.Join(a.statements(dGSQL), ";") != strings.Join(b.statements(dGSQL), ";") {
			t.Fatalf("seed %d: data differs between runs", seed)
		}
		ga, gb := newGen(a, seed, allShapes()), newGen(b, seed, allShapes())
		for i := 0; i < 20; i++ {
			qa, qb := ga.genQuery(), gb.genQuery()
			if render(qa.n, dGSQL) != render(qb.n, dGSQL) || qa.ordered != qb.ordered {
				t.Fatalf("seed %d query %d differs between runs", seed, i)
			}
		}
	}
}

// TestGeneratorCoverage checks that a default run's worth of queries
// contains every shape the package comment promises.
func TestGeneratorCoverage(t *testing.T) {
	want := []string{
		" JOIN ", " LEFT JOIN ", " RIGHT JOIN ", " CROSS JOIN ", ", t", " IN (SELECT", " NOT IN (SELECT",
		"EXISTS (SELECT", "NOT EXISTS (SELECT", "(SELECT MAX(", " LIMIT 1)",
		" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT ", ") UNION", "GROUP BY", "HAVING",
		"COUNT(*)", "COUNT(DISTINCT", "SUM(", "MIN(", "MAX(", "AVG(",
		"NULLS FIRST", "NULLS LAST", " LIMIT ", " OFFSET ", "CASE WHEN", "COALESCE(",
		"ROW_NUMBER()", "RANK()", "DENSE_RANK()", "NTILE(", "LAG(", "LEAD(", "FIRST_VALUE(", "LAST_VALUE(",
		" OVER (PARTITION BY", " ROWS BETWEEN", " RANGE BETWEEN", " PRECEDING AND ", " FOLLOWING)", " OVER w",
		"WITH w1 AS", "WITH RECURSIVE", " DIV ", " / ", "DISTINCT ", " USING (", " OVER (w ", " <=> ",
		"SUM(DISTINCT", "AVG(DISTINCT", "ESCAPE '!'", `LIKE '%\_%'`, "GROUP BY 1", ") OVER (PARTITION BY MIN(", "ON p.id = r.c0)", "ON p.id = r.c0 + 1)",
		") IN (SELECT", ") NOT IN (SELECT", ") IN ((", ") NOT IN ((", " ALL (SELECT", " ANY (SELECT", " SOME (SELECT",
	}
	seen := map[string]int{}
	for seed := int64(0); seed < 60; seed++ {
		d := genDataset(seed)
		g := newGen(d, seed, allShapes())
		for i := 0; i < 50; i++ {
			q := render(g.genQuery().n, dGSQL)
			for _, w := range want {
				if strings.Contains(q, w) {
					seen[w]++
				}
			}
		}
	}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("no generated query contains %q", w)
		}
	}
}

// tenth is a variable so that tenth+0.2 is computed in float64 (as a
// constant expression it would be exactly 0.3).
var tenth = 0.1

// TestUnsorted checks the ORDER BY check on gsql's rows.
func TestUnsorted(t *testing.T) {
	r := func(cs ...cell) []cell { return cs }
	asc := []sortKey{{col: 0, nullsFirst: true}}
	for _, tc := range []struct {
		name string
		rows [][]cell
		keys []sortKey
		bad  bool
	}{
		{"ascending, NULLs first", [][]cell{r(null), r(num(1)), r(num(2))}, asc, false},
		{"ascending, NULL late", [][]cell{r(num(1)), r(null)}, asc, true},
		{"ascending, NULLs last", [][]cell{r(num(1)), r(null)}, []sortKey{{col: 0}}, false},
		{"descending", [][]cell{r(num(2)), r(num(1)), r(null)}, []sortKey{{col: 0, desc: true}}, false},
		{"descending, wrong", [][]cell{r(num(1)), r(num(2))}, []sortKey{{col: 0, desc: true}}, true},
		{"text bytewise", [][]cell{r(str("B")), r(str("a")), r(str("ab"))}, asc, false},
		{"text wrong", [][]cell{r(str("a")), r(str("B"))}, asc, true},
		{"ties broken by the next key", [][]cell{r(num(1), str("b")), r(num(1), str("a"))},
			[]sortKey{{col: 0}, {col: 1, desc: true}}, false},
		{"ties broken wrongly", [][]cell{r(num(1), str("a")), r(num(1), str("b"))},
			[]sortKey{{col: 0}, {col: 1, desc: true}}, true},
		{"ties left open", [][]cell{r(num(1), str("a")), r(num(1), str("b")), r(num(1), str("a"))}, asc, false},
		{"doubles a bit apart are not ties", [][]cell{r(num(tenth+0.2), num(2)), r(num(0.3), num(1))},
			[]sortKey{{col: 0, desc: true}, {col: 1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unsorted(tc.rows, tc.keys); (got != "") != tc.bad {
				t.Fatalf("unsorted = %q, want a complaint: %v", got, tc.bad)
			}
		})
	}
}
