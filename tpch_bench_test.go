package gsql_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// BenchmarkTPCH runs each of the 22 TPC-H queries on the CPU backend at
// scale factor TPCH_BENCH_SF (default 0.1), on the database TestTPCH
// shares, so a profile of one query is
//
//	TPCH_BENCH_SF=1 go test -run '^$' -bench 'TPCH/q09' -benchtime 3x -cpuprofile cpu.out .
//
// Each query runs once untimed first. The plan cache binds uncorrelated
// subqueries as literals after that run, as it does in bench/.
func BenchmarkTPCH(b *testing.B) {
	sf := 0.1
	if s := os.Getenv("TPCH_BENCH_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("TPCH_BENCH_SF=%q: %v", s, err)
		}
		sf = v
	}
	db := tpchDatabase(b, sf)
	ctx := context.Background()
	for n := 1; n <= queries.Count; n++ {
		b.Run(fmt.Sprintf("q%02d", n), func(b *testing.B) {
			if _, err := runTPCH(ctx, db, n); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := runTPCH(ctx, db, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
