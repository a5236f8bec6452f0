//go:build cuda

package gsql_test

import (
	"context"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// TestGPUCTEComputedOnce: on a GPU database a CTE read by the plan and by
// subqueries run while planning (scalar, IN) is computed once: the body's
// answers are the CPU's, EXPLAIN ANALYZE shows the body once, and the
// result is no table: none is added, and the device table cache adopts
// none.
func TestGPUCTEComputedOnce(t *testing.T) {
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
	c := "WITH c AS (SELECT l_linenumber AS k, COUNT(DISTINCT l_suppkey) AS a, COUNT(*) AS n FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') GROUP BY l_linenumber) "
	queries := []string{
		c + "SELECT k, a, n FROM c WHERE a > (SELECT AVG(a) FROM c) ORDER BY k",
		c + "SELECT x.k, y.k FROM c x JOIN c y ON x.k = y.k + 1 ORDER BY 1",
		c + "SELECT k FROM c WHERE k IN (SELECT k FROM c ORDER BY n DESC LIMIT 3) ORDER BY k",
		"WITH c AS (SELECT o_custkey, SUM(o_totalprice) AS s FROM orders GROUP BY o_custkey) SELECT COUNT(*) FROM c WHERE s > (SELECT AVG(s) FROM c)",
	}
	tablesBefore, adoptedBefore := gpu.Stats().Tables, gpu.Stats().Cache.Adopted
	for _, q := range queries {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n")
		if strings.Count(plan, "materialized, used") != 1 {
			t.Errorf("%s: the materialized CTE shows %d times in\n%s", q, strings.Count(plan, "materialized, used"), plan)
		}
		t.Logf("%s\n%s", q, plan)
	}
	if st := gpu.Stats(); st.Tables != tablesBefore || st.Cache.Adopted != adoptedBefore {
		t.Errorf("CTE statements left tables behind: %d tables (were %d), %d adopted by the device cache (were %d)", st.Tables, tablesBefore, st.Cache.Adopted, adoptedBefore)
	}
}
