package coldata

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/decimal"
)

// TestGatherSelections compares Gather with a row-by-row copy for
// selections of every shape its fast paths distinguish: dense runs with a
// few gaps, sparse rows, a permutation (a sort's order), repeats, and a
// constant source.
func TestGatherSelections(t *testing.T) {
	const n = 10000
	r := rand.New(rand.NewSource(5))
	src := map[string]*Vec{}
	for _, ty := range []Type{Bool, Int64, Float64, String, DecimalOf(15, 2), Date} {
		b := NewBuilder(ty, n)
		for i := 0; i < n; i++ {
			if i%97 == 5 {
				b.AppendNull()
				continue
			}
			switch ty.Physical() {
			case Bool:
				b.AppendBool(i%3 == 0)
			case Int64:
				b.AppendInt(int64(i * 7))
			case Float64:
				b.AppendFloat(float64(i) / 4)
			case String:
				b.AppendString(fmt.Sprint("s", i))
			case Decimal:
				b.AppendDec(decimal.FromInt64(int64(i) * 1_000_003))
			}
		}
		src[ty.String()] = b.Finish()
	}
	// Strings of every length up to 40 bytes and a few longer: the
	// word copies of short strings, their ends and the last rows.
	vb := NewBuilder(String, n)
	for i := 0; i < n; i++ {
		l := r.Intn(41)
		if r.Intn(100) == 0 {
			l = 100 + r.Intn(300)
		}
		s := make([]byte, l)
		for j := range s {
			s[j] = byte('a' + r.Intn(26))
		}
		vb.AppendString(string(s))
	}
	src["varying strings"] = vb.Finish()
	src["const"] = NewConst(DecimalOf(15, 2), decimal.FromInt64(42), n)
	src["const string"] = NewConst(String, "abc", n)
	dense := []int{}
	for i := 0; i < n; i++ {
		if r.Intn(50) != 0 {
			dense = append(dense, i)
		}
	}
	sparse := []int{}
	for i := 0; i < n; i += 1 + r.Intn(20) {
		sparse = append(sparse, i)
	}
	perm := r.Perm(n)
	repeats := []int{3, 3, 3, 4, 5, 5, 9999, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	for name, v := range src {
		for sname, sel := range map[string][]int{"dense": dense, "sparse": sparse, "perm": perm, "repeats": repeats, "empty": {}} {
			t.Run(name+"/"+sname, func(t *testing.T) {
				got := Gather(v, sel)
				if got.Len != len(sel) || got.Const {
					t.Fatalf("%d rows (const %v), want %d", got.Len, got.Const, len(sel))
				}
				for k, i := range sel {
					if g, w := got.Value(k), v.Value(i); g != w {
						t.Fatalf("row %d (source %d): %v, want %v", k, i, g, w)
					}
				}
			})
		}
	}
}

// TestRecycleUnshared checks that a buffer goes back only when no live
// vector shares it, once, and that AllocVec then serves it.
func TestRecycleUnshared(t *testing.T) {
	const n = 1 << 13
	ty := DecimalOf(15, 2)
	fresh := func() *Vec {
		v := AllocVec(ty, n)
		for i := range v.Decs {
			v.Decs[i] = decimal.FromInt64(int64(i))
		}
		return v
	}
	a, b := fresh(), fresh()
	view := *a // shares a's data
	view.Decs = a.Decs[100:200]
	small := NewVec(ty, 10)
	RecycleUnshared([]*Vec{a, b, b, small, NewConst(ty, nil, n)}, []*Vec{&view})
	if a.Decs == nil || a.Decs[150] != decimal.FromInt64(150) {
		t.Fatalf("a, which a live view shares, was recycled")
	}
	if b.Decs != nil {
		t.Fatalf("b was not recycled")
	}
	if small.Decs == nil {
		t.Fatalf("a vector below the pooled size was taken")
	}
	if !SharesData(a, &view) || SharesData(a, fresh()) {
		t.Fatalf("SharesData is wrong")
	}
	// A later allocation of the size may reuse b's buffer: its values are
	// undefined, its length right.
	if v := AllocVec(ty, n-5); v.Len != n-5 || len(v.Decs) != n-5 {
		t.Fatalf("AllocVec gave %d rows, %d values", v.Len, len(v.Decs))
	}
}
