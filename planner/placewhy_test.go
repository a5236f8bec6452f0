package planner_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen/clickbench"
	cbq "github.com/gsqlengine/gsql/datagen/clickbench/queries"
	"github.com/gsqlengine/gsql/datagen/tpch"
	tpq "github.com/gsqlengine/gsql/datagen/tpch/queries"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
)

// TestEveryHostOperatorSaysWhy places the TPC-H and ClickBench queries and
// everyday shapes beside them for the GPU, with the real device-support
// checks: every operator left on the host says why in EXPLAIN, except
// scans (read where their reader runs) and transfers.
func TestEveryHostOperatorSaysWhy(t *testing.T) {
	cat := catalog.New()
	addSchema := func(name string, s *arrow.Schema) {
		var cols []catalog.Column
		for _, f := range s.Fields() {
			ct, err := coldata.FromArrowType(f.Type)
			if err != nil {
				t.Fatal(err)
			}
			cols = append(cols, catalog.Column{Name: f.Name, Type: ct})
		}
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, tb := range tpch.Tables {
		addSchema(tb.String(), tpch.Schema(tb))
	}
	addSchema("hits", clickbench.Schema())
	var qs []string
	for n := 1; n <= 22; n++ {
		if n == 15 {
			continue // a view, created by its own statement
		}
		q, err := tpq.Text(n)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, strings.TrimSuffix(strings.TrimSpace(q), ";"))
	}
	for n := 1; n <= cbq.Count; n++ {
		q, err := cbq.Query(n)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	qs = append(qs,
		`WITH c AS (SELECT EventDate, CounterID, COUNT(*) AS n FROM hits GROUP BY EventDate, CounterID)
		 SELECT * FROM (SELECT EventDate, CounterID, n, ROW_NUMBER() OVER (PARTITION BY EventDate ORDER BY n DESC) AS rn FROM c) AS r WHERE rn <= 3`,
		`SELECT a.UserID, COUNT(*) FROM (SELECT DISTINCT UserID, CounterID FROM hits) AS a JOIN (SELECT DISTINCT UserID FROM hits WHERE IsMobile = 1) AS m ON a.UserID = m.UserID GROUP BY a.UserID`,
		`SELECT COUNT(*) FROM hits WHERE UserID IN (SELECT UserID FROM hits WHERE AdvEngineID <> 0)`,
		`SELECT COUNT(*) FROM (SELECT DISTINCT UserID FROM hits) AS u WHERE NOT EXISTS (SELECT 1 FROM hits h WHERE h.UserID = u.UserID AND h.IsRefresh = 1)`,
		`SELECT n_name FROM nation INTERSECT SELECT n_name FROM nation WHERE n_regionkey = 1`,
		`SELECT o_orderpriority, o_orderdate FROM orders UNION ALL SELECT 'x', DATE '2020-01-01'`,
		`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r`,
		`SELECT l_orderkey, LAG(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber) FROM lineitem`,
		`SELECT c_name, (SELECT MAX(o_totalprice) FROM orders WHERE o_custkey = c_custkey) FROM customer`,
		`SELECT s_name, GROUP_CONCAT(s_phone) FROM supplier GROUP BY s_name`,
	)
	opts := planner.PlaceOptions{GPU: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice, DeviceMemory: 80 << 30}
	placeAll := func(ro planner.RuleOptions, opts planner.PlaceOptions) (fragments int) {
		for i, q := range qs {
			n, err := plan(t, cat, q)
			if err != nil {
				t.Fatalf("query %d: %s: %v", i, q, err)
			}
			if n, err = planner.Placed(n, ro, false); err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
			if !planner.HostByCost(n) {
				if n, err = planner.Place(n, opts); err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
			}
			lines := planner.Explain(n)
			text := strings.Join(lines, "\n")
			if strings.Contains(text, "[cpu: auto, est") {
				fragments++
			}
			for _, line := range lines {
				s := strings.TrimSpace(line)
				if !strings.HasSuffix(s, "[cpu]") || strings.HasPrefix(s, "Scan ") || strings.HasPrefix(s, "DeviceToHost") ||
					strings.Contains(s, "on the gpu") {
					continue
				}
				t.Errorf("query %d: a host operator without its reason: %s\n%s\n%s", i, s, q, text)
				break
			}
		}
		return fragments
	}
	placeAll(planner.RuleOptions{}, opts)
	// In auto mode with the tables at TPC-H SF10 and ClickBench's 100M
	// rows (no data: the counts alone), placement by cost keeps the small
	// tables' work on the host, every operator of it saying why.
	for name, rows := range map[string]int64{"lineitem": 60_000_000, "orders": 15_000_000, "partsupp": 8_000_000, "part": 2_000_000,
		"customer": 1_500_000, "supplier": 100_000, "nation": 25, "region": 5, "hits": 100_000_000} {
		tb, err := cat.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tb.Rows = rows
	}
	opts.AutoNotes = true
	if n := placeAll(planner.RuleOptions{AutoMinRows: 100_000}, opts); n == 0 {
		t.Errorf("no query kept a fragment on the host by cost")
	}
}

// TestScannedRowsAndOnHost: the rows a plan's scans read (both sides of a
// join, a CTE's body), and a root that says why the plan stays on the CPU.
func TestScannedRowsAndOnHost(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		rows int64
	}{
		{"SELECT a FROM t", 4},
		{"SELECT t.a FROM t JOIN u ON t.a = u.a", 7},
		{"WITH d AS (SELECT a FROM u) SELECT COUNT(*) FROM d", 3},
		{"SELECT 1", 0},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := planner.ScannedRows(n); got != tc.rows {
			t.Errorf("%s: %d rows scanned, want %d", tc.q, got, tc.rows)
		}
		host := planner.OnHost(n, "auto: few rows")
		lines := planner.Explain(host)
		if !strings.HasSuffix(lines[0], "[cpu: auto: few rows]") {
			t.Errorf("%s: root %q", tc.q, lines[0])
		}
		if orig := planner.Explain(n); strings.Contains(orig[0], "auto: few rows") {
			t.Errorf("%s: OnHost changed the plan it copied", tc.q)
		}
	}
}
