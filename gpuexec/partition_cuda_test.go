//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestCUDAPartitionRows reorders rows by the hash partition of their keys
// (a BIGINT and a VARCHAR, with NULLs): the bounds cover every row, the
// row column is a permutation plus the base, ascending within each
// partition, each row is the input row it names, and equal keys share a
// partition.
func TestCUDAPartitionRows(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(23))
	for _, c := range []struct{ n, parts int }{{1, 2}, {1000, 4}, {200_000, 16}, {300_000, 256}} {
		kb, sb, pb := coldata.NewBuilder(coldata.Int64, c.n), coldata.NewBuilder(coldata.String, c.n), coldata.NewBuilder(coldata.Float64, c.n)
		for i := 0; i < c.n; i++ {
			if r.Intn(20) == 0 {
				kb.AppendNull()
			} else {
				kb.AppendInt(int64(r.Intn(300)))
			}
			if r.Intn(15) == 0 {
				sb.AppendNull()
			} else {
				sb.AppendString(fmt.Sprintf("key-%d", r.Intn(40)))
			}
			pb.AppendFloat(r.NormFloat64())
		}
		hb := coldata.NewBatch([]*coldata.Vec{kb.Finish(), sb.Finish(), pb.Finish()}, c.n)
		in, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		const base = 1_000
		pr, err := d.PartitionRows(ctx, in, []int{0, 1}, c.parts, base)
		in.Release()
		if err != nil {
			t.Fatalf("%d rows: %v", c.n, err)
		}
		got, err := d.Download(ctx, pr.Batch)
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Bounds) != c.parts+1 || pr.Bounds[0] != 0 || pr.Bounds[c.parts] != c.n || len(got.Cols) != 4 {
			t.Fatalf("%d rows: bounds %v, %d columns", c.n, pr.Bounds, len(got.Cols))
		}
		idx := make([]int, c.n)
		seen := make([]bool, c.n)
		partOf := map[string]int{}
		for p := 0; p < c.parts; p++ {
			if pr.Bounds[p+1] < pr.Bounds[p] {
				t.Fatalf("bounds %v", pr.Bounds)
			}
			for i := pr.Bounds[p]; i < pr.Bounds[p+1]; i++ {
				row := int(got.Cols[3].Int(i)) - base
				if row < 0 || row >= c.n || seen[row] {
					t.Fatalf("%d rows: row column %d at %d", c.n, row, i)
				}
				if i > pr.Bounds[p] && row < idx[i-1] {
					t.Fatalf("%d rows: partition %d out of input order at %d", c.n, p, i)
				}
				seen[row], idx[i] = true, row
				key := fmt.Sprint(hb.Cols[0].IsNull(row), hb.Cols[0].Value(row), hb.Cols[1].IsNull(row), hb.Cols[1].Value(row))
				if q, ok := partOf[key]; ok && q != p {
					t.Fatalf("%d rows: key %s in partitions %d and %d", c.n, key, q, p)
				}
				partOf[key] = p
			}
		}
		// Values and NULLs (a gather may keep a bitmap with no NULL in it).
		for i, row := range idx {
			for col := 0; col < 3; col++ {
				w, g := hb.Cols[col], got.Cols[col]
				if w.IsNull(row) != g.IsNull(i) || (!w.IsNull(row) && fmt.Sprint(w.Value(row)) != fmt.Sprint(g.Value(i))) {
					t.Fatalf("%d rows: row %d column %d is %v, input row %d has %v", c.n, i, col, g.Value(i), row, w.Value(row))
				}
			}
		}
		if c.n > 1000 && len(partOf) < c.parts/2 && c.parts <= 16 {
			t.Fatalf("%d keys in %d partitions", len(partOf), c.parts)
		}
		part, err := pr.Part(c.parts - 1)
		if err != nil || part.Len != pr.Bounds[c.parts]-pr.Bounds[c.parts-1] {
			t.Fatalf("last partition: %v", err)
		}
		part.Release()
		pr.Release()
	}
	if _, err := d.PartitionRows(ctx, nil, []int{0}, 3, 0); err == nil {
		t.Fatal("3 partitions accepted")
	}
}
