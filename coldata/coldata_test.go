package coldata_test

import (
	"reflect"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// values returns every row of v as Go values (nil for NULL).
func values(v *coldata.Vec) []any {
	out := make([]any, v.Len)
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}

// build makes a non-constant vector of type t from Go values.
func build(t coldata.Type, vals ...any) *coldata.Vec {
	b := coldata.NewBuilder(t, 0)
	for _, x := range vals {
		b.AppendValue(x)
	}
	return b.Finish()
}

func checkVals(t *testing.T, what string, v *coldata.Vec, want []any) {
	t.Helper()
	if v.Len != len(want) {
		t.Fatalf("%s: Len = %d, want %d", what, v.Len, len(want))
	}
	if got := values(v); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %#v, want %#v", what, got, want)
	}
}

func TestTypeString(t *testing.T) {
	for _, tc := range []struct {
		t    coldata.Type
		want string
	}{
		{coldata.Null, "NULL"}, {coldata.Bool, "BOOLEAN"}, {coldata.Int64, "BIGINT"},
		{coldata.Float64, "DOUBLE"}, {coldata.String, "VARCHAR"}, {coldata.Type(42), "Type(42)"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", tc.t, got, tc.want)
		}
	}
	numeric := map[coldata.Type]bool{coldata.Bool: true, coldata.Int64: true, coldata.Float64: true}
	for _, ty := range []coldata.Type{coldata.Null, coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		if ty.IsNumeric() != numeric[ty] {
			t.Errorf("%s.IsNumeric() = %v", ty, ty.IsNumeric())
		}
	}
}

func TestParseType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want coldata.Type
		ok   bool
	}{
		{"BOOLEAN", coldata.Bool, true},
		{"bool", coldata.Bool, true},
		{"BIGINT", coldata.Int64, true},
		{"int", coldata.Int64, true},
		{"Integer", coldata.Int64, true},
		{"smallint", coldata.Int64, true},
		{"TINYINT(1)", coldata.Int64, true},
		{"mediumint", coldata.Int64, true},
		{"INT UNSIGNED", coldata.Int64, true},
		{"signed", coldata.Int64, true},
		{"unsigned integer", coldata.Int64, true},
		{"DOUBLE", coldata.Float64, true},
		{"float", coldata.Float64, true},
		{"REAL", coldata.Float64, true},
		{"DECIMAL(10, 2)", coldata.DecimalOf(10, 2), true},
		{"DECIMAL(39,2)", coldata.Null, false},
		{"decimal(5,6)", coldata.Null, false},
		{"numeric", coldata.DecimalOf(10, 0), true},
		{"double precision", coldata.Float64, true},
		{"VARCHAR(20)", coldata.String, true},
		{"  varchar ( 20 ) ", coldata.String, true},
		{"TEXT", coldata.String, true},
		{"char", coldata.String, true},
		{"character varying", coldata.String, true},
		{"longtext", coldata.String, true},
		{"nvarchar(5)", coldata.String, true},
		{"BLOBBY", coldata.Null, false},
		{"", coldata.Null, false},
		{"DATE", coldata.Date, true},
		{"datetime(6)", coldata.TimestampOf(6), true},
		{"DATETIME(0)", coldata.TimestampOf(0), true},
		{"timestamp( 3 )", coldata.TimestampOf(3), true},
		{"DATETIME(7)", coldata.Null, false},
		{"DATETIME(x)", coldata.Null, false},
		{"TIMESTAMP", coldata.Timestamp, true},
		{"TIME", coldata.Null, false},
	} {
		got, ok := coldata.ParseType(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseType(%q) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestConstAccessors(t *testing.T) {
	for _, tc := range []struct {
		t    coldata.Type
		val  any
		want any
	}{
		{coldata.Bool, true, true},
		{coldata.Bool, false, false},
		{coldata.Int64, int64(-7), int64(-7)},
		{coldata.Float64, 2.5, 2.5},
		{coldata.String, "héllo", "héllo"},
		{coldata.String, []byte("raw"), "raw"},
		{coldata.String, "", ""},
		{coldata.Int64, nil, nil},
		{coldata.String, nil, nil},
		{coldata.Bool, nil, nil},
		{coldata.Float64, nil, nil},
	} {
		v := coldata.NewConst(tc.t, tc.val, 5)
		if !v.Const || v.Len != 5 {
			t.Fatalf("NewConst(%s, %v): Const=%v Len=%d", tc.t, tc.val, v.Const, v.Len)
		}
		want := []any{tc.want, tc.want, tc.want, tc.want, tc.want}
		checkVals(t, "const "+tc.t.String(), v, want)
		if v.HasNulls() != (tc.val == nil) {
			t.Errorf("const %v: HasNulls = %v", tc.val, v.HasNulls())
		}
		for i := 0; i < 5; i++ {
			if v.IsNull(i) != (tc.val == nil) {
				t.Errorf("const %v: IsNull(%d) = %v", tc.val, i, v.IsNull(i))
			}
		}
		m := v.Materialize()
		if m.Const || m.Len != 5 {
			t.Fatalf("Materialize: Const=%v Len=%d", m.Const, m.Len)
		}
		checkVals(t, "materialized "+tc.t.String(), m, want)
		if tc.val == nil && !m.HasNulls() {
			t.Errorf("materialized NULL const has no bitmap")
		}
		if tc.val != nil && m.HasNulls() {
			t.Errorf("materialized non-NULL const has a bitmap")
		}
	}
	// Typed accessors read index 0 for every row of a constant.
	c := coldata.NewConst(coldata.Int64, int64(9), 100)
	if c.Int(99) != 9 {
		t.Errorf("Int(99) = %d", c.Int(99))
	}
	s := coldata.NewConst(coldata.String, "ab", 100)
	if string(s.Str(50)) != "ab" {
		t.Errorf("Str(50) = %q", s.Str(50))
	}
	// A non-constant vector is its own materialisation.
	nv := build(coldata.Int64, int64(1))
	if nv.Materialize() != nv {
		t.Errorf("Materialize of a non-constant vector copied it")
	}
}

func TestNewConstPanicsOnBadValue(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewConst with an int (not int64) did not panic")
		}
	}()
	coldata.NewConst(coldata.Int64, 3, 1)
}

