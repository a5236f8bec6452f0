package expr

import (
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Benchmarks of DECIMAL arithmetic as TPC-H Q1 computes it, a batch of
// 64Ki rows (the CPU operators' batch) at a time over 1Mi rows:
//
//	go test -run '^$' -bench DecimalQ1 ./expr/

const decBenchBatch = 1 << 16

// decBenchBatches returns 1Mi rows of l_extendedprice, l_discount and
// l_tax (DECIMAL(15,2), TPC-H's value ranges) as batches.
func decBenchBatches() []*coldata.Batch {
	r := rand.New(rand.NewSource(1))
	t := coldata.DecimalOf(15, 2)
	var out []*coldata.Batch
	for k := 0; k < scBenchRows/decBenchBatch; k++ {
		price, disc, tax := coldata.NewVec(t, decBenchBatch), coldata.NewVec(t, decBenchBatch), coldata.NewVec(t, decBenchBatch)
		for i := 0; i < decBenchBatch; i++ {
			price.Decs[i] = decimal.FromInt64(90000 + r.Int63n(10_400_000))
			disc.Decs[i] = decimal.FromInt64(r.Int63n(11))
			tax.Decs[i] = decimal.FromInt64(r.Int63n(9))
		}
		out = append(out, coldata.NewBatch([]*coldata.Vec{price, disc, tax}, decBenchBatch))
	}
	return out
}

func decBenchCall(b *testing.B, name string, args ...Expr) Expr {
	b.Helper()
	e, err := NewCall(scFn(b, name), args)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkDecimalQ1(b *testing.B) {
	t := coldata.DecimalOf(15, 2)
	price := &ColumnRef{Index: 0, Name: "price", T: t}
	disc := &ColumnRef{Index: 1, Name: "disc", T: t}
	tax := &ColumnRef{Index: 2, Name: "tax", T: t}
	one := &Literal{Value: int64(1), T: coldata.Int64}
	discPrice := decBenchCall(b, "*", price, decBenchCall(b, "-", one, disc))
	charge := decBenchCall(b, "*", discPrice, decBenchCall(b, "+", one, tax))
	batches := decBenchBatches()
	for _, c := range []struct {
		name string
		e    Expr
	}{
		{"one-minus", decBenchCall(b, "-", one, disc)},
		{"price-times-disc", decBenchCall(b, "*", price, disc)},
		{"disc_price", discPrice},
		{"charge", charge},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, bt := range batches {
					if _, err := Eval(c.e, bt); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scBenchRows, "ns/row")
		})
	}
}

// BenchmarkDecimalCompareConst is TPC-H Q6's l_discount >= 0.05 over
// 1Mi random discounts (0.00 to 0.10): a third of the rows hold.
func BenchmarkDecimalCompareConst(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	x := make([]decimal.Int128, scBenchRows)
	for i := range x {
		x[i] = decimal.FromInt64(r.Int63n(11))
	}
	out := make([]byte, scBenchRows)
	for _, op := range []cmpOp{cmpGE, cmpLT} {
		b.Run(cmpNames[op], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmpDecimalsVC(op, x, decimal.FromInt64(5), out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scBenchRows, "ns/row")
		})
	}
}

// BenchmarkDecimalQ1Program evaluates Q1's two computed sums,
// l_extendedprice*(1-l_discount) and that times (1+l_tax), as one Program
// (the product shared, intermediate buffers recycled): compare with the
// sum of DecimalQ1's disc_price and charge, one Eval each.
func BenchmarkDecimalQ1Program(b *testing.B) {
	t := coldata.DecimalOf(15, 2)
	price := &ColumnRef{Index: 0, Name: "price", T: t}
	disc := &ColumnRef{Index: 1, Name: "disc", T: t}
	tax := &ColumnRef{Index: 2, Name: "tax", T: t}
	one := &Literal{Value: int64(1), T: coldata.Int64}
	discPrice := decBenchCall(b, "*", price, decBenchCall(b, "-", one, disc))
	charge := decBenchCall(b, "*", discPrice, decBenchCall(b, "+", one, tax))
	p := NewProgram([]Expr{discPrice, charge})
	batches := decBenchBatches()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, bt := range batches {
			if _, err := p.Eval(bt); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scBenchRows, "ns/row")
}

