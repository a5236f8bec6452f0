package planner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
)

// costCatalog holds fact (rows rows: k, d = k % 10, v = k % 100), mid
// (1,000 rows) and the 10-row tables named (id, name, kind = id % 3).
func costCatalog(t *testing.T, rows int, small ...string) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	add := func(name string, n int, cols []catalog.Column, row func(i int) []any) {
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
		bs := make([]*coldata.Builder, len(cols))
		for i, c := range cols {
			bs[i] = coldata.NewBuilder(c.Type, n)
		}
		for i := 0; i < n; i++ {
			for c, v := range row(i) {
				bs[c].AppendValue(v)
			}
		}
		vecs := make([]*coldata.Vec, len(bs))
		for i, b := range bs {
			vecs[i] = b.Finish()
		}
		if err := cat.Append(name, coldata.NewBatch(vecs, n)); err != nil {
			t.Fatal(err)
		}
	}
	ints := func(names ...string) []catalog.Column {
		var cols []catalog.Column
		for _, n := range names {
			cols = append(cols, catalog.Column{Name: n, Type: coldata.Int64})
		}
		return cols
	}
	add("fact", rows, ints("k", "d", "v"), func(i int) []any { return []any{int64(i), int64(i % 10), int64(i % 100)} })
	dim := []catalog.Column{{Name: "id", Type: coldata.Int64}, {Name: "name", Type: coldata.String}, {Name: "kind", Type: coldata.Int64}}
	add("mid", 1000, dim, func(i int) []any { return []any{int64(i), fmt.Sprintf("m%d", i), int64(i % 3)} })
	for _, name := range small {
		add(name, 10, dim, func(i int) []any { return []any{int64(i), fmt.Sprintf("%s%d", name, i), int64(i % 3)} })
	}
	return cat
}

// placeAuto plans q, runs the placement rules as auto mode does on a GPU
// database (ro.AutoMinRows) and places the plan for a GPU with the real
// device-support checks, as device.go does.
func placeAuto(t *testing.T, cat *catalog.Catalog, q string, ro planner.RuleOptions) (lines []string, wholeOnHost bool) {
	t.Helper()
	n, err := plan(t, cat, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, err = planner.Placed(n, ro, false); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if planner.HostByCost(n) {
		return planner.Explain(n), true
	}
	n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice,
		DeviceMemory: 80 << 30, AutoNotes: ro.AutoMinRows > 0 && !ro.Disabled.Has("place_by_cost")})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return planner.Explain(n), false
}