func TestNullBitmapAccessors(t *testing.T) {
	v := coldata.NewVec(coldata.Int64, 10)
	for i := range v.Ints {
		v.Ints[i] = int64(i * 10)
	}
	if v.HasNulls() {
		t.Fatal("new vector has nulls")
	}
	v.SetNull(0)
	v.SetNull(9)
	v.SetNull(3)
	want := []any{nil, int64(10), int64(20), nil, int64(40), int64(50), int64(60), int64(70), int64(80), nil}
	checkVals(t, "SetNull", v, want)
	if len(v.Nulls) != 2 || v.Nulls[0] != 0xf6 || v.Nulls[1] != 0x01 {
		t.Errorf("bitmap = %x, want f601", v.Nulls)
	}

	bm := coldata.NewValidBitmap(11)
	if len(bm) != 2 || bm[0] != 0xff || bm[1] != 0x07 {
		t.Errorf("NewValidBitmap(11) = %x", bm)
	}
	if bm := coldata.NewValidBitmap(16); len(bm) != 2 || bm[1] != 0xff {
		t.Errorf("NewValidBitmap(16) = %x", bm)
	}
	if n := coldata.BitmapLen(0); n != 0 {
		t.Errorf("BitmapLen(0) = %d", n)
	}
	if n := coldata.BitmapLen(9); n != 2 {
		t.Errorf("BitmapLen(9) = %d", n)
	}
	b := make([]byte, 2)
	coldata.SetBit(b, 9)
	coldata.SetBit(b, 2)
	if !coldata.BitIsSet(b, 9) || !coldata.BitIsSet(b, 2) || coldata.BitIsSet(b, 3) || b[0] != 4 || b[1] != 2 {
		t.Errorf("SetBit: %x", b)
	}
	coldata.ClearBit(b, 9)
	if coldata.BitIsSet(b, 9) || b[1] != 0 {
		t.Errorf("ClearBit: %x", b)
	}

	// NewVec of every type has room for n rows.
	for _, ty := range []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		v := coldata.NewVec(ty, 3)
		if v.Len != 3 {
			t.Fatalf("%s Len", ty)
		}
		want := map[coldata.Type]any{coldata.Bool: false, coldata.Int64: int64(0), coldata.Float64: 0.0, coldata.String: ""}[ty]
		checkVals(t, "NewVec "+ty.String(), v, []any{want, want, want})
	}
	nv := coldata.NewVec(coldata.Null, 3)
	checkVals(t, "NewVec NULL", nv, []any{nil, nil, nil})
}

