package gsql_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	gsql "github.com/gsqlengine/gsql"
)

// decimalText is r rounded half away from zero to 4 digits (AVG of an
// integer), trailing zeros trimmed as rowsOf prints decimals.
func decimalText(r *big.Rat) string {
	scaled := new(big.Rat).Mul(r, big.NewRat(10000, 1))
	q, m := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(scaled.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	neg := q.Sign() < 0
	s := new(big.Int).Abs(q).String()
	for len(s) < 5 {
		s = "0" + s
	}
	s = strings.TrimRight(strings.TrimRight(s[:len(s)-4]+"."+s[len(s)-4:], "0"), ".")
	if neg {
		s = "-" + s
	}
	return s
}

// AVG of a BIGINT is exact (a DECIMAL with 4 more digits), on every
// path: whole table and by group, over sums far past 64 bits, with
// NULLs, on a table large enough for the parallel aggregate (which
// widens the integers in the sum instead of casting each row).
func TestAvgOfBigintIsExact(t *testing.T) {
	const n = 300_000
	rng := rand.New(rand.NewSource(7))
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "g", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	sums := map[int64]*big.Int{}
	counts := map[int64]int64{}
	total, count := new(big.Int), int64(0)
	for i := 0; i < n; i++ {
		g := int64(i % 5)
		b.Field(1).(*array.Int64Builder).Append(g)
		if i%11 == 0 {
			b.Field(0).(*array.Int64Builder).AppendNull()
			continue
		}
		var x int64
		switch g {
		case 0: // near the top of BIGINT: the sum passes 2^63 at once
			x = 1<<63 - 1 - rng.Int63n(1000)
		case 1: // near the bottom
			x = -1<<63 + rng.Int63n(1000)
		case 2: // mixed signs, large
			x = rng.Int63() - 1<<62
		default:
			x = rng.Int63n(2000) - 1000
		}
		b.Field(0).(*array.Int64Builder).Append(x)
		if sums[g] == nil {
			sums[g] = new(big.Int)
		}
		sums[g].Add(sums[g], big.NewInt(x))
		counts[g]++
		total.Add(total, big.NewInt(x))
		count++
	}
	rec := b.NewRecord()
	defer rec.Release()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	if err := db.RegisterTable("t", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if got, want := rowsOf(t, db, "SELECT AVG(x) FROM t"), decimalText(new(big.Rat).SetFrac(total, big.NewInt(count))); len(got) != 1 || got[0] != want {
		t.Errorf("AVG(x): %v, want %s", got, want)
	}
	got := rowsOf(t, db, "SELECT g, AVG(x), COUNT(x) FROM t GROUP BY g ORDER BY g")
	for g := int64(0); g < 5; g++ {
		want := fmt.Sprintf("%d|%s|%d", g, decimalText(new(big.Rat).SetFrac(sums[g], big.NewInt(counts[g]))), counts[g])
		if int(g) >= len(got) || got[g] != want {
			t.Errorf("group %d: %v, want %q", g, got, want)
		}
	}
	// A filter below (the parallel compute) and an expression argument.
	if got := rowsOf(t, db, "SELECT AVG(x) FROM t WHERE g = 3"); len(got) != 1 || got[0] != decimalText(new(big.Rat).SetFrac(sums[3], big.NewInt(counts[3]))) {
		t.Errorf("AVG(x) WHERE g = 3: %v", got)
	}
}