// TestPlaceByCost: in auto mode the subtrees over few rows run on the
// CPU, each saying so with its estimate, and their results go up to the
// device operators that read them; the operators over a device result of
// few rows (by upper bounds) run on the CPU; the work over the large
// table stays on the GPU, its fragment saying what it reads. The 10-row
// tables' estimates come from table statistics and the join estimator.
func TestPlaceByCost(t *testing.T) {
	cat := costCatalog(t, 200_000, "d1", "d2", "d3")
	var tables, conds []string
	for i := 0; i < 15; i++ {
		tables = append(tables, fmt.Sprintf("d1 t%d", i))
		if i > 0 {
			conds = append(conds, fmt.Sprintf("t%d.id = t%d.kind", i-1, i))
		}
	}
	fifteen := "SELECT t0.name, t14.name FROM " + strings.Join(tables, ", ") + " WHERE " + strings.Join(conds, " AND ")
	auto := planner.RuleOptions{AutoMinRows: 100_000}
	for _, tc := range []struct {
		name, q string
		want    []string // lines, in order (trimmed)
		host    bool     // the whole plan on the CPU
	}{
		{name: "a filtered dimension", q: "SELECT d1.name, SUM(fact.v) FROM fact JOIN d1 ON fact.d = d1.id WHERE d1.kind = 1 AND fact.v > 3 GROUP BY d1.name",
			want: []string{
				"HashAggregate keys: name aggs: sum(v) (hash table on the gpu, groups merged on the host) [cpu]",
				"Project name, v (fused kernel) [gpu: auto, est 200003 rows in]",
				"Inner HashJoin on d = id (gpu hash table) [gpu]",
				"Filter (v > 3) (fused kernel) [gpu]",
				"Scan fact [d v] (200000 rows) [gpu]",
				"HostToDevice [gpu]",
				"Filter (kind = 1) [cpu: auto, est 3 rows from 10 rows scanned: 13 rows of cpu work, under the 1563 one gpu operator costs]",
				"Scan d1 [id name kind] (10 rows) [cpu]",
			}},
		{name: "joined dimensions", q: "SELECT d1.name, d2.name, COUNT(*) FROM fact, d1, d2, d3 WHERE fact.d = d1.id AND fact.k = d2.id AND d1.kind = d3.kind AND d3.name = 'd33' GROUP BY d1.name, d2.name",
			want: []string{
				"Inner HashJoin on d = id (gpu hash table) [gpu]",
				"Inner HashJoin on k = id (gpu hash table) [gpu]",
				"Scan fact [k d] (200000 rows) [gpu]",
				"Scan d2 [id name] (10 rows) [gpu]", // read where it is resident: no kernel
				"HostToDevice [gpu]",
				"Inner HashJoin on kind = kind [cpu: auto, est 3 rows from 20 rows scanned: 25 rows of cpu work, under the 3125 its 2 gpu operators cost]",
				"Scan d1 [id name kind] (10 rows) [cpu]",
				"Filter (name = 'd33') [cpu: auto, est 1 row]",
			}},
		{name: "fifteen tiny tables", q: fifteen, host: true,
			want: []string{"Project name, name [cpu: auto, est 10 rows from 150 rows scanned: 420 rows of cpu work, under the 21875 its 14 gpu operators cost]"}},
		{name: "a dimension over the fact table's groups", q: "SELECT d1.name, g.n FROM (SELECT d, COUNT(*) AS n FROM fact GROUP BY d) g JOIN d1 ON g.d = d1.id WHERE d1.kind = 2 ORDER BY d1.name",
			// d has 10 distinct values: at most 12 groups (the sketch's
			// error and NULL allowed for), joined with at most 10 rows.
			want: []string{
				"Sort name [cpu: auto, at most 120 rows in, 120 rows out: under the 1563 one gpu operator costs]",
				"Project name, n [cpu: chooses columns of host batches]",
				"Inner HashJoin on d = id [cpu: auto, at most 22 rows in, 120 rows out: under the 1563 one gpu operator costs]",
				"HashAggregate keys: d aggs: count(*) (hash table on the gpu, groups merged on the host) [cpu]",
				"Project d (fused kernel) [gpu: auto, est 200003 rows in]",
				"Filter (kind = 2) [cpu: auto, est 3 rows from 10 rows scanned: 13 rows of cpu work, under the 1563 one gpu operator costs]",
			}},
		{name: "a key with many groups", q: "SELECT d1.name, g.n FROM (SELECT k, COUNT(*) AS n FROM fact GROUP BY k) g JOIN d1 ON g.k = d1.id ORDER BY d1.name",
			// k has 200,000 distinct values: the join's input is not
			// bounded small, whatever the estimates, so it stays.
			want: []string{"Inner HashJoin on k = id (gpu hash table) [gpu]"}},
		{name: "arithmetic over a total", q: "SELECT SUM(v) * 2 + COUNT(*) FROM fact WHERE v > 3",
			want: []string{
				"Project ((sum(v) * 2) + count(*)) AS SUM(v) * 2 + COUNT(*) [cpu: auto, at most 1 row in, 1 row out: under the 1563 one gpu operator costs]",
				"HashAggregate aggs: sum(v), count(*) (hash table on the gpu, groups merged on the host) [cpu]",
			}},
		{name: "the large table alone", q: "SELECT SUM(v) FROM fact WHERE v > 3",
			want: []string{
				"HashAggregate aggs: sum(v) (hash table on the gpu, groups merged on the host) [cpu]",
				"Project v Filter (v > 3) (fused kernel) [gpu: auto, est 200000 rows in]",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var trace planner.RuleTrace
			ro := auto
			ro.Trace = &trace
			lines, host := placeAuto(t, cat, tc.q, ro)
			text := strings.Join(lines, "\n")
			if host != tc.host {
				t.Errorf("whole plan on the host %v, want %v:\n%s", host, tc.host, text)
			}
			if !hasLines(lines, tc.want) {
				t.Errorf("want lines %q in:\n%s", tc.want, text)
			}
			for _, l := range lines {
				if s := strings.TrimSpace(l); tc.host && !strings.HasPrefix(s, "Scan ") && !strings.Contains(s, "[cpu: auto, est ") {
					t.Errorf("an operator of a plan kept on the host without its estimate: %s", s)
				}
			}
			if tc.host && strings.Contains(text, "[gpu") {
				t.Errorf("device operators in a plan kept on the host:\n%s", text)
			}
			fired := slices.Contains(trace.Fired(), "place_by_cost")
			if want := strings.Contains(text, "[cpu: auto"); fired != want {
				t.Errorf("place_by_cost fired %v, want %v", fired, want)
			}
			// A plan kept on the host whole is a host plan for the
			// host-only rules after it.
			for i, r := range planner.Rules() {
				if r.Name == "pre_aggregate_joins" && (trace.State(i) == planner.RuleSkipped) == tc.host {
					t.Errorf("pre_aggregate_joins %s on a plan on the host %v", trace.State(i), tc.host)
				}
			}
		})
	}
}