func TestBuilder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		t     coldata.Type
		in    []any
		want  []any
		nulls bool
	}{
		{"bools", coldata.Bool, []any{true, nil, false}, []any{true, nil, false}, true},
		{"ints", coldata.Int64, []any{int64(1), int64(-2), int64(3)}, []any{int64(1), int64(-2), int64(3)}, false},
		{"ints with nulls", coldata.Int64, []any{nil, int64(5), nil}, []any{nil, int64(5), nil}, true},
		{"floats", coldata.Float64, []any{1.5, nil, -0.25}, []any{1.5, nil, -0.25}, true},
		{"strings", coldata.String, []any{"a", "", nil, []byte("ünï"), "xyz"}, []any{"a", "", nil, "ünï", "xyz"}, true},
		{"null type", coldata.Null, []any{nil, nil}, []any{nil, nil}, true},
		{"empty", coldata.String, nil, []any{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := coldata.NewBuilder(tc.t, 1)
			for i, x := range tc.in {
				if b.Len() != i {
					t.Fatalf("Len = %d before row %d", b.Len(), i)
				}
				b.AppendValue(x)
			}
			v := b.Finish()
			if v.Type != tc.t || v.Const {
				t.Fatalf("Type %s Const %v", v.Type, v.Const)
			}
			checkVals(t, tc.name, v, tc.want)
			if v.HasNulls() != tc.nulls {
				t.Errorf("HasNulls = %v, want %v", v.HasNulls(), tc.nulls)
			}
			if tc.t == coldata.String && len(v.Offsets) != v.Len+1 {
				t.Errorf("offsets %v for %d rows", v.Offsets, v.Len)
			}
		})
	}

	// Typed appends and AppendFrom (including from constant and NULL rows).
	b := coldata.NewBuilder(coldata.String, 0)
	b.AppendString("x")
	b.AppendBytes([]byte("yz"))
	b.AppendNull()
	src := build(coldata.String, "p", nil, "qq")
	b.AppendFrom(src, 2)
	b.AppendFrom(src, 1)
	b.AppendFrom(coldata.NewConst(coldata.String, "k", 4), 3)
	b.AppendFrom(coldata.NewConst(coldata.String, nil, 4), 3)
	v := b.Finish()
	checkVals(t, "string appends", v, []any{"x", "yz", nil, "qq", nil, "k", nil})
	if string(v.Bytes) != "xyzqqk" || !reflect.DeepEqual(v.Offsets, []int32{0, 1, 3, 3, 5, 5, 6, 6}) {
		t.Errorf("layout bytes=%q offsets=%v", v.Bytes, v.Offsets)
	}

	bb := coldata.NewBuilder(coldata.Bool, 0)
	bb.AppendBool(true)
	bb.AppendFrom(coldata.NewConst(coldata.Bool, true, 2), 1)
	bb.AppendFrom(build(coldata.Bool, false, nil), 0)
	bb.AppendFrom(build(coldata.Bool, false, nil), 1)
	checkVals(t, "bool appends", bb.Finish(), []any{true, true, false, nil})

	ib := coldata.NewBuilder(coldata.Int64, 0)
	for i := 0; i < 20; i++ {
		if i%7 == 3 {
			ib.AppendNull()
		} else {
			ib.AppendInt(int64(i))
		}
	}
	iv := ib.Finish()
	for i := 0; i < 20; i++ {
		if iv.IsNull(i) != (i%7 == 3) {
			t.Errorf("row %d IsNull = %v", i, iv.IsNull(i))
		}
		if i%7 != 3 && iv.Int(i) != int64(i) {
			t.Errorf("row %d = %d", i, iv.Int(i))
		}
	}
	fb := coldata.NewBuilder(coldata.Float64, 0)
	fb.AppendFloat(1)
	fb.AppendFrom(build(coldata.Float64, 2.0), 0)
	checkVals(t, "float appends", fb.Finish(), []any{1.0, 2.0})

	nb := coldata.NewBuilder(coldata.Null, 0)
	nb.AppendFrom(coldata.NewVec(coldata.Null, 2), 1)
	nb.AppendNull()
	checkVals(t, "null appends", nb.Finish(), []any{nil, nil})
}

func TestBuilderAppendValuePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AppendValue(int) did not panic")
		}
	}()
	coldata.NewBuilder(coldata.Int64, 0).AppendValue(3)
}

func TestGather(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  *coldata.Vec
		idx  []int
		want []any
	}{
		{"ints", build(coldata.Int64, int64(1), nil, int64(3)), []int{2, 0, 1, 2}, []any{int64(3), int64(1), nil, int64(3)}},
		{"bools", build(coldata.Bool, true, false), []int{1, 1, 0}, []any{false, false, true}},
		{"floats", build(coldata.Float64, 1.5, 2.5, nil), []int{2, 1}, []any{nil, 2.5}},
		{"strings", build(coldata.String, "ab", nil, "", "cde"), []int{3, 0, 2, 1, 3}, []any{"cde", "ab", "", nil, "cde"}},
		{"empty idx", build(coldata.String, "ab"), []int{}, []any{}},
		{"const int", coldata.NewConst(coldata.Int64, int64(4), 10), []int{9, 0}, []any{int64(4), int64(4)}},
		{"const str", coldata.NewConst(coldata.String, "zz", 10), []int{5, 6, 7}, []any{"zz", "zz", "zz"}},
		{"const bool", coldata.NewConst(coldata.Bool, true, 10), []int{5}, []any{true}},
		{"const float", coldata.NewConst(coldata.Float64, 0.5, 10), []int{5}, []any{0.5}},
		{"const null", coldata.NewConst(coldata.String, nil, 10), []int{1, 2}, []any{nil, nil}},
		{"null type", coldata.NewVec(coldata.Null, 4), []int{3, 1}, []any{nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := coldata.Gather(tc.src, tc.idx)
			if g.Const {
				t.Fatal("Gather returned a constant vector")
			}
			if g.Type != tc.src.Type {
				t.Fatalf("type %s", g.Type)
			}
			checkVals(t, tc.name, g, tc.want)
			if g.Type == coldata.String && (len(g.Offsets) != len(tc.idx)+1 || g.Offsets[0] != 0) {
				t.Errorf("offsets %v", g.Offsets)
			}
		})
	}
}

func TestGatherNullable(t *testing.T) {
	src := build(coldata.String, "a", nil, "c")
	g := coldata.GatherNullable(src, []int{2, -1, 0, 1, -1})
	checkVals(t, "strings", g, []any{"c", nil, "a", nil, nil})

	// Without negative indexes it is Gather.
	g = coldata.GatherNullable(build(coldata.Int64, int64(1), int64(2)), []int{1, 0})
	checkVals(t, "no negatives", g, []any{int64(2), int64(1)})
	if g.HasNulls() {
		t.Errorf("no-negative gather has a bitmap")
	}

	// A source without NULLs gains a bitmap.
	g = coldata.GatherNullable(build(coldata.Float64, 1.0, 2.0), []int{-1, 1})
	checkVals(t, "floats", g, []any{nil, 2.0})

	// An empty source (empty build side of an outer join) gives all NULLs.
	for _, ty := range []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		g = coldata.GatherNullable(coldata.NewVec(ty, 0), []int{-1, -1, -1})
		if g.Type != ty || g.Const {
			t.Fatalf("%s: type %s const %v", ty, g.Type, g.Const)
		}
		checkVals(t, "empty "+ty.String(), g, []any{nil, nil, nil})
	}
	// Constants.
	g = coldata.GatherNullable(coldata.NewConst(coldata.Int64, int64(8), 3), []int{0, -1, 2})
	checkVals(t, "const", g, []any{int64(8), nil, int64(8)})
}

