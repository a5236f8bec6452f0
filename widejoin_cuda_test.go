//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
)

// A join of many small tables whose output is wider than one interpreter
// program (28 text columns: past its 16 string outputs) runs on the
// interpreter in parts while its own kernels compile, so the query waits
// for no compile; its answer is the CPU's. Under load, waiting for such
// compiles was 92% of a 16-process corpus run's query time (issue 39).
// With 40 tables the joins' gathers carry 120 columns, more than one
// kernel's parameters: they gather in groups.
func TestGPUWideJoinWaitsForNoCompile(t *testing.T) {
	for _, tables := range []int{14, 40} {
		t.Run(fmt.Sprint(tables), func(t *testing.T) { wideJoin(t, tables) })
	}
}

func wideJoin(t *testing.T, tables int) {
	ctx := context.Background()
	var setup []string
	for k := 1; k <= tables; k++ {
		setup = append(setup, fmt.Sprintf("CREATE TABLE t%d (a%d BIGINT, b%d BIGINT, x%d VARCHAR)", k, k, k, k))
		var vals []string
		for i := 0; i < 10; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'row %d of t%d')", i, (i*7+k)%10, i, k))
		}
		setup = append(setup, fmt.Sprintf("INSERT INTO t%d VALUES %s", k, strings.Join(vals, ", ")))
	}
	cpu := openTestDB(t, gsql.Options{Device: "cpu"}, setup...)
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	for _, s := range setup {
		if _, err := gpu.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := gpu.WaitGPU(ctx); err != nil {
		t.Fatal(err)
	}
	// A literal new to this run makes the projection's kernels new: no
	// cache holds them.
	nonce := fmt.Sprint(time.Now().UnixNano())
	var outs, from, where []string
	for k := 1; k <= tables; k++ {
		outs = append(outs, fmt.Sprintf("x%d", k), fmt.Sprintf("CONCAT(x%d, '%s')", k, nonce))
		from = append(from, fmt.Sprintf("t%d", k))
		if k > 1 {
			where = append(where, fmt.Sprintf("a%d = b%d", k-1, k))
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(outs, ", "), strings.Join(from, ", "), strings.Join(where, " AND "))
	want := sortedRows(t, cpu, q)
	if len(want) == 0 {
		t.Fatal("the join is empty: the test shows nothing")
	}
	requireSameRows(t, q, sortedRows(t, gpu, q), want)
	plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+strings.Replace(q, nonce, nonce+"x", -1)), "\n")
	if !strings.Contains(plan, "compile=0/") {
		t.Errorf("the query waited for a compile:\n%s", plan)
	}
}
