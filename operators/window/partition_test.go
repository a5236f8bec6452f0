package window

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// TestSortPathsMatchDefinition sorts random rows (few distinct values, so
// many ties; NULLs; -0 and 0; every NULL placement) on both paths of
// newPartitioned's sort, the radix sort of word keys and the comparison
// sort with a string key among them, and checks each against a stable
// sort by CompareValues as the window defines its order.
func TestSortPathsMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const n = 10000
	intVec := func(distinct int64, nulls bool) *coldata.Vec {
		b := coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			if nulls && rng.Intn(7) == 0 {
				b.AppendNull()
				continue
			}
			b.AppendInt(rng.Int63n(distinct) - distinct/2)
		}
		return b.Finish()
	}
	floatVec := func() *coldata.Vec {
		vals := []float64{math.Inf(-1), -2.5, math.Copysign(0, -1), 0, 1e-300, 3, math.Inf(1)}
		b := coldata.NewBuilder(coldata.Float64, n)
		for i := 0; i < n; i++ {
			if rng.Intn(9) == 0 {
				b.AppendNull()
				continue
			}
			b.AppendFloat(vals[rng.Intn(len(vals))])
		}
		return b.Finish()
	}
	strVec := func() *coldata.Vec {
		b := coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			if rng.Intn(8) == 0 {
				b.AppendNull()
				continue
			}
			b.AppendString([]string{"", "a", "ab", "b"}[rng.Intn(4)])
		}
		return b.Finish()
	}
	boolVec := func() *coldata.Vec {
		b := coldata.NewBuilder(coldata.Bool, n)
		for i := 0; i < n; i++ {
			b.AppendBool(rng.Intn(2) == 0)
		}
		return b.Finish()
	}
	for _, tc := range []struct {
		name  string
		pv    []*coldata.Vec
		ov    []*coldata.Vec
		order []winspec.Key
	}{
		{"ints", []*coldata.Vec{intVec(5, true)}, []*coldata.Vec{intVec(1<<40, true), intVec(3, false)},
			[]winspec.Key{{Desc: true}, {Nulls: opspec.NullsFirst}}},
		{"floats and bools", []*coldata.Vec{boolVec()}, []*coldata.Vec{floatVec(), floatVec()},
			[]winspec.Key{{Desc: true, Nulls: opspec.NullsFirst}, {Nulls: opspec.NullsLast}}},
		{"a string key", []*coldata.Vec{strVec()}, []*coldata.Vec{intVec(4, true), strVec()},
			[]winspec.Key{{}, {Desc: true}}},
		{"two large partitions", []*coldata.Vec{boolVec()}, []*coldata.Vec{intVec(1<<62, true), intVec(7, false)},
			[]winspec.Key{{Desc: true}, {}}},
		{"order only", nil, []*coldata.Vec{intVec(1<<62, true)}, []winspec.Key{{Desc: true, Nulls: opspec.NullsLast}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			slices.SortStableFunc(want, func(i, j int) int { return definitionCompare(tc.pv, tc.ov, tc.order, i, j) })
			got := make([]int, n)
			for i := range got {
				got[i] = i
			}
			keys := sortKeys(tc.pv, tc.ov, tc.order)
			if err := sortRows(context.Background(), got, keys, len(tc.pv)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("orders differ (radix path %v)", allWords(keys))
			}
			// newPartitioned: its order (the packed sort when the keys fit
			// 64 bits) and its partition and peer bounds.
			checkPartitioned(t, tc.pv, tc.ov, tc.order, want)
		})
	}
}

