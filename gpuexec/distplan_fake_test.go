package gpuexec_test

// Multi-device plans from SQL text over three fake devices: the
// place_exchanges rule spreads each plan (row groups balanced, small
// tables replicated, exchanges of every kind), execbuild builds it once
// per device and the exchanges move real device batches between the fake
// GPUs; every answer is checked against the CPU plan's. The fake driver
// runs no generated kernels, so filters, projections, GROUP BYs, joins
// and sorts run as their host twins (BuildOptions.HostTwins) between a
// download and an upload on their device; TestCUDADistributedPlans
// (root package) runs the same queries with the devices' own kernels.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// distCatalog holds fact(k, s, v, f) in 7 row groups (v numbers the
// rows), fact2(k, w) in 4 and dim(k, name) in one, with NULL keys.
func distCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	r := rand.New(rand.NewSource(37))
	words := []string{"", "a", "ünï", "日本語", "key-7", "key-70"}
	// Each group is a record of its own (Create keeps them; Append
	// would merge small ones).
	add := func(name string, cols []catalog.Column, groups []int, row func(i int, bs []*coldata.Builder)) {
		var recs []arrow.Record
		schema := catalog.Schema(cols)
		base := 0
		for _, n := range groups {
			bs := make([]*coldata.Builder, len(cols))
			for c, col := range cols {
				bs[c] = coldata.NewBuilder(col.Type, n)
			}
			for i := 0; i < n; i++ {
				row(base+i, bs)
			}
			base += n
			vecs := make([]*coldata.Vec, len(bs))
			for c, b := range bs {
				vecs[c] = b.Finish()
			}
			recs = append(recs, coldata.BatchToRecord(schema, coldata.NewBatch(vecs, n)))
		}
		if _, err := cat.Create(name, cols, recs, false); err != nil {
			t.Fatal(err)
		}
		if tb, _ := cat.Get(name); len(tb.Records) != len(groups) {
			t.Fatalf("%s: %d records, want %d", name, len(tb.Records), len(groups))
		}
	}
	key := func(b *coldata.Builder, n int) {
		if r.Intn(15) == 0 {
			b.AppendNull()
		} else {
			b.AppendInt(int64(r.Intn(n)))
		}
	}
	add("fact", []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "s", Type: coldata.String}, {Name: "v", Type: coldata.Int64}, {Name: "f", Type: coldata.Float64}},
		[]int{300, 41, 1, 500, 260, 7, 390}, func(i int, bs []*coldata.Builder) {
			key(bs[0], 40)
			if r.Intn(11) == 0 {
				bs[1].AppendNull()
			} else {
				bs[1].AppendString(words[r.Intn(len(words))])
			}
			bs[2].AppendInt(int64(i))
			bs[3].AppendFloat(float64(r.Intn(64)) / 4)
		})
	add("fact2", []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "w", Type: coldata.Int64}},
		[]int{200, 150, 90, 160}, func(i int, bs []*coldata.Builder) {
			key(bs[0], 60)
			bs[1].AppendInt(int64(i * 3))
		})
	add("dim", []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "name", Type: coldata.String}},
		[]int{30}, func(i int, bs []*coldata.Builder) {
			bs[0].AppendInt(int64(i))
			bs[1].AppendString(fmt.Sprintf("d%02d", i))
		})
	return cat
}