func TestSlice(t *testing.T) {
	// 20 rows with NULLs at multiples of 3.
	ib := coldata.NewBuilder(coldata.Int64, 20)
	sb := coldata.NewBuilder(coldata.String, 20)
	bb := coldata.NewBuilder(coldata.Bool, 20)
	fb := coldata.NewBuilder(coldata.Float64, 20)
	var ints, strs, bools, floats []any
	for i := 0; i < 20; i++ {
		if i%3 == 0 {
			ib.AppendNull()
			sb.AppendNull()
			bb.AppendNull()
			fb.AppendNull()
			ints, strs, bools, floats = append(ints, nil), append(strs, nil), append(bools, nil), append(floats, nil)
			continue
		}
		s := string(rune('a'+i)) + "x"
		ib.AppendInt(int64(i))
		sb.AppendString(s)
		bb.AppendBool(i%2 == 0)
		fb.AppendFloat(float64(i) / 2)
		ints, strs, bools, floats = append(ints, int64(i)), append(strs, s), append(bools, i%2 == 0), append(floats, float64(i)/2)
	}
	cols := []struct {
		v    *coldata.Vec
		want []any
	}{{ib.Finish(), ints}, {sb.Finish(), strs}, {bb.Finish(), bools}, {fb.Finish(), floats}}

	for _, r := range []struct{ lo, hi int }{{0, 20}, {0, 5}, {8, 20}, {8, 13}, {16, 16}, {3, 11}, {5, 6}, {19, 20}, {0, 0}} {
		for _, c := range cols {
			s := coldata.Slice(c.v, r.lo, r.hi)
			checkVals(t, c.v.Type.String(), s, c.want[r.lo:r.hi])
			if r.lo%8 == 0 {
				// Zero-copy: the data aliases the source.
				switch c.v.Type {
				case coldata.Int64:
					if r.hi > r.lo && &s.Ints[0] != &c.v.Ints[r.lo] {
						t.Errorf("Slice(%d,%d) copied ints", r.lo, r.hi)
					}
				case coldata.String:
					if &s.Bytes[0] != &c.v.Bytes[0] {
						t.Errorf("Slice(%d,%d) copied bytes", r.lo, r.hi)
					}
					if s.Offsets[0] != c.v.Offsets[r.lo] {
						t.Errorf("Slice(%d,%d) offsets start at %d, want %d", r.lo, r.hi, s.Offsets[0], c.v.Offsets[r.lo])
					}
				}
			} else if c.v.Type == coldata.String {
				// Copied: offsets start at zero.
				if s.Offsets[0] != 0 {
					t.Errorf("Slice(%d,%d) copy has offsets from %d", r.lo, r.hi, s.Offsets[0])
				}
			} else if c.v.Type == coldata.Int64 && &s.Ints[0] == &c.v.Ints[r.lo] {
				t.Errorf("Slice(%d,%d) shared data for an unaligned start", r.lo, r.hi)
			}
		}
	}
	// A slice of a zero-copy slice (offsets not starting at 0) stays right.
	s := coldata.Slice(coldata.Slice(cols[1].v, 8, 20), 8, 12)
	checkVals(t, "slice of slice", s, strs[16:20])
	s = coldata.Slice(coldata.Slice(cols[1].v, 8, 20), 1, 4)
	checkVals(t, "unaligned slice of slice", s, strs[9:12])

	// Constants stay constant.
	c := coldata.Slice(coldata.NewConst(coldata.String, "k", 10), 3, 7)
	if !c.Const || c.Len != 4 {
		t.Fatalf("const slice Const=%v Len=%d", c.Const, c.Len)
	}
	checkVals(t, "const slice", c, []any{"k", "k", "k", "k"})
	// NULL-typed vectors.
	checkVals(t, "null slice", coldata.Slice(coldata.NewVec(coldata.Null, 20), 8, 11), []any{nil, nil, nil})
	checkVals(t, "null slice unaligned", coldata.Slice(coldata.NewVec(coldata.Null, 20), 3, 5), []any{nil, nil})

	// Whole-vector slice is the vector itself.
	if coldata.Slice(cols[0].v, 0, 20) != cols[0].v {
		t.Errorf("full slice is not the vector")
	}
}

