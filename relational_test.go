package gsql_test

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"
	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// relationalQueries are GROUP BY and join queries over datagen.Orders,
// run on the CPU and the GPU backends and compared. ordered: the output
// order is defined (first-appearance group order, or ORDER BY) and must
// match too.
var relationalQueries = []struct {
	sql     string
	ordered bool
	empty   bool // the result is empty by design
}{
	{"SELECT region, COUNT(*), SUM(qty), AVG(amount), MIN(amount), MAX(qty) FROM orders GROUP BY region", true, false},
	{"SELECT customer, COUNT(region), SUM(amount), MIN(region), MAX(region) FROM orders GROUP BY customer", true, false},
	{"SELECT express, region, COUNT(*), SUM(qty) FROM orders GROUP BY express, region", true, false},
	{"SELECT SUBSTRING(region, 1, 3) AS p, COUNT(*), AVG(qty), MIN(express), MAX(express) FROM orders WHERE amount > 0 GROUP BY p", true, false},
	{"SELECT qty % 7, COUNT(*) FROM orders GROUP BY qty % 7 HAVING COUNT(*) > 10", true, false},
	{"SELECT amount, COUNT(*) FROM orders WHERE qty = 3 GROUP BY amount", true, false},
	{"SELECT COUNT(*), COUNT(customer), SUM(qty), AVG(amount), MIN(region), MAX(amount) FROM orders", true, false},
	{"SELECT COUNT(*), SUM(qty), MIN(region) FROM orders WHERE qty > 1000", true, false},
	{"SELECT region, COUNT(*) FROM orders WHERE qty > 1000 GROUP BY region", true, true},
	{"SELECT UPPER(region) AS r, SUM(qty) FROM orders GROUP BY r ORDER BY r", true, false},
	{"SELECT o.id, c.name, c.city FROM orders o JOIN customers c ON o.customer = c.id", true, false},
	{"SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON o.customer = c.id", false, false},
	{"SELECT o.region, c.city, o.qty FROM orders o JOIN customers c ON SUBSTRING_INDEX(o.region, '-', -1) = c.city WHERE o.qty = 7", true, false},
	{"SELECT o.id, c.name, c.code FROM orders o JOIN customers c ON o.ccode = c.code", true, false},
	{"SELECT o.id, c.id FROM orders o JOIN customers c ON o.customer = c.id AND o.qty > c.discount * 100", true, false},
	{"SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer + 1 = c.id", true, false},
	{"SELECT c.city, COUNT(*), SUM(o.amount * (1 - c.discount)) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.city", true, false},
	{"SELECT c.city, COUNT(o.id) FROM customers c LEFT JOIN orders o ON o.customer = c.id AND o.region = c.city GROUP BY c.city", false, false},
	{"SELECT COUNT(*) FROM orders o JOIN customers c USING (id)", true, false},
	{"SELECT region, COUNT(DISTINCT customer), SUM(DISTINCT qty), AVG(DISTINCT qty), MIN(DISTINCT amount), MAX(DISTINCT ccode), COUNT(*), SUM(qty) FROM orders GROUP BY region", true, false},
	{"SELECT COUNT(DISTINCT region), COUNT(DISTINCT LOWER(region)), SUM(DISTINCT amount), MAX(DISTINCT express), COUNT(DISTINCT customer) FROM orders", true, false},
	{"SELECT express, COUNT(DISTINCT ccode) FROM orders WHERE qty > 1000 GROUP BY express", true, true},
	{"SELECT COUNT(DISTINCT customer), SUM(DISTINCT qty) FROM orders WHERE qty > 1000", true, false},
	{"SELECT COUNT(DISTINCT region), COUNT(DISTINCT LOWER(region)), COUNT(DISTINCT customer), COUNT(*), SUM(qty), MIN(ccode) FROM orders", true, false},
	{"SELECT COUNT(DISTINCT CASE WHEN qty > 500 THEN region END), COUNT(DISTINCT CASE WHEN express THEN amount END) FROM orders WHERE customer > 100", true, false},
	{"SELECT c.city, COUNT(DISTINCT o.customer), COUNT(DISTINCT o.region) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.city", true, false},
}

func relationalDB(t testing.TB, device string, rows, customers int) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: device})
	if err != nil {
		t.Skipf("device %s: %v", device, err)
	}
	os, orecs, cs, crecs := datagen.Orders(rows, customers, 7)
	if err := db.RegisterTable("orders", os, orecs); err != nil {
		t.Fatal(err)
	}
	if err := db.RegisterTable("customers", cs, crecs); err != nil {
		t.Fatal(err)
	}
	return db
}

