package expr

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values follow the MySQL 8 reference, Logical Operators (NOT 10
// -> 0, NOT 0 -> 1, NOT NULL -> NULL; 1 AND 1 -> 1, 1 AND 0 -> 0, 1 AND
// NULL -> NULL, 0 AND NULL -> 0, NULL AND 0 -> 0; 1 OR 1 -> 1, 1 OR 0 -> 1,
// 0 OR 0 -> 0, 0 OR NULL -> NULL, 1 OR NULL -> 1; 1 XOR 1 -> 0, 1 XOR 0 ->
// 1, 1 XOR NULL -> NULL), Comparison Functions (1 IS TRUE, 0 IS FALSE, NULL
// IS UNKNOWN -> 1, 1, 1; 1 IS NULL, 0 IS NULL, NULL IS NULL -> 0, 0, 1; 2
// IN (0,3,5,7) -> 0; 'wefwf' IN ('wee','wefwf','weg') -> 1).

func TestScAnd(t *testing.T) {
	scRun(t, "and", "BB", []scCase{
		{[]any{true, true}, true}, {[]any{true, false}, false}, {[]any{false, true}, false}, {[]any{false, false}, false},
		{[]any{true, nil}, nil}, {[]any{nil, true}, nil}, {[]any{false, nil}, false}, {[]any{nil, false}, false},
		{[]any{nil, nil}, nil},
	})
	scRun(t, "and", "II", []scCase{{[]any{1, 1}, true}, {[]any{1, 0}, false}, {[]any{1, nil}, nil}, {[]any{0, nil}, false}, {[]any{10, -3}, true}})
	scRun(t, "and", "SF", []scCase{{[]any{"1", 0.5}, true}, {[]any{"abc", 1.0}, false}})
	scRun(t, "and", "NB", []scCase{{[]any{nil, false}, false}, {[]any{nil, true}, nil}})
}

func TestScOr(t *testing.T) {
	scRun(t, "or", "BB", []scCase{
		{[]any{true, true}, true}, {[]any{true, false}, true}, {[]any{false, true}, true}, {[]any{false, false}, false},
		{[]any{true, nil}, true}, {[]any{nil, true}, true}, {[]any{false, nil}, nil}, {[]any{nil, false}, nil},
		{[]any{nil, nil}, nil},
	})
	scRun(t, "or", "II", []scCase{{[]any{1, 1}, true}, {[]any{1, 0}, true}, {[]any{0, 0}, false}, {[]any{0, nil}, nil}, {[]any{1, nil}, true}})
	scRun(t, "or", "NB", []scCase{{[]any{nil, true}, true}, {[]any{nil, false}, nil}})
}

func TestScXorNot(t *testing.T) {
	scRun(t, "xor", "II", []scCase{{[]any{1, 1}, false}, {[]any{1, 0}, true}, {[]any{0, 0}, false}, {[]any{1, nil}, nil}, {[]any{nil, 0}, nil}})
	scRun(t, "not", "I", []scCase{{[]any{10}, false}, {[]any{0}, true}, {[]any{nil}, nil}})
	scRun(t, "not", "B", []scCase{{[]any{true}, false}, {[]any{false}, true}, {[]any{nil}, nil}})
	scRun(t, "not", "S", []scCase{{[]any{"0.0"}, true}, {[]any{"2"}, false}})
	scRun(t, "not", "N", []scCase{{[]any{nil}, nil}})
	// 1 XOR 1 XOR 1 = 1 (MySQL)
	if got := scEval1(t, "xor", "BI", scEval1(t, "xor", "II", 1, 1), 1); got != true {
		t.Errorf("1 XOR 1 XOR 1 = %v", got)
	}
}

// TestScLogicReference checks AND/OR against the truth tables over random
// columns with NULLs, in all shapes.
func TestScLogicReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	tri := func() any {
		switch r.Intn(3) {
		case 0:
			return nil
		case 1:
			return false
		}
		return true
	}
	and := func(a, b any) any {
		if a == false || b == false {
			return false
		}
		if a == nil || b == nil {
			return nil
		}
		return true
	}
	or := func(a, b any) any {
		if a == true || b == true {
			return true
		}
		if a == nil || b == nil {
			return nil
		}
		return false
	}
	const n = 100
	av, bv := make([]any, n), make([]any, n)
	for i := range av {
		av[i], bv[i] = tri(), tri()
	}
	for _, c := range []struct {
		name string
		ref  func(a, b any) any
	}{{"and", and}, {"or", or}} {
		f := scFn(t, c.name)
		for shape := 0; shape < 3; shape++ {
			for _, k := range []any{nil, false, true} {
				a, b := scVec(coldata.Bool, av...), scVec(coldata.Bool, bv...)
				get := func(i int) (any, any) { return av[i], bv[i] }
				switch shape {
				case 1:
					b = coldata.NewConst(coldata.Bool, k, n)
					get = func(i int) (any, any) { return av[i], k }
				case 2:
					a = coldata.NewConst(coldata.Bool, k, n)
					get = func(i int) (any, any) { return k, bv[i] }
				}
				out, err := f.Eval([]*coldata.Vec{a, b}, n)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < n; i++ {
					x, y := get(i)
					if got, want := out.Value(i), c.ref(x, y); got != want {
						t.Fatalf("%v %s %v = %v, want %v (shape %d)", x, c.name, y, got, want, shape)
					}
				}
			}
		}
	}
}

