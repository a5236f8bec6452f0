//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/operators"
)

// tinyLaunches finds an EXPLAIN ANALYZE line's kernel launches.
var tinyLaunches = regexp.MustCompile(` launches=(\d+)`)

// TestGPUTinyOnHost runs joins, GROUP BYs and sorts over TPC-H-sized
// dimension tables (tinySetup) in strict GPU mode: their device
// operators, whose inputs are tiny, run on the host (EXPLAIN ANALYZE:
// host_join_rows=, host_group_rows=, host_order_rows=, and no launch on
// those lines), and with the bound at 0 on the device; both answer as the
// CPU backend does.
func TestGPUTinyOnHost(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	for _, db := range []*gsql.DB{gpu, cpu} {
		for _, q := range tinySetup() {
			mustExec(t, db, q)
		}
	}
	queries := tinyQueries
	for _, bound := range []int{-1, 0} {
		restore := func() {}
		if bound >= 0 {
			restore = operators.SetTinyRows(bound)
		}
		for _, q := range queries {
			requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
			lines := rowsOf(t, gpu, "EXPLAIN ANALYZE "+q)
			plan := strings.Join(lines, "\n")
			onHost := strings.Contains(plan, "host_join_rows=") || strings.Contains(plan, "host_order_rows=") || strings.Contains(plan, "host_group_rows=")
			if bound == 0 && onHost {
				t.Errorf("bound 0: %s: ran on the host:\n%s", q, plan)
			}
			if bound < 0 && !onHost {
				t.Errorf("%s: no tiny join or sort on the host:\n%s", q, plan)
			}
			for _, l := range lines {
				if !strings.Contains(l, "host_join_rows=") && !strings.Contains(l, "host_order_rows=") && !strings.Contains(l, "host_group_rows=") {
					continue
				}
				if m := tinyLaunches.FindStringSubmatch(l); m == nil || m[1] != "0" {
					t.Errorf("%s: a tiny operator launched kernels: %s", q, l)
				}
			}
			t.Logf("bound %d: %s\n%s", bound, q, plan)
		}
		restore()
	}
	// The first query's join and sort both run on the host, and the
	// GROUP BY over two joins too.
	for _, c := range []struct {
		q     string
		notes []string
	}{{queries[0], []string{"host_join_rows=", "host_order_rows="}}, {queries[5], []string{"host_join_rows=", "host_group_rows="}}} {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+c.q), "\n")
		for _, note := range c.notes {
			if !strings.Contains(plan, note) {
				t.Errorf("%s: no %s:\n%s", c.q, note, plan)
			}
		}
	}
}

// tinySetup creates and fills TPC-H-sized dimension tables: 6 regions, 25
// nations, 40 suppliers, with NULL and repeated keys.
func tinySetup() []string {
	setup := []string{
		`CREATE TABLE region (r_regionkey BIGINT, r_name VARCHAR(25))`,
		`CREATE TABLE nation (n_nationkey BIGINT, n_name VARCHAR(25), n_regionkey BIGINT)`,
		`CREATE TABLE supplier (s_suppkey BIGINT, s_name VARCHAR(25), s_nationkey BIGINT, s_acctbal DOUBLE)`,
		`INSERT INTO region VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDDLE EAST'), (NULL, 'NOWHERE')`,
	}
	var nations, suppliers []string
	for i := 0; i < 25; i++ {
		rk := fmt.Sprint(i % 5)
		if i%11 == 10 {
			rk = "NULL"
		}
		nations = append(nations, fmt.Sprintf("(%d, 'NATION%02d', %s)", i, (i*7)%25, rk))
	}
	for i := 0; i < 40; i++ {
		nk := fmt.Sprint((i * 3) % 27) // 25 and 26 match no nation
		if i%13 == 12 {
			nk = "NULL"
		}
		bal := fmt.Sprintf("%d.5", (i*37)%200-50)
		if i%9 == 8 {
			bal = "NULL"
		}
		suppliers = append(suppliers, fmt.Sprintf("(%d, 'Supplier#%03d', %s, %s)", i, i, nk, bal))
	}
	setup = append(setup, "INSERT INTO nation VALUES "+strings.Join(nations, ", "),
		"INSERT INTO supplier VALUES "+strings.Join(suppliers, ", "))
	return setup
}

// tinyQueries join, group and sort the tables of tinySetup.
var tinyQueries = []string{
	`SELECT n_name, r_name FROM nation JOIN region ON n_regionkey = r_regionkey ORDER BY n_name`,
	`SELECT n_name, r_name FROM nation LEFT JOIN region ON n_regionkey = r_regionkey ORDER BY r_name DESC, n_nationkey`,
	`SELECT n_name FROM nation WHERE EXISTS (SELECT 1 FROM supplier WHERE s_nationkey = n_nationkey AND s_acctbal > n_nationkey * 3) ORDER BY n_name`,
	`SELECT n_name FROM nation WHERE NOT EXISTS (SELECT 1 FROM supplier WHERE s_nationkey = n_nationkey AND s_acctbal > n_nationkey * 3) ORDER BY n_name`,
	`SELECT s_name, n_name FROM supplier JOIN nation ON s_nationkey = n_nationkey ORDER BY s_acctbal DESC NULLS LAST, s_name LIMIT 7`,
	`SELECT r_name, COUNT(*), SUM(s_acctbal) FROM supplier JOIN nation ON s_nationkey = n_nationkey JOIN region ON n_regionkey = r_regionkey GROUP BY r_name ORDER BY r_name`,
	`SELECT s_name, s_acctbal FROM supplier ORDER BY s_acctbal, s_name DESC`,
	`SELECT g.k, g.c, g.m, n_name FROM (SELECT s_nationkey k, COUNT(*) c, MAX(s_acctbal) m FROM supplier GROUP BY s_nationkey) g JOIN nation ON g.k = n_nationkey ORDER BY n_name`,
}

// BenchmarkGPUTinyQueries times tinyQueries warm in strict GPU mode with
// the tiny operators on the host (host) and on the device (device: the
// bound at 0), so that the fixed costs they save can be read per query.
func BenchmarkGPUTinyQueries(b *testing.B) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	for _, q := range tinySetup() {
		if _, err := gpu.Exec(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
	for i, q := range tinyQueries {
		for _, mode := range []string{"host", "device"} {
			b.Run(fmt.Sprintf("q%d/%s", i, mode), func(b *testing.B) {
				if mode == "device" {
					defer operators.SetTinyRows(0)()
				}
				rowsOf(b, gpu, q) // warm: compiles, resident tables
				b.ResetTimer()
				for n := 0; n < b.N; n++ {
					rowsOf(b, gpu, q)
				}
			})
		}
	}
}