// distRows drains a built plan into text rows.
func distRows(t *testing.T, op operators.Operator) []string {
	t.Helper()
	bs, err := operators.Drain(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, b := range bs {
		rows = append(rows, rowKeys(b)...)
	}
	return rows
}

func TestFakeDistributedPlans(t *testing.T) {
	ctx := context.Background()
	devs, _ := gpuexec.FakeDevices(t, 3, func(from, to int) bool { return from != 2 && to != 2 })
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	rts := make([]*operators.DeviceRuntime, len(devs))
	for i, d := range devs {
		rts[i] = &operators.DeviceRuntime{Dev: d, Cache: gpuexec.NewTableCache(d, 1<<30)}
	}
	cat := distCatalog(t)
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	kinds := map[string]bool{}
	for _, c := range []struct {
		q       string
		ordered bool     // compare rows in order
		want    []string // in EXPLAIN
	}{
		// GROUP BY: repartition by key, finish per device, gather.
		{"SELECT s, COUNT(*), SUM(v), MIN(k), MAX(f) FROM fact GROUP BY s", false, []string{"repartition by s"}},
		{"SELECT k, s, COUNT(*) AS n FROM fact WHERE v % 3 <> 1 GROUP BY k, s ORDER BY n DESC, k, s LIMIT 9", true, []string{"repartition by k, s", "Limit 9"}},
		// The sort on the host above the gather: each device cuts its own
		// top groups (its groups are its own).
		{"SELECT v, k, COUNT(*) AS n, SUM(f) FROM fact GROUP BY v, k ORDER BY n DESC, v LIMIT 9", true, []string{"repartition by v, k", "top_groups=9 by=(count(*) DESC NULLS LAST) with_ties"}},
		// Few groups (k's zone maps: 41): partial per device, merged.
		{"SELECT k, COUNT(*), SUM(v), MIN(s), MAX(f) FROM fact GROUP BY k", false, []string{"partial", "final"}},
		{"SELECT k, COUNT(*) FROM fact WHERE f > 2 GROUP BY k ORDER BY k", true, []string{"partial", "final"}},
		// No keys: partial per device, merged on device 0.
		{"SELECT COUNT(*), COUNT(k), SUM(v), MIN(s), MAX(f) FROM fact", true, []string{"partial", "final"}},
		{"SELECT COUNT(*), SUM(v) FROM fact WHERE v < 0", true, []string{"partial"}},
		// AVG: a SUM and a COUNT per device, merged, divided on device 0
		// (DECIMAL scale + 4 as AVG's; DOUBLE; NULL for no values).
		{"SELECT AVG(v), AVG(f), AVG(k), COUNT(*) FROM fact", true, []string{"partial", "final", "/"}},
		{"SELECT AVG(v), AVG(k) FROM fact WHERE v < 0", true, []string{"partial"}},
		{"SELECT k, AVG(v), AVG(f), MIN(s) FROM fact GROUP BY k", false, []string{"partial", "final", "/"}},
		{"SELECT k, AVG(CASE WHEN v % 2 = 0 THEN NULL ELSE f END) FROM fact GROUP BY k", false, []string{"partial"}},
		{"SELECT AVG(DISTINCT k) FROM fact", true, []string{"repartition by cast_to_decimal(k", "partial"}},
		// COUNT(DISTINCT): repartition by the distinct key.
		{"SELECT COUNT(DISTINCT s) FROM fact", true, []string{"repartition by s", "partial"}},
		// With few groups (k's 41), by the distinct key too, then the
		// devices' groups merged: shares even however skewed k is.
		{"SELECT k, COUNT(DISTINCT s) FROM fact GROUP BY k", false, []string{"repartition by s", "partial", "final"}},
		{"SELECT k, COUNT(DISTINCT s), COUNT(*), SUM(v), MAX(f), MIN(s) FROM fact GROUP BY k", false, []string{"repartition by s", "partial", "final"}},
		{"SELECT k, COUNT(DISTINCT f), AVG(v), SUM(f) FROM fact GROUP BY k", false, []string{"repartition by f", "partial", "final", "/"}},
		// AVG(DISTINCT v) reads cast_to_decimal(v), COUNT(DISTINCT v) v:
		// one value for one value, so one repartition serves both; f
		// projected twice is one column.
		{"SELECT k, AVG(DISTINCT v), COUNT(DISTINCT v) FROM fact GROUP BY k", false, []string{"repartition by cast_to_decimal(v", "partial", "final", "/"}},
		{"SELECT k, COUNT(DISTINCT f), SUM(DISTINCT f), MAX(v) FROM fact GROUP BY k", false, []string{"repartition by f", "partial", "final"}},
		// DISTINCT of two different columns: by the keys.
		{"SELECT k, COUNT(DISTINCT f), COUNT(DISTINCT v) FROM fact GROUP BY k", false, []string{"repartition by k"}},
		{"SELECT COUNT(DISTINCT s), COUNT(*), MIN(v) FROM fact WHERE f > 1", true, []string{"repartition by s", "partial", "final"}},
		// Under ORDER BY ... LIMIT only the merged groups are cut.
		{"SELECT k, COUNT(DISTINCT s) AS n, COUNT(*) AS c FROM fact GROUP BY k ORDER BY c DESC, k LIMIT 5", true, []string{"repartition by s", "partial", "final"}},
		{"SELECT k, COUNT(DISTINCT s) AS n FROM fact GROUP BY k ORDER BY n DESC, k LIMIT 5", true, []string{"repartition by s", "partial", "final"}},
		// As many groups as rows (v numbers them): by the keys.
		{"SELECT v, COUNT(DISTINCT s) FROM fact GROUP BY v", false, []string{"repartition by v"}},
		// Two DISTINCT columns have no merge: gathered.
		{"SELECT COUNT(DISTINCT s), COUNT(DISTINCT k) FROM fact", true, []string{"gather (3 devices to device 0)"}},
		// Computed keys: each device groups its rows, the partial groups
		// are repartitioned by key and merged per device (a top cut only
		// on the merged ones).
		{"SELECT v % 7 AS m, COUNT(*), SUM(f), MIN(s), AVG(v) FROM fact GROUP BY v % 7", false, []string{"final", "repartition by", "partial"}},
		{"SELECT v % 11 AS m, COUNT(*) AS c FROM fact GROUP BY v % 11 ORDER BY c DESC, m LIMIT 3", true, []string{"final (hash table on the gpu, groups kept on the gpu) [gpu on 3 devices] top_groups=3", "repartition by (v % 11)", "partial"}},
		{"SELECT SUBSTR(s, 1, 2) AS p, k + 1 AS q, COUNT(*), MAX(v) FROM fact WHERE f > 1 GROUP BY SUBSTR(s, 1, 2), k + 1", false, []string{"final", "repartition by", "partial"}},
		// A plain column among the keys keeps the rows' repartition.
		{"SELECT v % 7 AS m, v, COUNT(*) FROM fact GROUP BY v % 7, v", false, []string{"repartition by (v % 7), v", "aggs: count(*) (hash table"}},
		// With a DISTINCT aggregate the rows move (by the keys).
		{"SELECT v % 7 AS m, COUNT(DISTINCT s) FROM fact GROUP BY v % 7", false, []string{"repartition by"}},
		// Joins: a replicated table moves nothing; a smaller side is
		// broadcast (from device 0 or from every device); two large
		// sides are repartitioned by the keys.
		{"SELECT f.v, d.name FROM fact f JOIN dim d ON f.k = d.k", false, []string{"replicated on 3 devices"}},
		{"SELECT f.v, g.n FROM fact f JOIN (SELECT k, COUNT(*) AS n FROM dim GROUP BY k) g ON f.k = g.k", false, []string{"broadcast (device 0 to 3 devices)"}},
		{"SELECT f.v, g.w FROM fact f JOIN fact2 g ON f.k = g.k WHERE g.w % 5 = 0", false, []string{"broadcast (3 devices to 3 devices)"}},
		{"SELECT f.v, g.v FROM fact f JOIN fact g ON f.k = g.k AND f.s = g.s", false, []string{"repartition by k, s"}},
		// The same table filtered on the right: estimated smaller, broadcast.
		{"SELECT f.v, g.v FROM fact f JOIN fact g ON f.k = g.k WHERE g.v < 40", false, []string{"broadcast (3 devices to 3 devices)"}},
		{"SELECT f.v, g.v FROM fact f LEFT JOIN fact g ON f.v = g.v + 1", false, []string{"repartition by v"}},
		// ORDER BY ... LIMIT: each device's top rows, gathered, merged.
		{"SELECT v * 2 AS w, k FROM fact ORDER BY w DESC LIMIT 7 OFFSET 2", true, []string{"Limit 9", "gather (3 devices to device 0)"}},
		{"SELECT v + 1 AS w, s FROM fact WHERE k > 30 ORDER BY s, w", true, []string{"gather (3 devices to device 0)"}},
	} {
		st, err := sql.ParseOne(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		n, err := (&planner.Planner{Catalog: cat, Run: execbuild.Run}).PlanSelect(ctx, st.(*sql.Select).Stmt, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		cpu, err := execbuild.Build(n, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		want := distRows(t, cpu.Root)
		g, err := planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: all, Aggregates: execbuild.AggregatesOnDevice})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		g = planner.Distribute(g, planner.RuleOptions{Devices: 3, SpreadRows: 100})
		explain := strings.Join(planner.ExplainAnalyze(g, execbuild.TopNotes(g)), "\n")
		for _, w := range c.want {
			if !strings.Contains(explain, w) {
				t.Errorf("%s: no %q in\n%s", c.q, w, explain)
			}
		}
		for _, k := range []string{"repartition", "broadcast", "gather"} {
			if strings.Contains(explain, "Exchange "+k) {
				kinds[k] = true
			}
		}
		built, err := execbuild.BuildWith(g, execbuild.BuildOptions{GPU: rts[0], Devices: rts, Transport: local, Split: exchange.HostSplit, HostTwins: true})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		got := distRows(t, built.Root)
		if !c.ordered {
			slices.Sort(want)
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d\ngot  %.6q\nwant %.6q\n%s", c.q, len(got), len(want), got, want, explain)
		}
		// EXPLAIN ANALYZE: every spread scan read every row once, in
		// one batch per device.
		for _, line := range built.ExplainAnalyze(g) {
			if strings.Contains(line, "Scan fact ") && !strings.Contains(line, "rows=1499 batches=3 ") {
				t.Errorf("%s: %s", c.q, line)
			}
			checkPerDevice(t, c.q, line)
			// An exchange counts the bytes its devices received.
			if m := analyzeBytes.FindStringSubmatch(line); strings.Contains(line, "Exchange ") && (m == nil || m[1] != "0" && m[2] == "0") {
				t.Errorf("%s: an exchange that moved no bytes: %s", c.q, line)
			}
		}
	}
	if len(kinds) != 3 {
		t.Errorf("exchange kinds run: %v, want all three", kinds)
	}
	if s := local.Stats(); s.PeerBytes == 0 || s.StagedBytes == 0 {
		t.Errorf("transport stats %+v: want peer copies and host staging (device 2 has no peer access)", s)
	}
	// Every device holds row groups of its share; nothing else stays lent.
	for i, rt := range rts {
		if st := rt.Cache.Stats(); st.Tables == 0 || st.Batches == 0 {
			t.Errorf("device %d keeps no resident rows: %+v", i, st)
		}
		rt.Cache.Clear()
		if n := gpuexec.InUse(devs[i]); n != 0 {
			t.Errorf("device %d: %d bytes still lent", i, n)
		}
	}
}

var (
	analyzeRows  = regexp.MustCompile(`^.*?\brows=(\d+) `)
	analyzeBytes = regexp.MustCompile(`^.*?\brows=(\d+) batches=\d+ time=\S+ bytes=(\d+) `)
	perDevice    = regexp.MustCompile(`per_device=\[([^\]]*)\]`)
	deviceRows   = regexp.MustCompile(`^gpu(\d+) rows=(\d+) time=\S+ bytes=\d+ launches=\d+$`)
)

// checkPerDevice checks an EXPLAIN ANALYZE line of a spread plan: a node
// run on every device (a spread scan, anything under an exchange) lists
// each device's copy, once per device, and their rows add up to the
// node's; a node run once lists none.
func checkPerDevice(t *testing.T, q, line string) {
	t.Helper()
	m := perDevice.FindStringSubmatch(line)
	spreadScan := strings.Contains(line, "balanced over 3 devices")
	if m == nil {
		if spreadScan {
			t.Errorf("%s: a spread scan without per-device statistics: %s", q, line)
		}
		return
	}
	total := analyzeRows.FindStringSubmatch(line)
	if total == nil {
		t.Errorf("%s: no rows= before per_device: %s", q, line)
		return
	}
	sum, seen := 0, map[string]bool{}
	for _, part := range strings.Split(m[1], "; ") {
		d := deviceRows.FindStringSubmatch(part)
		if d == nil || seen[d[1]] {
			t.Errorf("%s: per-device part %q in %s", q, part, line)
			return
		}
		seen[d[1]] = true
		n, _ := strconv.Atoi(d[2])
		sum += n
	}
	if want, _ := strconv.Atoi(total[1]); sum != want || len(seen) < 2 || (spreadScan && len(seen) != 3) {
		t.Errorf("%s: devices %v add up to %d rows, want %d: %s", q, seen, sum, want, line)
	}
}

// failingInput yields one batch of rows, then fails.
type failingInput struct {
	d    *gpuexec.Device
	sent bool
}

func (f *failingInput) Open(context.Context) error { return nil }
func (f *failingInput) Close() error               { return nil }
func (f *failingInput) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if f.sent {
		return nil, errors.New("input broke")
	}
	f.sent = true
	return f.d.Upload(ctx, exchangeBatch(rand.New(rand.NewSource(1)), 50, 0))
}

// TestFakeExchangeSourceErrors: a source with inputs for the wrong number
// of devices, or whose input fails, fails every reader with the cause and
// keeps no device memory.
func TestFakeExchangeSourceErrors(t *testing.T) {
	ctx := context.Background()
	devs, _ := gpuexec.FakeDevices(t, 3, nil)
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	group := &exchange.Group{Devices: devs, Transport: local, Split: exchange.HostSplit}
	for _, c := range []struct {
		name   string
		inputs []operators.DeviceOperator
		want   string
	}{
		{"two inputs for three devices", []operators.DeviceOperator{&failingInput{d: devs[0]}, &failingInput{d: devs[1]}}, "2 inputs for 3 devices"},
		{"an input fails", []operators.DeviceOperator{&failingInput{d: devs[0]}, &failingInput{d: devs[1]}, &failingInput{d: devs[2]}}, "input broke"},
	} {
		src := &operators.ExchangeSource{Group: group, Kind: operators.ExchangeRepartition, Keys: []int{0}, Inputs: c.inputs}
		for i := range devs {
			out := src.Output(i)
			if _, err := out.NextDevice(ctx); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: reader %d: %v, want %q", c.name, i, err, c.want)
			}
			out.Close()
		}
		for i, d := range devs {
			if n := gpuexec.InUse(d); n != 0 {
				t.Errorf("%s: device %d: %d bytes still lent", c.name, i, n)
			}
		}
	}
}