func TestBatchHelpers(t *testing.T) {
	a := build(coldata.Int64, int64(0), int64(1), int64(2), nil, int64(4), int64(5), int64(6), int64(7), int64(8), int64(9))
	b := build(coldata.String, "a", "b", "c", "d", "e", "f", "g", "h", "i", nil)
	batch := coldata.NewBatch([]*coldata.Vec{a, b}, 10)
	g := coldata.GatherBatch(batch, []int{9, 3})
	if g.Len != 2 {
		t.Fatalf("GatherBatch Len %d", g.Len)
	}
	checkVals(t, "gather col0", g.Cols[0], []any{int64(9), nil})
	checkVals(t, "gather col1", g.Cols[1], []any{nil, "d"})
	s := coldata.SliceBatch(batch, 8, 10)
	if s.Len != 2 {
		t.Fatalf("SliceBatch Len %d", s.Len)
	}
	checkVals(t, "slice col0", s.Cols[0], []any{int64(8), int64(9)})
	checkVals(t, "slice col1", s.Cols[1], []any{"i", nil})
}

func TestConcat(t *testing.T) {
	strs := build(coldata.String, "aa", "b", nil, "cccc", "d", "e", "f", "g", "h", "ij")
	offset := coldata.Slice(strs, 8, 10) // offsets start at 12
	if offset.Offsets[0] == 0 {
		t.Fatal("test needs a slice whose offsets do not start at zero")
	}
	for _, tc := range []struct {
		name  string
		vecs  []*coldata.Vec
		want  []any
		nulls bool
	}{
		{"ints", []*coldata.Vec{build(coldata.Int64, int64(1), int64(2)), build(coldata.Int64, int64(3))}, []any{int64(1), int64(2), int64(3)}, false},
		{"ints nulls", []*coldata.Vec{build(coldata.Int64, int64(1)), build(coldata.Int64, nil, int64(3))}, []any{int64(1), nil, int64(3)}, true},
		{"const and plain", []*coldata.Vec{coldata.NewConst(coldata.Int64, int64(7), 2), build(coldata.Int64, int64(3)), coldata.NewConst(coldata.Int64, nil, 2)},
			[]any{int64(7), int64(7), int64(3), nil, nil}, true},
		{"single const", []*coldata.Vec{coldata.NewConst(coldata.String, "x", 3)}, []any{"x", "x", "x"}, false},
		{"bools", []*coldata.Vec{build(coldata.Bool, true), coldata.NewConst(coldata.Bool, false, 2), build(coldata.Bool, nil)}, []any{true, false, false, nil}, true},
		{"floats", []*coldata.Vec{build(coldata.Float64, 1.5), build(coldata.Float64, -2.0, nil)}, []any{1.5, -2.0, nil}, true},
		{"strings", []*coldata.Vec{strs, build(coldata.String, "zz")},
			[]any{"aa", "b", nil, "cccc", "d", "e", "f", "g", "h", "ij", "zz"}, true},
		{"string slice with offset", []*coldata.Vec{build(coldata.String, "q"), offset, coldata.NewConst(coldata.String, "k", 2), coldata.NewConst(coldata.String, nil, 1)},
			[]any{"q", "h", "ij", "k", "k", nil}, true},
		{"offset first", []*coldata.Vec{offset, offset}, []any{"h", "ij", "h", "ij"}, true}, // the slices keep their bitmap
		{"null type", []*coldata.Vec{coldata.NewVec(coldata.Null, 2), coldata.NewConst(coldata.Null, nil, 1)}, []any{nil, nil, nil}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0
			for _, v := range tc.vecs {
				total += v.Len
			}
			out := coldata.ConcatVecs(tc.vecs, total)
			if out.Const {
				t.Fatal("ConcatVecs returned a constant")
			}
			if out.Type != tc.vecs[0].Type {
				t.Fatalf("type %s", out.Type)
			}
			checkVals(t, tc.name, out, tc.want)
			if out.HasNulls() != tc.nulls {
				t.Errorf("HasNulls = %v, want %v", out.HasNulls(), tc.nulls)
			}
			if out.Type == coldata.String && len(tc.vecs) > 1 {
				if out.Offsets[0] != 0 || int(out.Offsets[total]) != len(out.Bytes) {
					t.Errorf("offsets %v for %d bytes", out.Offsets, len(out.Bytes))
				}
			}
		})
	}

	// Concat of batches skips empty ones and keeps column order.
	b1 := coldata.NewBatch([]*coldata.Vec{build(coldata.Int64, int64(1)), build(coldata.String, "a")}, 1)
	b2 := coldata.NewBatch([]*coldata.Vec{coldata.NewVec(coldata.Int64, 0), coldata.NewVec(coldata.String, 0)}, 0)
	b3 := coldata.NewBatch([]*coldata.Vec{coldata.NewConst(coldata.Int64, int64(2), 2), build(coldata.String, nil, "c")}, 2)
	out := coldata.Concat([]*coldata.Batch{b1, b2, b3}, 2)
	if out.Len != 3 {
		t.Fatalf("Concat Len %d", out.Len)
	}
	checkVals(t, "concat col0", out.Cols[0], []any{int64(1), int64(2), int64(2)})
	checkVals(t, "concat col1", out.Cols[1], []any{"a", nil, "c"})

	// Only empty batches: the columns keep their types.
	out = coldata.Concat([]*coldata.Batch{b2, b2}, 2)
	if out.Len != 0 || out.Cols[0].Type != coldata.Int64 || out.Cols[1].Type != coldata.String || out.Cols[1].Len != 0 {
		t.Errorf("Concat of empty batches: %d rows, types %s %s", out.Len, out.Cols[0].Type, out.Cols[1].Type)
	}
	checkVals(t, "empty concat", out.Cols[1], []any{})

	// A single non-constant input is returned as is.
	one := build(coldata.Int64, int64(5))
	if coldata.ConcatVecs([]*coldata.Vec{one}, 1) != one {
		t.Errorf("single input was copied")
	}
	// No input: an empty vector.
	if v := coldata.ConcatVecs(nil, 0); v.Len != 0 {
		t.Errorf("empty concat Len %d", v.Len)
	}
}