// q6Batches returns 1Mi rows of l_shipdate (days, 1992-01-02 to
// 1998-12-01), l_discount (0.00 to 0.10) and l_quantity (1 to 50), both
// DECIMAL(15,2), in batches of decBenchBatch rows.
func q6Batches() []*coldata.Batch {
	r := rand.New(rand.NewSource(6))
	t := coldata.DecimalOf(15, 2)
	var out []*coldata.Batch
	for k := 0; k < scBenchRows/decBenchBatch; k++ {
		ship := coldata.NewVec(coldata.Date, decBenchBatch)
		disc, qty := coldata.NewVec(t, decBenchBatch), coldata.NewVec(t, decBenchBatch)
		for i := 0; i < decBenchBatch; i++ {
			ship.Ints[i] = 8036 + r.Int63n(2526)
			disc.Decs[i] = decimal.FromInt64(r.Int63n(11))
			qty.Decs[i] = decimal.FromInt64(100 * (1 + r.Int63n(50)))
		}
		out = append(out, coldata.NewBatch([]*coldata.Vec{ship, disc, qty}, decBenchBatch))
	}
	return out
}

// BenchmarkQ6Filter evaluates TPC-H Q6's predicate as a filter's Program
// does: l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE
// '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24,
// the mask recycled after each batch.
func BenchmarkQ6Filter(b *testing.B) {
	t := coldata.DecimalOf(15, 2)
	ship := &ColumnRef{Index: 0, Name: "l_shipdate", T: coldata.Date}
	disc := &ColumnRef{Index: 1, Name: "l_discount", T: t}
	qty := &ColumnRef{Index: 2, Name: "l_quantity", T: t}
	dec := func(v int64, p, s int) Expr { return &Literal{Value: decimal.FromInt64(v), T: coldata.DecimalOf(p, s)} }
	day := func(d int64) Expr { return &Literal{Value: d, T: coldata.Date} }
	and := func(x, y Expr) Expr { return decBenchCall(b, "and", x, y) }
	pred := and(and(
		and(decBenchCall(b, ">=", ship, day(8766)), decBenchCall(b, "<", ship, day(9131))),
		and(decBenchCall(b, ">=", disc, dec(5, 3, 2)), decBenchCall(b, "<=", disc, dec(7, 3, 2)))),
		decBenchCall(b, "<", qty, dec(2400, 4, 2)))
	p := NewProgram([]Expr{pred})
	batches := q6Batches()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, bt := range batches {
			res, err := p.Eval(bt)
			if err != nil {
				b.Fatal(err)
			}
			coldata.RecycleUnshared(res, bt.Cols)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scBenchRows, "ns/row")
}

// BenchmarkDecimalQ1Recycled is DecimalQ1Program with the outputs given
// back after each batch too (as the aggregate that reads them lets go),
// so that it measures the kernels rather than fresh memory.
func BenchmarkDecimalQ1Recycled(b *testing.B) {
	t := coldata.DecimalOf(15, 2)
	price := &ColumnRef{Index: 0, Name: "price", T: t}
	disc := &ColumnRef{Index: 1, Name: "disc", T: t}
	tax := &ColumnRef{Index: 2, Name: "tax", T: t}
	one := &Literal{Value: int64(1), T: coldata.Int64}
	discPrice := decBenchCall(b, "*", price, decBenchCall(b, "-", one, disc))
	charge := decBenchCall(b, "*", discPrice, decBenchCall(b, "+", one, tax))
	for _, c := range []struct {
		name  string
		exprs []Expr
	}{
		{"one-minus", []Expr{decBenchCall(b, "-", one, disc)}},
		{"price-times-disc", []Expr{decBenchCall(b, "*", price, disc)}},
		{"q1", []Expr{discPrice, charge}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := NewProgram(c.exprs)
			batches := decBenchBatches()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, bt := range batches {
					res, err := p.Eval(bt)
					if err != nil {
						b.Fatal(err)
					}
					coldata.RecycleUnshared(res, bt.Cols)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scBenchRows, "ns/row")
		})
	}
}