func TestScNullTests(t *testing.T) {
	for _, sig := range []string{"I", "F", "S", "B"} {
		v := map[string]any{"I": 0, "F": 0.0, "S": "", "B": false}[sig]
		scRun(t, "is_null", sig, []scCase{{[]any{v}, false}, {[]any{nil}, true}})
		scRun(t, "is_not_null", sig, []scCase{{[]any{v}, true}, {[]any{nil}, false}})
	}
	scRun(t, "is_null", "N", []scCase{{[]any{nil}, true}})
	scRun(t, "is_not_null", "N", []scCase{{[]any{nil}, false}})
	// is_null must not convert its argument.
	e, err := NewCall(scFn(t, "is_null"), []Expr{&ColumnRef{Index: 0, T: coldata.String}})
	if err != nil {
		t.Fatal(err)
	}
	if c := e.(*Call); c.Args[0].Type() != coldata.String {
		t.Errorf("is_null converted its argument: %s", e)
	}

	scRun(t, "is_true", "I", []scCase{{[]any{1}, true}, {[]any{0}, false}, {[]any{nil}, false}, {[]any{-5}, true}})
	scRun(t, "is_false", "I", []scCase{{[]any{1}, false}, {[]any{0}, true}, {[]any{nil}, false}})
	scRun(t, "is_not_true", "B", []scCase{{[]any{true}, false}, {[]any{false}, true}, {[]any{nil}, true}})
	scRun(t, "is_not_false", "B", []scCase{{[]any{true}, true}, {[]any{false}, false}, {[]any{nil}, true}})
	scRun(t, "is_true", "S", []scCase{{[]any{"1x"}, true}, {[]any{"x"}, false}})
	scRun(t, "is_false", "N", []scCase{{[]any{nil}, false}})
	scRun(t, "is_not_true", "N", []scCase{{[]any{nil}, true}})
}

func TestScIn(t *testing.T) {
	scRun(t, "in", "IIIII", []scCase{
		{[]any{2, 0, 3, 5, 7}, false},
		{[]any{3, 0, 3, 5, 7}, true},
		{[]any{nil, 0, 3, 5, 7}, nil},
		{[]any{2, 0, nil, 5, 7}, nil},
		{[]any{5, 0, nil, 5, 7}, true},
		{[]any{nil, nil, nil, nil, nil}, nil},
	})
	scRun(t, "in", "SSSS", []scCase{
		{[]any{"wefwf", "wee", "wefwf", "weg"}, true},
		{[]any{"we", "wee", "wefwf", "weg"}, false},
		{[]any{"WEE", "wee", "wefwf", "weg"}, false},
		{[]any{"", "wee", "", nil}, true},
		{[]any{"x", "wee", "", nil}, nil},
	})
	scRun(t, "in", "ISI", []scCase{{[]any{2, "2", 3}, true}, {[]any{2, "2x", 3}, true}, {[]any{0, "abc", 3}, true}, {[]any{1, "abc", 3}, false}})
	scRun(t, "in", "FII", []scCase{{[]any{1.0, 1, 2}, true}, {[]any{1.5, 1, 2}, false}})
	scRun(t, "in", "IN", []scCase{{[]any{1, nil}, nil}})
	scRun(t, "in", "BI", []scCase{{[]any{true, 1}, true}, {[]any{false, 1}, false}})
}