// TestPlaceByCostOff: strict gpu mode (no AutoMinRows), AutoGPUMinRows
// negative (the same) and the rule switched off place the plan as before,
// with no auto notes; so does a host fragment whose output would exceed
// the upload bound.
func TestPlaceByCostOff(t *testing.T) {
	cat := costCatalog(t, 200_000, "d1")
	const q = "SELECT d1.name, SUM(fact.v) FROM fact JOIN d1 ON fact.d = d1.id WHERE d1.kind = 1 GROUP BY d1.name"
	off, err := planner.ParseRules("place_by_cost")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HashAggregate keys: name aggs: sum(v) (hash table on the gpu, groups merged on the host) [cpu]", "Filter (kind = 1) (fused kernel) [gpu]"}
	for _, ro := range []planner.RuleOptions{{}, {AutoMinRows: 100_000, Disabled: off}} {
		lines, host := placeAuto(t, cat, q, ro)
		if text := strings.Join(lines, "\n"); host || !hasLines(lines, want) || strings.Contains(text, "auto") {
			t.Errorf("rule options %+v: want lines %q and no auto notes in:\n%s", ro, want, text)
		}
	}
	n, err := plan(t, cat, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o      planner.CostOptions
		pinned bool
	}{
		{planner.CostOptions{MinRows: 100_000}, true},
		{planner.CostOptions{MinRows: 100_000, UploadBytes: 1}, false}, // 3 rows take more than a byte
		{planner.CostOptions{MinRows: 100_000, LaunchRows: 5}, false},  // 13 rows of work cost more
		{planner.CostOptions{}, false},
	} {
		got := strings.Join(planner.Explain(planner.PlaceByCost(n, tc.o)), "\n")
		if pinned := strings.Contains(got, "Filter (kind = 1) [cpu: auto, est 3 rows"); pinned != tc.pinned {
			t.Errorf("%+v: dimension filter kept on the host %v, want %v:\n%s", tc.o, pinned, tc.pinned, got)
		}
	}
}

// TestPlaceByCostFusedFilter: a filter that the projection above it runs
// in the same kernels costs no launches of its own, so it is not kept on
// the host apart from that projection (which would add a CPU pass and an
// upload to the same launches): mid's filter alone is 1,333 rows of work,
// under one operator's 1,563, but with the projection's rows it is over.
func TestPlaceByCostFusedFilter(t *testing.T) {
	cat := costCatalog(t, 200_000)
	lines, _ := placeAuto(t, cat, "SELECT SUM(fact.v) FROM fact JOIN (SELECT id * 2 AS i2 FROM mid WHERE kind > 1) m ON fact.d = m.i2", planner.RuleOptions{AutoMinRows: 100_000})
	text := strings.Join(lines, "\n")
	if strings.Contains(text, "[cpu: auto") || !strings.Contains(text, "Filter (kind > 1) (fused kernel) [gpu]") {
		t.Errorf("mid's projection and filter not fused on the GPU:\n%s", text)
	}
	// The pair is kept on the host once its work is under the limit.
	lines, _ = placeAuto(t, cat, "SELECT SUM(fact.v) FROM fact JOIN (SELECT id * 2 AS i2 FROM mid WHERE kind > 1 AND id < 100) m ON fact.d = m.i2", planner.RuleOptions{AutoMinRows: 100_000})
	if text := strings.Join(lines, "\n"); !strings.Contains(text, "[cpu: auto, est") {
		t.Errorf("a small projection of mid on the GPU:\n%s", text)
	}
}

// TestPlaceByCostSpread: a plan placed by cost spreads over several GPUs
// (place_exchanges) like any other: the fact table by row groups, the
// host fragment's upload replicated or broadcast to the join, the groups
// gathered for the host operators above.
func TestPlaceByCostSpread(t *testing.T) {
	cat := costCatalog(t, 200_000, "d1")
	for _, q := range []string{
		"SELECT d1.name, SUM(fact.v) FROM fact JOIN d1 ON fact.d = d1.id WHERE d1.kind = 1 GROUP BY d1.name",
		"SELECT d1.name, g.n FROM (SELECT d, COUNT(*) AS n FROM fact GROUP BY d) g JOIN d1 ON g.d = d1.id WHERE d1.kind = 2 ORDER BY d1.name",
	} {
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatal(err)
		}
		ro := planner.RuleOptions{AutoMinRows: 100_000, Devices: 3, SpreadRows: 1000}
		if n, err = planner.Placed(n, ro, false); err != nil {
			t.Fatal(err)
		}
		if n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice, AutoNotes: true}); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(planner.Explain(planner.Distribute(n, ro)), "\n")
		for _, want := range []string{"row groups balanced over 3 devices", "Exchange gather (3 devices to device 0)", "[cpu: auto, est 3 rows from 10 rows scanned"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: want %q in:\n%s", q, want, text)
			}
		}
	}
}