func TestAnyNull(t *testing.T) {
	b := coldata.NewBuilder(coldata.Int64, 20)
	for i := 0; i < 20; i++ {
		b.AppendInt(int64(i))
	}
	v := b.Finish()
	if v.AnyNull(20) {
		t.Fatal("no bitmap, no NULLs")
	}
	v.SetNull(17)
	v.Nulls[2] |= 1 << 1 // row 17 valid again: a bitmap of all ones
	if v.Nulls == nil || v.AnyNull(20) {
		t.Fatalf("all-valid bitmap reported NULLs: %08b", v.Nulls)
	}
	for _, r := range []int{0, 7, 8, 19} {
		w := *v
		w.Nulls = append([]byte(nil), v.Nulls...)
		w.SetNull(r)
		if !w.AnyNull(20) || (r == 19 && w.AnyNull(19)) {
			t.Errorf("NULL at row %d: AnyNull(20) %v, AnyNull(19) %v", r, w.AnyNull(20), w.AnyNull(19))
		}
	}
	if c := coldata.NewConst(coldata.Int64, nil, 5); !c.AnyNull(5) {
		t.Error("a NULL constant")
	}
}

// TestTimestampPrecision checks DATETIME(n)'s attribute: it names the
// type, survives its text (the storage's schema metadata) and an Arrow
// field, and is TIMESTAMP to everything that computes.
func TestTimestampPrecision(t *testing.T) {
	for fsp := 0; fsp <= 6; fsp++ {
		ty := coldata.TimestampOf(fsp)
		if ty.Fsp() != fsp || !ty.IsTimestamp() || !ty.IsTemporal() || ty.Plain() != coldata.Timestamp || ty.Physical() != coldata.Int64 {
			t.Errorf("TimestampOf(%d): Fsp %d, IsTimestamp %v, Plain %s, Physical %s", fsp, ty.Fsp(), ty.IsTimestamp(), ty.Plain(), ty.Physical())
		}
		if back, ok := coldata.ParseType(ty.String()); !ok || back != ty {
			t.Errorf("ParseType(%q) = %s, %v; want %s", ty.String(), back, ok, ty)
		}
		if back, err := coldata.FieldType(coldata.ArrowField("c", ty, true)); err != nil || back != ty {
			t.Errorf("FieldType(ArrowField(%s)) = %s, %v", ty, back, err)
		}
	}
	if coldata.Timestamp.Fsp() != -1 || coldata.Date.Fsp() != -1 {
		t.Errorf("plain TIMESTAMP and DATE have no declared precision")
	}
	if f := coldata.ArrowField("c", coldata.Timestamp, true); coldata.FieldFsp(f) != -1 {
		t.Errorf("a plain TIMESTAMP field has precision %d", coldata.FieldFsp(f))
	}
}
