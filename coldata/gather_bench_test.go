package coldata

import (
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/decimal"
)

// BenchmarkGather gathers a 64Ki-row batch's DECIMAL and one-letter
// VARCHAR columns (TPC-H Q1's prices and flags), and a VARCHAR of 6 to 25
// bytes (TPC-H's p_type), through a dense selection (a filter keeping
// 98% of the rows), a sparse one (2%) and a permutation (a sort's order):
//
//	go test -run '^$' -bench Gather ./coldata/
func BenchmarkGather(b *testing.B) {
	const n = 1 << 16
	r := rand.New(rand.NewSource(1))
	dec := NewVec(DecimalOf(15, 2), n)
	sb, tb := NewBuilder(String, n), NewBuilder(String, n)
	words := []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO", "ANODIZED", "BURNISHED", "TIN", "BRASS"}
	for i := 0; i < n; i++ {
		dec.Decs[i] = decimal.FromInt64(r.Int63n(1e7))
		sb.AppendString(string(rune('A' + r.Intn(3))))
		w := words[r.Intn(len(words))]
		for k := r.Intn(3); k > 0; k-- {
			w += " " + words[r.Intn(len(words))]
		}
		tb.AppendString(w)
	}
	str, text := sb.Finish(), tb.Finish()
	var dense, sparse []int
	for i := 0; i < n; i++ {
		if r.Intn(50) != 0 {
			dense = append(dense, i)
		} else {
			sparse = append(sparse, i)
		}
	}
	perm := r.Perm(n)
	for _, c := range []struct {
		name string
		sel  []int
	}{{"dense", dense}, {"sparse", sparse}, {"perm", perm}} {
		for _, v := range []struct {
			name string
			v    *Vec
		}{{"decimal", dec}, {"varchar", str}, {"text", text}} {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					Gather(v.v, c.sel)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.sel)), "ns/row")
			})
		}
	}
}
