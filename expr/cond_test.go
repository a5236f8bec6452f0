package expr

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values follow the MySQL 8 reference, Flow Control Functions
// (CASE 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'more' END -> 'one';
// CASE WHEN 1>0 THEN 'true' ELSE 'false' END -> 'true'; CASE BINARY 'B'
// WHEN 'a' THEN 1 WHEN 'b' THEN 2 END -> NULL; IF(1>2,2,3) -> 3;
// IF(1<2,'yes','no') -> 'yes'; IFNULL(1,0) -> 1; IFNULL(NULL,10) -> 10;
// IFNULL(1/0,10) -> 10; IFNULL(1/0,'yes') -> 'yes'; NULLIF(1,1) -> NULL;
// NULLIF(1,2) -> 1) and Comparison Functions (COALESCE(NULL,1) -> 1,
// COALESCE(NULL,NULL,NULL) -> NULL, GREATEST(2,0) -> 2,
// GREATEST(34.0,3.0,5.0,767.0) -> 767.0, GREATEST('B','A','C') -> 'C',
// LEAST(2,0) -> 0, LEAST(34.0,3.0,5.0,767.0) -> 3.0, LEAST('B','A','C')
// -> 'A', any NULL argument -> NULL).

func TestScCase(t *testing.T) {
	// CASE 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'more' END
	scRun(t, "case", "BSBSS", []scCase{
		{[]any{true, "one", false, "two", "more"}, "one"},
		{[]any{false, "one", true, "two", "more"}, "two"},
		{[]any{false, "one", false, "two", "more"}, "more"},
		{[]any{nil, "one", true, "two", "more"}, "two"},
		{[]any{nil, "one", nil, "two", "more"}, "more"},
		{[]any{true, nil, true, "two", "more"}, nil},
		{[]any{false, "one", false, "two", nil}, nil},
		{[]any{true, "", true, "two", "more"}, ""},
	})
	// CASE BINARY 'B' WHEN 'a' THEN 1 WHEN 'b' THEN 2 END (no ELSE)
	scRun(t, "case", "BIBI", []scCase{
		{[]any{false, 1, false, 2}, nil},
		{[]any{true, 1, false, 2}, 1},
		{[]any{false, 1, true, 2}, 2},
		{[]any{nil, 1, nil, 2}, nil},
	})
	scRun(t, "case", "BFF", []scCase{{[]any{true, 1.5, 2.5}, 1.5}, {[]any{false, 1.5, 2.5}, 2.5}, {[]any{nil, 1.5, nil}, nil}})
	scRun(t, "case", "BBB", []scCase{{[]any{true, false, true}, false}, {[]any{false, false, true}, true}})
	// Mixed value types unify (BIGINT and VARCHAR -> VARCHAR).
	scRun(t, "case", "BIS", []scCase{{[]any{true, 1, "x"}, "1"}, {[]any{false, 1, "x"}, "x"}})
	scRun(t, "case", "BIF", []scCase{{[]any{true, 1, 2.5}, 1.0}, {[]any{false, 1, 2.5}, 2.5}})
	// Conditions convert to BOOLEAN: numbers and strings.
	scRun(t, "case", "ISS", []scCase{{[]any{2, "a", "b"}, "a"}, {[]any{0, "a", "b"}, "b"}, {[]any{nil, "a", "b"}, "b"}})
	scRun(t, "case", "SII", []scCase{{[]any{"1x", 1, 2}, 1}, {[]any{"x", 1, 2}, 2}})
	scRun(t, "case", "BN", []scCase{{[]any{true, nil}, nil}})
}

func TestScIf(t *testing.T) {
	scRun(t, "if", "BII", []scCase{{[]any{false, 2, 3}, 3}, {[]any{true, 2, 3}, 2}, {[]any{nil, 2, 3}, 3}, {[]any{true, nil, 3}, nil}})
	scRun(t, "if", "BSS", []scCase{{[]any{true, "yes", "no"}, "yes"}, {[]any{false, "yes", "no"}, "no"}})
	scRun(t, "if", "IIS", []scCase{{[]any{0, 1, "no"}, "no"}, {[]any{5, 1, "no"}, "1"}})
}

func TestScIfNullCoalesce(t *testing.T) {
	scRun(t, "ifnull", "II", []scCase{{[]any{1, 0}, 1}, {[]any{nil, 10}, 10}, {[]any{nil, nil}, nil}})
	scRun(t, "ifnull", "FS", []scCase{{[]any{nil, "yes"}, "yes"}, {[]any{1.5, "yes"}, "1.5"}})
	scRun(t, "ifnull", "NI", []scCase{{[]any{nil, 10}, 10}})
	scRun(t, "coalesce", "NI", []scCase{{[]any{nil, 1}, 1}})
	scRun(t, "coalesce", "NNN", []scCase{{[]any{nil, nil, nil}, nil}})
	scRun(t, "coalesce", "S", []scCase{{[]any{"a"}, "a"}, {[]any{nil}, nil}})
	scRun(t, "coalesce", "SSSS", []scCase{
		{[]any{"a", "b", "c", "d"}, "a"},
		{[]any{nil, "b", "c", "d"}, "b"},
		{[]any{nil, nil, "c", "d"}, "c"},
		{[]any{nil, nil, nil, "d"}, "d"},
		{[]any{nil, nil, nil, nil}, nil},
		{[]any{nil, "", nil, "d"}, ""},
	})
	scRun(t, "coalesce", "IFB", []scCase{{[]any{nil, 2.5, true}, 2.5}, {[]any{3, 2.5, true}, 3.0}, {[]any{nil, nil, true}, 1.0}})
}