// TestScInLongLists exercises the hashed path (lists longer than the linear
// threshold) for every type against a column and a reference.
func TestScInLongLists(t *testing.T) {
	const n = 200
	r := rand.New(rand.NewSource(4))
	for _, ty := range []coldata.Type{coldata.Int64, coldata.Float64, coldata.String} {
		mk := func(k int) any {
			switch ty {
			case coldata.Int64:
				return int64(k)
			case coldata.Float64:
				return float64(k) / 2
			}
			return string(rune('a'+k%26)) + string(rune('a'+k/26))
		}
		for _, withNull := range []bool{false, true} {
			set := map[any]bool{}
			args := []*coldata.Vec{nil}
			for k := 0; k < 20; k++ {
				v := mk(r.Intn(60))
				set[v] = true
				args = append(args, coldata.NewConst(ty, v, n))
			}
			if withNull {
				args = append(args, coldata.NewConst(ty, nil, n))
			}
			xs := make([]any, n)
			for i := range xs {
				if i%17 == 0 {
					continue // NULL
				}
				xs[i] = mk(r.Intn(60))
			}
			args[0] = scVec(ty, xs...)
			out, err := scFn(t, "in").Eval(args, n)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range xs {
				var want any = set[x]
				if x == nil || (withNull && !set[x]) {
					want = nil
				}
				if got := out.Value(i); got != want {
					t.Fatalf("%s: %v IN list (null=%v) = %v, want %v", ty, x, withNull, got, want)
				}
			}
			// The same list with one item as a column takes the per-item path.
			args[1] = args[1].Materialize()
			out2, err := scFn(t, "in").Eval(args, n)
			if err != nil {
				t.Fatal(err)
			}
			for i := range xs {
				if out.Value(i) != out2.Value(i) {
					t.Fatalf("%s: row %d: const list %v, column list %v", ty, i, out.Value(i), out2.Value(i))
				}
			}
		}
	}
}

// TestInIntsMatchesScan holds the bitmap and hashed IN-list paths to a
// scan of the list, over narrow and wide lists, duplicates, negative
// values and the int64 extremes (whose span overflows a difference).
func TestInIntsMatchesScan(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	lists := map[string][]int64{
		"narrow":     {2, 3, 13, 20, 29, 33, 44, 53, 63, 71, 77, 997},
		"duplicates": {5, 5, 9, 9, 9, 1, 1, 2, 3, 4, 5},
		"negative":   {-70, -3, -1, 0, 1, 64, 65, 127, 128, -64, -65},
		"extremes":   {math.MinInt64, math.MaxInt64, 0, -1, 1, 1 << 40, -(1 << 40), 7, 8, 9},
		"wide":       nil,
		"collide":    nil,
	}
	for i := 0; i < 300; i++ {
		lists["wide"] = append(lists["wide"], r.Int63()-r.Int63())
		lists["collide"] = append(lists["collide"], int64(i)<<32) // equal low bits
	}
	for name, vals := range lists {
		t.Run(name, func(t *testing.T) {
			var x []int64
			for _, v := range vals {
				x = append(x, v, v-1, v+1)
			}
			for len(x) < 4096 {
				x = append(x, r.Int63n(2000)-1000, r.Int63()-r.Int63())
			}
			x = append(x, math.MinInt64, math.MaxInt64)
			got := make([]byte, len(x))
			inInts(x, vals, got)
			for i, p := range x {
				want := byte(0)
				for _, v := range vals {
					if p == v {
						want = 1
					}
				}
				if got[i] != want {
					t.Fatalf("%d IN list: got %d, want %d", p, got[i], want)
				}
			}
		})
	}
}
