package gsql_test

import (
	"context"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// fairQueries are the large query and the small ones TestGPUFairLargeAndSmall
// and BenchmarkSmallQueryUnderLoad run: the large one reads every row of
// people, the small ones the few rows of few.
var (
	fairLarge = []string{
		"SELECT visibility, COUNT(*), MIN(name), MAX(name), SUM(LENGTH(name)) FROM people GROUP BY visibility ORDER BY visibility",
		"SELECT CASE WHEN visibility = 'public' THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) ELSE 'X X' END AS r, COUNT(*) FROM people GROUP BY r ORDER BY 2 DESC, 1 LIMIT 20",
	}
	fairSmall = []string{
		"SELECT COUNT(*), MIN(name), MAX(name) FROM few WHERE visibility = 'public'",
		"SELECT UPPER(name) AS u FROM few WHERE name LIKE 'A%' ORDER BY u LIMIT 5",
		"SELECT visibility, COUNT(*) FROM few GROUP BY visibility ORDER BY visibility",
		"SELECT SUM(LENGTH(name)) FROM few WHERE name IS NOT NULL",
	}
)

// openFair opens a database with people (large rows) and few (small rows)
// on device, skipping where a GPU database cannot be opened.
func openFair(t testing.TB, opts gsql.Options, large, small int) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(opts)
	if err != nil {
		t.Skipf("open %+v: %v", opts, err)
	}
	t.Cleanup(func() { db.Close() })
	for _, tb := range []struct {
		name string
		rows int
		seed int64
	}{{"people", large, 42}, {"few", small, 7}} {
		schema, recs := datagen.People(tb.rows, tb.seed)
		if err := db.RegisterTable(tb.name, schema, recs); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// BenchmarkSmallQueryUnderLoad measures the latency of small queries
// while large ones keep the device busy (GSQL_FAIR_DEVICE: gpu, auto,
// the default, or cpu), beside the same small queries alone: the figure
// fair scheduling (the context thread taken in turn, admission by
// shares of device memory) is for. It reports p50 and p99 of the small
// queries in ms; each iteration is one small query.
func BenchmarkSmallQueryUnderLoad(b *testing.B) {
	device := os.Getenv("GSQL_FAIR_DEVICE")
	if device == "" {
		device = "auto"
	}
	db := openFair(b, gsql.Options{Device: device, AutoGPUMinRows: -1}, 4_000_000, 5_000)
	for _, load := range []int{0, 2} {
		b.Run(map[int]string{0: "alone", 2: "two-large"}[load], func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for i := 0; i < load; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := 0; ctx.Err() == nil; r++ {
						if _, err := queryText(ctx, db, fairLarge[(i+r)%len(fairLarge)]); err != nil && ctx.Err() == nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			for _, q := range fairSmall { // warm: compiles are not the figure
				if _, err := queryText(ctx, db, q); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := queryText(ctx, db, fairSmall[i%len(fairSmall)]); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			ms := func(q float64) float64 {
				return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}

// queryText runs q and renders its rows as rowsOf does, one line each.
func queryText(ctx context.Context, db *gsql.DB, q string) (string, error) {
	rdr, err := db.Query(ctx, q)
	if err != nil {
		return "", err
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				col := rec.Column(c)
				if col.IsNull(i) {
					parts[c] = "NULL"
				} else {
					parts[c] = strings.Clone(col.ValueStr(i))
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	return strings.Join(out, "\n"), rdr.Err()
}
