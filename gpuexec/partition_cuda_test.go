//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
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

// TestCUDATopCandidates: the device's candidates for ORDER BY ... LIMIT k
// hold every row of the first k of a stable host sort, only rows whose
// order key is at most the k-th best, ascending; NULLs and candidates over
// half the rows decline.
func TestCUDATopCandidates(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(29))
	const n = 300_000
	ib, sb, pb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		ib.AppendInt(r.Int63n(5000) - 2500)
		sb.AppendString(fmt.Sprintf("%x", r.Int63n(1<<40)))
		pb.AppendString(fmt.Sprintf("same-prefix-%d", r.Intn(1000)))
	}
	hb := coldata.NewBatch([]*coldata.Vec{ib.Finish(), sb.Finish(), pb.Finish()}, n)
	in, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	less := func(col int, desc bool) func(a, b int) bool {
		return func(a, b int) bool {
			var c int
			if col == 0 {
				x, y := hb.Cols[0].Int(a), hb.Cols[0].Int(b)
				c = map[bool]int{true: -1, false: 1}[x < y]
				if x == y {
					c = 0
				}
			} else {
				c = strings.Compare(string(hb.Cols[col].Str(a)), string(hb.Cols[col].Str(b)))
			}
			if desc {
				c = -c
			}
			return c < 0 || (c == 0 && a < b)
		}
	}
	for _, c := range []struct {
		col  int
		desc bool
		k    int
	}{{0, false, 10}, {0, true, 10}, {1, false, 7}, {1, true, 100}, {0, false, 1}} {
		rows, ok, err := d.TopCandidates(ctx, in.Cols[c.col], c.desc, c.k)
		if err != nil || !ok {
			t.Fatalf("col %d desc %v: %v, ok %v", c.col, c.desc, err, ok)
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		sort.Slice(all, func(i, j int) bool { return less(c.col, c.desc)(all[i], all[j]) })
		in := map[int]bool{}
		for i, row := range rows {
			if i > 0 && rows[i-1] >= row {
				t.Fatalf("col %d: candidates not ascending at %d", c.col, i)
			}
			in[row] = true
		}
		for _, row := range all[:c.k] {
			if !in[row] {
				t.Fatalf("col %d desc %v k %d: top row %d is no candidate (%d candidates)", c.col, c.desc, c.k, row, len(rows))
			}
		}
		if len(rows) > n/2 {
			t.Fatalf("col %d: %d candidates", c.col, len(rows))
		}
	}
	// Every string shares its first 8 bytes: no narrowing.
	if _, ok, err := d.TopCandidates(ctx, in.Cols[2], false, 10); err != nil || ok {
		t.Fatalf("shared prefixes: %v, ok %v", err, ok)
	}
	// A NULL key declines.
	nb := coldata.NewBuilder(coldata.Int64, 100)
	for i := 0; i < 100; i++ {
		if i == 50 {
			nb.AppendNull()
		} else {
			nb.AppendInt(int64(i))
		}
	}
	nullIn, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{nb.Finish()}, 100))
	if err != nil {
		t.Fatal(err)
	}
	defer nullIn.Release()
	if _, ok, err := d.TopCandidates(ctx, nullIn.Cols[0], false, 5); err != nil || ok {
		t.Fatalf("NULL key: %v, ok %v", err, ok)
	}
}