// sameRow compares two rendered rows, DOUBLE cells within a relative
// 1e-9: the GPU adds DOUBLE sums in its own order.
func sameRow(a, b string) bool {
	if a == b {
		return true
	}
	ac, bc := strings.Split(a, "|"), strings.Split(b, "|")
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		if ac[i] == bc[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(ac[i], 64)
		y, err2 := strconv.ParseFloat(bc[i], 64)
		if err1 != nil || err2 != nil || math.Abs(x-y) > 1e-9*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) {
			return false
		}
	}
	return true
}

// floatRows reads a result with DOUBLE cells in shortest form.
func floatRows(t *testing.T, db *gsql.DB, q string) []string {
	t.Helper()
	rdr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				col := rec.Column(c)
				switch {
				case col.IsNull(i):
					parts[c] = "NULL"
				default:
					if f, ok := col.(*array.Float64); ok {
						parts[c] = strconv.FormatFloat(f.Value(i), 'g', -1, 64)
					} else {
						parts[c] = strings.Clone(col.ValueStr(i)) // the record's memory is reused once released
					}
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestRelationalGPUMatchesCPU runs GROUP BY and join queries on both
// backends (the GPU side is skipped without a GPU) and checks that the
// GPU plans put them on the device.
func TestRelationalGPUMatchesCPU(t *testing.T) {
	rows, cust := 300_000, 20_000
	if testing.Short() {
		rows, cust = 20_000, 2_000
	}
	gpu := relationalDB(t, "gpu", rows, cust)
	defer gpu.Close()
	cpu := relationalDB(t, "cpu", rows, cust)
	defer cpu.Close()
	for _, q := range relationalQueries {
		want := floatRows(t, cpu, q.sql)
		got := floatRows(t, gpu, q.sql)
		if !q.ordered {
			sort.Strings(want)
			sort.Strings(got)
		}
		if len(want) == 0 && !q.empty {
			t.Fatalf("%s: no rows on the CPU: the test data misses this case", q.sql)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: GPU %d rows, CPU %d", q.sql, len(got), len(want))
		}
		for i := range want {
			if !sameRow(got[i], want[i]) {
				t.Fatalf("%s: row %d: GPU %q, CPU %q", q.sql, i, got[i], want[i])
			}
		}
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q.sql), "\n")
		if !strings.Contains(plan, "on the gpu") && !strings.Contains(plan, "gpu hash table") {
			t.Errorf("%s: not placed on the GPU:\n%s", q.sql, plan)
		}
		t.Logf("%d rows: %s", len(got), q.sql)
	}
}

// BenchmarkRelational: GROUP BY on a string key and a hash join at 10M
// rows (1M customers), warm (tables resident on the GPU), on each backend:
//
//	go test -run '^$' -bench Relational -benchtime 5x .
//
// The GPU side needs a cuda build on a GPU machine; elsewhere it skips.
func BenchmarkRelational(b *testing.B) {
	queries := []struct{ name, sql string }{
		{"groupby_string", "SELECT region, COUNT(*), SUM(qty), AVG(amount) FROM orders GROUP BY region"},
		{"groupby_int", "SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer"},
		{"join_int", "SELECT COUNT(*), SUM(c.discount) FROM orders o JOIN customers c ON o.customer = c.id"},
		{"join_string", "SELECT COUNT(*), SUM(o.qty) FROM orders o JOIN customers c ON o.ccode = c.code"},
		{"join_groupby", "SELECT c.city, COUNT(*), SUM(o.amount) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.city"},
	}
	rows, cust := 10_000_000, 1_000_000
	if testing.Short() {
		rows, cust = 1_000_000, 100_000
	}
	for _, device := range []string{"cpu", "gpu"} {
		b.Run("device="+device, func(b *testing.B) {
			db := relationalDB(b, device, rows, cust)
			defer db.Close()
			ctx := context.Background()
			for _, q := range queries {
				b.Run(q.name, func(b *testing.B) {
					run := func() {
						rdr, err := db.Query(ctx, q.sql)
						if err != nil {
							b.Fatal(err)
						}
						for rdr.Next() {
						}
						if err := rdr.Err(); err != nil {
							b.Fatal(err)
						}
						rdr.Release()
					}
					run() // warm: table resident, kernels compiled
					if b.N == 1 {
						for _, line := range rowsOf(b, db, "EXPLAIN ANALYZE "+q.sql) {
							b.Logf("%s", line)
						}
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						run()
					}
					b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
				})
			}
		})
	}
}
