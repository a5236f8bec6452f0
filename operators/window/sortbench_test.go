package window

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// BenchmarkSortRows sorts 612K rows by a partition key of 300 values and
// a random 64-bit order key (the random suite's r012 at 1M hits): the
// partitions sorted one by one against one radix sort over every row.
func BenchmarkSortRows(b *testing.B) {
	const n = 612000
	rng := rand.New(rand.NewSource(1))
	pb, ob := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		pb.AppendInt(int64(rng.Intn(300)))
		ob.AppendInt(rng.Int63())
	}
	pv, ov := []*coldata.Vec{pb.Finish()}, []*coldata.Vec{ob.Finish()}
	keys := sortKeys(pv, ov, []winspec.Key{{}})
	perm := make([]int, n)
	for _, mode := range []string{"segmented", "whole"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j := range perm {
					perm[j] = j
				}
				if mode == "whole" {
					radixSortRows(context.Background(), perm, keys)
				} else {
					sortRows(context.Background(), perm, keys, 1)
				}
			}
		})
	}
}

// BenchmarkPartitionGroupCounts is issue 40's shape a: ROW_NUMBER() OVER
// (PARTITION BY day ORDER BY count DESC, counter) over a GROUP BY's
// 292K (day, counter, count) rows, counts small with many ties.
func BenchmarkPartitionGroupCounts(b *testing.B) {
	const n = 292651
	rng := rand.New(rand.NewSource(2))
	db, kb, cb := coldata.NewBuilder(coldata.Date, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		db.AppendInt(int64(15887 + rng.Intn(31)))
		kb.AppendInt(int64(rng.Intn(1 << 20)))
		cb.AppendInt(int64(1 + rng.ExpFloat64()*20))
	}
	batch := coldata.NewBatch([]*coldata.Vec{db.Finish(), kb.Finish(), cb.Finish()}, n)
	partition := []expr.Expr{&expr.ColumnRef{Index: 0, Name: "d", T: coldata.Date}}
	order := []winspec.Key{{Expr: &expr.ColumnRef{Index: 2, Name: "c", T: coldata.Int64}, Desc: true},
		{Expr: &expr.ColumnRef{Index: 1, Name: "k", T: coldata.Int64}}}
	for i := 0; i < b.N; i++ {
		if _, err := newPartitioned(context.Background(), batch, partition, order); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPartitionOnly is COUNT(*) OVER (PARTITION BY region) over a
// 1.5M-row join (the random suite's seed 8 r030): one small partition
// key, no order.
func BenchmarkPartitionOnly(b *testing.B) {
	const n = 1_500_000
	rng := rand.New(rand.NewSource(3))
	pb := coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		pb.AppendInt(int64(rng.Intn(5)))
	}
	batch := coldata.NewBatch([]*coldata.Vec{pb.Finish()}, n)
	partition := []expr.Expr{&expr.ColumnRef{Index: 0, Name: "r", T: coldata.Int64}}
	for i := 0; i < b.N; i++ {
		if _, err := newPartitioned(context.Background(), batch, partition, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPartitionAggregate is COUNT(*) and SUM(x) OVER (PARTITION BY
// k) over 1M rows, hashed against sorted, for a key of 5 values (issue
// 40's region) and one of 100K values.
func BenchmarkPartitionAggregate(b *testing.B) {
	const n = 1_000_000
	ctx := context.Background()
	for _, card := range []int{5, 100_000} {
		rng := rand.New(rand.NewSource(4))
		kb, xb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			kb.AppendInt(int64(rng.Intn(card)))
			xb.AppendInt(int64(rng.Intn(1000)))
		}
		batch := coldata.NewBatch([]*coldata.Vec{kb.Finish(), xb.Finish()}, n)
		part := []expr.Expr{&expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}}
		frame := winspec.DefaultFrame(false)
		funcs := []winspec.Func{
			{Kind: winspec.CountStar, Partition: part, Frame: frame, Type: coldata.Int64},
			{Kind: winspec.Sum, Args: []expr.Expr{&expr.ColumnRef{Index: 1, Name: "x", T: coldata.Int64}}, Partition: part,
				Frame: frame, Type: coldata.Int64},
		}
		b.Run(fmt.Sprintf("keys=%d/hashed", card), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Compute(ctx, batch, funcs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("keys=%d/sorted", card), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := newPartitioned(ctx, batch, part, nil)
				if err != nil {
					b.Fatal(err)
				}
				for j := range funcs {
					if _, err := p.compute(ctx, batch, &funcs[j]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkPartitionTextKeys is the random suite's r002 (seed 211) at
// SF10: ROW_NUMBER() OVER (PARTITION BY r_name ORDER BY c_acctbal DESC,
// o_custkey, o_orderstatus) over 1.58M joined rows: a text partition key
// of 4 values, a DECIMAL, a BIGINT and a one-character text order key,
// which the device window sorts on the host (1.16 s on the H200 host).
func BenchmarkPartitionTextKeys(b *testing.B) {
	n := 1_583_160
	if testing.Short() {
		n = 100_000
	}
	rng := rand.New(rand.NewSource(3))
	regions := []string{"AFRICA", "AMERICA", "EUROPE", "MIDDLE EAST"}
	rb, ab := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.DecimalOf(15, 2), n)
	kb, sb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		rb.AppendString(regions[rng.Intn(4)])
		ab.AppendDec(decimal.FromInt64(int64(rng.Intn(1_099_999)) - 99_999))
		kb.AppendInt(int64(rng.Intn(1_500_000)))
		sb.AppendString([]string{"F", "O", "P"}[rng.Intn(3)])
	}
	batch := coldata.NewBatch([]*coldata.Vec{rb.Finish(), ab.Finish(), kb.Finish(), sb.Finish()}, n)
	partition := []expr.Expr{&expr.ColumnRef{Index: 0, Name: "r", T: coldata.String}}
	order := []winspec.Key{{Expr: &expr.ColumnRef{Index: 1, Name: "a", T: coldata.DecimalOf(15, 2)}, Desc: true},
		{Expr: &expr.ColumnRef{Index: 2, Name: "k", T: coldata.Int64}},
		{Expr: &expr.ColumnRef{Index: 3, Name: "s", T: coldata.String}}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := newPartitioned(context.Background(), batch, partition, order); err != nil {
			b.Fatal(err)
		}
	}
}
