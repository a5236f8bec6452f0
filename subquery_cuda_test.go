//go:build cuda

package gsql_test

import (
	"context"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// TestGPUSubqueriesRunOnDevice checks the uncorrelated subqueries a
// statement runs while it binds (a scalar subquery's value, NOT IN's
// NULL counts, an EXISTS, a CTE that the outer query reads too) against
// the CPU's answers, and that on a GPU database they run on the device:
// EXPLAIN, which binds without running the outer plan, launches kernels.
func TestGPUSubqueriesRunOnDevice(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	ctx := context.Background()
	for _, db := range []*gsql.DB{cpu, gpu} {
		if err := tpch.Load(ctx, db, 0.05); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		"SELECT COUNT(*), SUM(l_quantity) FROM lineitem WHERE l_extendedprice > (SELECT AVG(l_extendedprice) FROM lineitem WHERE l_shipmode = 'AIR')",
		"SELECT COUNT(*) FROM part WHERE p_partkey NOT IN (SELECT ps_partkey FROM partsupp WHERE ps_availqty < 500)",
		"SELECT COUNT(*) FROM nation WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_quantity > 49 AND l_discount = 0.1)",
		"SELECT (SELECT MAX(l_orderkey) FROM lineitem WHERE l_quantity > 1000) IS NULL",
		"WITH c AS (SELECT l_linenumber AS k, COUNT(DISTINCT l_suppkey) AS a, COUNT(*) AS n FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') GROUP BY l_linenumber) " +
			"SELECT k, a, n FROM c WHERE a > (SELECT AVG(a) FROM c) ORDER BY k",
		"SELECT o_orderpriority, COUNT(*) FROM orders WHERE o_totalprice > (SELECT AVG(o_totalprice) FROM orders) GROUP BY o_orderpriority ORDER BY 1",
	}
	for _, q := range queries {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	before := gpu.Stats().GPU.Launches
	plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+queries[0]), "\n")
	if after := gpu.Stats().GPU.Launches; after == before {
		t.Errorf("EXPLAIN of a query with a scalar subquery launched no kernel: its subquery ran on the host")
	}
	if !strings.Contains(plan, "subqueries run while planning: 1 on the gpu") {
		t.Errorf("EXPLAIN does not say that the subquery ran on the gpu:\n%s", plan)
	}
	// The subquery's errors are the CPU's.
	const many = "SELECT (SELECT l_orderkey FROM lineitem WHERE l_linenumber = 1)"
	errGPU, errCPU := queryErr(ctx, gpu, many), queryErr(ctx, cpu, many)
	if errGPU == nil || errCPU == nil || !strings.Contains(errGPU.Error(), "more than 1 row") || errGPU.Error() != errCPU.Error() {
		t.Errorf("a scalar subquery of several rows: GPU %v, CPU %v", errGPU, errCPU)
	}
}