// definitionCompare is the window's order by its definition: partition
// keys ascending with NULLs first, then each order key by CompareValues,
// NULLs placed as the key says (MySQL's default: first ascending).
func definitionCompare(pv, ov []*coldata.Vec, order []winspec.Key, i, j int) int {
	for _, v := range pv {
		if c := opspec.CompareValues(v, i, v, j); c != 0 {
			return c
		}
	}
	for k, v := range ov {
		key := order[k]
		if key.Nulls != opspec.NullsDefault {
			if an, bn := v.IsNull(i), v.IsNull(j); an != bn {
				if an == (key.Nulls == opspec.NullsFirst) {
					return -1
				}
				return 1
			}
		}
		if c := opspec.CompareValues(v, i, v, j); c != 0 {
			if key.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// checkPartitioned runs newPartitioned over the keys and checks its order
// against want and its partition and peer bounds against the definition.
func checkPartitioned(t *testing.T, pv, ov []*coldata.Vec, order []winspec.Key, want []int) {
	t.Helper()
	n := len(want)
	b := &coldata.Batch{Len: n}
	var partition []expr.Expr
	for _, v := range pv {
		partition = append(partition, &expr.ColumnRef{Index: len(b.Cols), Name: "p", T: v.Type})
		b.Cols = append(b.Cols, v)
	}
	keys := slices.Clone(order)
	for k, v := range ov {
		keys[k].Expr = &expr.ColumnRef{Index: len(b.Cols), Name: "o", T: v.Type}
		b.Cols = append(b.Cols, v)
	}
	p, err := newPartitioned(context.Background(), b, partition, keys)
	if err != nil {
		t.Fatal(err)
	}
	perm := p.perm
	if perm == nil {
		perm = make([]int, n)
		for i := range perm {
			perm[i] = i
		}
	}
	if !wordTypes(pv) {
		// Text partition keys sort as partition numbers, in order of
		// first appearance: the definition's partitions, reordered so.
		var reps []int
		rank := make([]int, n)
		for i := 0; i < n; i++ {
			rank[i] = -1
			for r, rep := range reps {
				if definitionCompare(pv, nil, nil, rep, i) == 0 && !nullsDiffer(pv, rep, i) {
					rank[i] = r
					break
				}
			}
			if rank[i] < 0 {
				rank[i] = len(reps)
				reps = append(reps, i)
			}
		}
		want = slices.Clone(want)
		slices.SortStableFunc(want, func(a, c int) int { return rank[a] - rank[c] })
	}
	if !slices.Equal(perm, want) {
		t.Fatal("newPartitioned's order differs from the definition")
	}
	newPart, newPeer := make([]bool, n), make([]bool, n)
	newPart[0], newPeer[0] = true, true
	for i := 1; i < n; i++ {
		a, c := want[i-1], want[i]
		newPart[i] = definitionCompare(pv, nil, nil, a, c) != 0 || nullsDiffer(pv, a, c)
		newPeer[i] = newPart[i] || definitionCompare(nil, ov, order, a, c) != 0 || nullsDiffer(ov, a, c)
	}
	ps, pe := spans(newPart)
	qs, qe := spans(newPeer)
	if !slices.Equal(ps, p.partStart) || !slices.Equal(pe, p.partEnd) {
		t.Fatal("partition bounds differ from the definition")
	}
	if !slices.Equal(qs, p.peerStart) || !slices.Equal(qe, p.peerEnd) {
		t.Fatal("peer bounds differ from the definition")
	}
}

// nullsDiffer reports whether rows a and c differ in NULL-ness on a key.
func nullsDiffer(vs []*coldata.Vec, a, c int) bool {
	for _, v := range vs {
		if v.IsNull(a) != v.IsNull(c) {
			return true
		}
	}
	return false
}

// TestPartitionBoundsLarge: over enough rows that the boundaries are
// marked through the permutation on several goroutines, the partitions
// and peer groups of text, integer and DECIMAL keys (with NULLs) equal
// those found by gathering the keys into sorted order first.
func TestPartitionBoundsLarge(t *testing.T) {
	const n = 300_000
	rng := rand.New(rand.NewSource(9))
	sb, ib, db := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.DecimalOf(12, 2), n)
	for i := 0; i < n; i++ {
		if rng.Intn(50) == 0 {
			sb.AppendNull()
		} else {
			sb.AppendString([]string{"AFRICA", "AMERICA", "EUROPE", "MIDDLE EAST", ""}[rng.Intn(5)])
		}
		if rng.Intn(40) == 0 {
			ib.AppendNull()
		} else {
			ib.AppendInt(int64(rng.Intn(300)))
		}
		db.AppendDec(decimal.FromInt64(int64(rng.Intn(20))))
	}
	b := coldata.NewBatch([]*coldata.Vec{sb.Finish(), ib.Finish(), db.Finish()}, n)
	partition := []expr.Expr{&expr.ColumnRef{Index: 0, Name: "s", T: coldata.String}}
	order := []winspec.Key{{Expr: &expr.ColumnRef{Index: 2, Name: "d", T: coldata.DecimalOf(12, 2)}, Desc: true},
		{Expr: &expr.ColumnRef{Index: 1, Name: "i", T: coldata.Int64}}}
	p, err := newPartitioned(context.Background(), b, partition, order)
	if err != nil {
		t.Fatal(err)
	}
	if p.perm == nil {
		t.Fatal("rows came sorted")
	}
	wantPart := make([]bool, n)
	wantPart[0] = true
	markDiffs(coldata.Gather(b.Cols[0], p.perm), wantPart)
	wantPeer := append([]bool(nil), wantPart...)
	markDiffs(coldata.Gather(b.Cols[2], p.perm), wantPeer)
	markDiffs(coldata.Gather(b.Cols[1], p.perm), wantPeer)
	ps, pe := spans(wantPart)
	qs, qe := spans(wantPeer)
	if !slices.Equal(p.partStart, ps) || !slices.Equal(p.partEnd, pe) {
		t.Error("partitions differ from the gathered keys'")
	}
	if !slices.Equal(p.peerStart, qs) || !slices.Equal(p.peerEnd, qe) {
		t.Error("peer groups differ from the gathered keys'")
	}
}