func TestScNullIf(t *testing.T) {
	scRun(t, "nullif", "II", []scCase{{[]any{1, 1}, nil}, {[]any{1, 2}, 1}, {[]any{nil, 1}, nil}, {[]any{1, nil}, 1}})
	scRun(t, "nullif", "SS", []scCase{{[]any{"a", "a"}, nil}, {[]any{"a", "A"}, "a"}, {[]any{"", ""}, nil}})
	scRun(t, "nullif", "SI", []scCase{{[]any{"1", 1}, nil}, {[]any{"1x", 2}, "1x"}}) // compared as DOUBLE, typed as a
	scRun(t, "nullif", "IF", []scCase{{[]any{2, 2.0}, nil}, {[]any{2, 2.5}, 2}})
	scRun(t, "nullif", "NI", []scCase{{[]any{nil, 1}, nil}})
}

func TestScGreatestLeast(t *testing.T) {
	scRun(t, "greatest", "II", []scCase{{[]any{2, 0}, 2}, {[]any{scMin, scMax}, scMax}, {[]any{nil, 1}, nil}})
	scRun(t, "greatest", "FFFF", []scCase{{[]any{34.0, 3.0, 5.0, 767.0}, 767.0}, {[]any{34.0, nil, 5.0, 767.0}, nil}})
	scRun(t, "greatest", "SSS", []scCase{{[]any{"B", "A", "C"}, "C"}, {[]any{"a", "B", "ab"}, "ab"}, {[]any{"", "", ""}, ""}, {[]any{"x", nil, "y"}, nil}})
	scRun(t, "greatest", "INI", []scCase{{[]any{1, nil, 3}, nil}})
	scRun(t, "least", "II", []scCase{{[]any{2, 0}, 0}, {[]any{-1, 1}, -1}})
	scRun(t, "least", "FFFF", []scCase{{[]any{34.0, 3.0, 5.0, 767.0}, 3.0}})
	scRun(t, "least", "SSS", []scCase{{[]any{"B", "A", "C"}, "A"}, {[]any{"b", "ba", "bb"}, "b"}})
	scRun(t, "least", "IS", []scCase{{[]any{7, "5"}, 5.0}}) // mixed: compared as numbers
	scRun(t, "least", "IF", []scCase{{[]any{4, 4.5}, 4.0}})
}

// TestScCaseReference runs CASE over random columns of every value type
// and compares with a row-at-a-time reference, with ELSE and without, and
// with constant conditions and values mixed in.
func TestScCaseReference(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const n = 64
	for iter := 0; iter < 200; iter++ {
		ty := []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String}[r.Intn(4)]
		whens := 1 + r.Intn(4)
		var args []*coldata.Vec
		for k := 0; k < whens; k++ {
			args = append(args, scRandVec(r, coldata.Bool, n), scRandVec(r, ty, n))
		}
		hasElse := r.Intn(2) == 0
		if hasElse {
			args = append(args, scRandVec(r, ty, n))
		}
		out, err := scFn(t, "case").Eval(args, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var want any
			done := false
			for k := 0; k < whens; k++ {
				c := args[2*k]
				if !c.IsNull(i) && c.Bool(i) {
					want, done = args[2*k+1].Value(i), true
					break
				}
			}
			if !done && hasElse {
				want = args[len(args)-1].Value(i)
			}
			if got := out.Value(i); !scMatch(got, want) {
				t.Fatalf("iter %d row %d: %s, want %s (%s)", iter, i, scShow(got), scShow(want), scDescribe(args))
			}
		}
		// COALESCE over the value columns agrees with its reference too.
		var vals []*coldata.Vec
		for k := 1; k < len(args); k += 2 {
			vals = append(vals, args[k])
		}
		co, err := scFn(t, "coalesce").Eval(vals, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var want any
			for _, v := range vals {
				if !v.IsNull(i) {
					want = v.Value(i)
					break
				}
			}
			if got := co.Value(i); !scMatch(got, want) {
				t.Fatalf("coalesce row %d: %s, want %s", i, scShow(got), scShow(want))
			}
		}
	}
}

// TestScCaseLongStrings checks the two-pass string gather with long values.
func TestScCaseLongStrings(t *testing.T) {
	long := strings.Repeat("ü", 40000) // 80 KB
	cond := scVec(coldata.Bool, true, false, nil, true)
	a := scVec(coldata.String, long, "short", "x", "")
	b := coldata.NewConst(coldata.String, long+"!", 4)
	out, err := scFn(t, "case").Eval([]*coldata.Vec{cond, a, b}, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{long, long + "!", long + "!", ""}
	for i, w := range want {
		if got := out.Value(i); got != w {
			t.Errorf("row %d: %d bytes, want %d", i, len(fmt.Sprint(got)), len(w))
		}
	}
}

// TestScUniformPickReturnsInput checks the no-copy paths: a constant TRUE
// condition, a NULL-free first COALESCE argument.
func TestScUniformPickReturnsInput(t *testing.T) {
	col := scVec(coldata.Int64, int64(1), int64(2), int64(3))
	out, err := scFn(t, "case").Eval([]*coldata.Vec{coldata.NewConst(coldata.Bool, true, 3), col, coldata.NewConst(coldata.Int64, int64(0), 3)}, 3)
	if err != nil || out != col {
		t.Errorf("CASE WHEN TRUE THEN col: copied (%v)", err)
	}
	out, err = scFn(t, "coalesce").Eval([]*coldata.Vec{col, coldata.NewConst(coldata.Int64, nil, 3)}, 3)
	if err != nil || out != col {
		t.Errorf("COALESCE(col without NULLs, ...): copied (%v)", err)
	}
}
