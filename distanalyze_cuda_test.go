//go:build cuda

package gsql_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
)

var (
	analyzeTotals = regexp.MustCompile(`\] rows=(\d+) batches=\d+ time=\S+ bytes=(\d+) launches=(\d+)`)
	analyzeCopies = regexp.MustCompile(`per_device=\[([^\]]*)\]`)
	analyzeCopy   = regexp.MustCompile(`^gpu(\d+) rows=(\d+) time=\S+ bytes=(\d+) launches=(\d+)$`)
)

// TestCUDADistributedAnalyze: on every visible GPU (two or more), EXPLAIN
// says on how many devices each device operator runs, and EXPLAIN ANALYZE
// gives each device's rows, time, bytes and launches beside their sum:
// every GPU's copy of a spread GROUP BY launched kernels, the copies' rows
// add up to the node's, and the repartition counts the bytes it moved.
// The answers match the CPU's.
func TestCUDADistributedAnalyze(t *testing.T) {
	n, err := gpuexec.DeviceCount()
	if err != nil || n < 2 {
		t.Skipf("%d GPUs (%v): a spread plan needs two", n, err)
	}
	cpu, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	db, err := gsql.Open(gsql.Options{Device: "gpu", Devices: "all", SpreadRows: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	distTables(t, cpu, db)
	ctx := context.Background()
	on := "on " + strconv.Itoa(n) + " devices]"
	for _, c := range []struct {
		q     string
		node  string // a node run on every GPU that launches kernels
		moves string // an exchange that moves rows between GPUs
	}{
		{"SELECT s, COUNT(*), SUM(v), MIN(k), MAX(f) FROM fact GROUP BY s", "HashAggregate keys: s", "Exchange repartition by s"},
		{"SELECT k, COUNT(*), SUM(v) FROM fact WHERE f > 2 GROUP BY k", "HashAggregate keys: k", "Exchange"},
		{"SELECT f.v, g.w FROM fact f JOIN fact2 g ON f.k = g.k WHERE g.w % 5 = 0 AND f.v % 7 = 0", "HashJoin", "Exchange"},
	} {
		want, err := rowsErr(ctx, cpu, c.q)
		if err != nil {
			t.Fatalf("cpu: %s: %v", c.q, err)
		}
		got, err := rowsErr(ctx, db, c.q)
		if err != nil {
			t.Fatalf("%d GPUs: %s: %v", n, c.q, err)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%d GPUs: %s: %d rows, want %d", n, c.q, len(got), len(want))
		}
		lines := rowsOf(t, db, "EXPLAIN ANALYZE "+c.q)
		all := strings.Join(lines, "\n")
		sawNode, sawMove := false, false
		for _, l := range lines {
			tot := analyzeTotals.FindStringSubmatch(l)
			// (A GROUP BY of few groups also has a final copy on GPU 0.)
			if strings.Contains(l, c.node) && strings.Contains(l, on) {
				sawNode = true
				if tot == nil {
					t.Errorf("%s: %q: no statistics:\n%s", c.q, c.node, all)
					continue
				}
				copies := perDeviceCopies(t, l)
				if len(copies) != n {
					t.Errorf("%s: %d per-device copies of %q, want %d:\n%s", c.q, len(copies), c.node, n, all)
				}
				rows := 0
				for gpu, cp := range copies {
					rows += cp[0]
					if cp[2] == 0 {
						t.Errorf("%s: GPU %d's copy of %q launched nothing:\n%s", c.q, gpu, c.node, l)
					}
				}
				if total, _ := strconv.Atoi(tot[1]); rows != total {
					t.Errorf("%s: per-device rows add up to %d, the node says %d:\n%s", c.q, rows, total, l)
				}
			}
			if strings.Contains(l, c.moves) && tot != nil && tot[1] != "0" && tot[2] != "0" {
				sawMove = true
			}
		}
		if !sawNode || !sawMove {
			t.Errorf("%s: no %q line on %d devices or no exchange that moved bytes:\n%s", c.q, c.node, n, all)
		}
		t.Logf("%s\n%s", c.q, all)
	}
	st := db.Stats()
	for _, d := range st.Devices {
		t.Logf("GPU %d: %d compiles, %d images shared from another GPU, %d disk hits, %s busy", d.Ordinal, d.Compiles, d.SharedImageHits, d.DiskCacheHits, d.ThreadTime)
		if d.ThreadTime <= 0 || d.Launches == 0 {
			t.Errorf("GPU %d: busy %s, %d launches after spread queries", d.Ordinal, d.ThreadTime, d.Launches)
		}
	}
	if !strings.Contains(st.String(), "runs the queries") {
		t.Errorf(".stats without per-device lines:\n%s", st)
	}
}

// perDeviceCopies reads an EXPLAIN ANALYZE line's per_device list: by GPU
// ordinal, rows, bytes and launches.
func perDeviceCopies(t *testing.T, line string) map[int][3]int {
	t.Helper()
	m := analyzeCopies.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	out := map[int][3]int{}
	for _, part := range strings.Split(m[1], "; ") {
		c := analyzeCopy.FindStringSubmatch(part)
		if c == nil {
			t.Errorf("per-device part %q of %s", part, line)
			continue
		}
		var v [4]int
		for i := range v {
			v[i], _ = strconv.Atoi(c[i+1])
		}
		out[v[0]] = [3]int{v[1], v[2], v[3]}
	}
	return out
}
