package coldata_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// arrowValues reads every row of an Arrow array as Go values.
func arrowValues(t *testing.T, a arrow.Array) []any {
	t.Helper()
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) {
			continue
		}
		switch x := a.(type) {
		case *array.Boolean:
			out[i] = x.Value(i)
		case *array.Int64:
			out[i] = x.Value(i)
		case *array.Float64:
			out[i] = x.Value(i)
		case *array.String:
			out[i] = x.Value(i)
		default:
			t.Fatalf("unexpected array %T", a)
		}
	}
	return out
}

func TestArrowTypes(t *testing.T) {
	for _, tc := range []struct {
		t  coldata.Type
		dt arrow.DataType
	}{
		{coldata.Bool, arrow.FixedWidthTypes.Boolean},
		{coldata.Int64, arrow.PrimitiveTypes.Int64},
		{coldata.Float64, arrow.PrimitiveTypes.Float64},
		{coldata.String, arrow.BinaryTypes.String},
		{coldata.Null, arrow.Null},
	} {
		if got := coldata.ArrowType(tc.t); !arrow.TypeEqual(got, tc.dt) {
			t.Errorf("ArrowType(%s) = %s", tc.t, got)
		}
		if got, err := coldata.FromArrowType(tc.dt); err != nil || got != tc.t {
			t.Errorf("FromArrowType(%s) = %s, %v", tc.dt, got, err)
		}
	}
	for _, tc := range []struct {
		dt   arrow.DataType
		want coldata.Type
	}{
		{arrow.PrimitiveTypes.Int8, coldata.Int64},
		{arrow.PrimitiveTypes.Int32, coldata.Int64},
		{arrow.PrimitiveTypes.Uint64, coldata.Int64},
		{arrow.PrimitiveTypes.Float32, coldata.Float64},
		{arrow.FixedWidthTypes.Float16, coldata.Float64},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, coldata.DecimalOf(10, 2)},
		{&arrow.Decimal128Type{Precision: 40, Scale: 2}, coldata.Float64},
		{arrow.BinaryTypes.LargeString, coldata.String},
		{arrow.BinaryTypes.Binary, coldata.String},
	} {
		if got, err := coldata.FromArrowType(tc.dt); err != nil || got != tc.want {
			t.Errorf("FromArrowType(%s) = %s, %v", tc.dt, got, err)
		}
	}
	for _, tc := range []struct {
		dt   arrow.DataType
		want coldata.Type
	}{
		{arrow.FixedWidthTypes.Date32, coldata.Date},
		{arrow.FixedWidthTypes.Date64, coldata.Date},
		{&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, coldata.Timestamp},
	} {
		if got, err := coldata.FromArrowType(tc.dt); err != nil || got != tc.want {
			t.Errorf("FromArrowType(%s) = %s, %v", tc.dt, got, err)
		}
	}
	if _, err := coldata.FromArrowType(arrow.FixedWidthTypes.Time32s); err == nil {
		t.Errorf("FromArrowType(time32) succeeded")
	}
}

func TestToArrow(t *testing.T) {
	strs := build(coldata.String, "a", "bb", nil, "", "ccc", "d", "e", "f", "gg", nil, "hh")
	for _, tc := range []struct {
		name string
		v    *coldata.Vec
		want []any
	}{
		{"bools", build(coldata.Bool, true, nil, false, true), []any{true, nil, false, true}},
		{"ints", build(coldata.Int64, int64(1), nil, int64(-3)), []any{int64(1), nil, int64(-3)}},
		{"ints no nulls", build(coldata.Int64, int64(1), int64(2)), []any{int64(1), int64(2)}},
		{"floats", build(coldata.Float64, nil, 2.5), []any{nil, 2.5}},
		{"strings", strs, []any{"a", "bb", nil, "", "ccc", "d", "e", "f", "gg", nil, "hh"}},
		{"zero-copy string slice", coldata.Slice(strs, 8, 11), []any{"gg", nil, "hh"}},
		{"copied string slice", coldata.Slice(strs, 1, 4), []any{"bb", nil, ""}},
		{"int slice", coldata.Slice(build(coldata.Int64, int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), nil, int64(9)), 8, 10), []any{nil, int64(9)}},
		{"const int", coldata.NewConst(coldata.Int64, int64(5), 3), []any{int64(5), int64(5), int64(5)}},
		{"const null string", coldata.NewConst(coldata.String, nil, 2), []any{nil, nil}},
		{"bitmap without nulls", func() *coldata.Vec {
			v := build(coldata.Int64, int64(1), int64(2))
			v.Nulls = coldata.NewValidBitmap(2)
			return v
		}(), []any{int64(1), int64(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := coldata.ToArrow(tc.v)
			defer a.Release()
			if !arrow.TypeEqual(a.DataType(), coldata.ArrowType(tc.v.Type)) {
				t.Fatalf("type %s", a.DataType())
			}
			nulls := 0
			for _, w := range tc.want {
				if w == nil {
					nulls++
				}
			}
			if a.NullN() != nulls {
				t.Errorf("NullN = %d, want %d", a.NullN(), nulls)
			}
			if got := arrowValues(t, a); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
			if buf := a.Data().Buffers()[0]; nulls == 0 && buf != nil {
				t.Errorf("array without NULLs has a validity buffer")
			}
		})
	}
	n := coldata.ToArrow(coldata.NewVec(coldata.Null, 3))
	defer n.Release()
	if n.DataType().ID() != arrow.NULL || n.Len() != 3 || n.NullN() != 3 {
		t.Errorf("NULL vector: %s len %d nulls %d", n.DataType(), n.Len(), n.NullN())
	}
}

func TestToArrowSharesData(t *testing.T) {
	v := build(coldata.Int64, int64(1), int64(2), int64(3))
	a := coldata.ToArrow(v).(*array.Int64)
	defer a.Release()
	v.Ints[1] = 42
	if a.Value(1) != 42 {
		t.Errorf("ToArrow copied int data")
	}
	s := build(coldata.String, "ab", "cd")
	sa := coldata.ToArrow(s).(*array.String)
	defer sa.Release()
	s.Bytes[2] = 'X'
	if sa.Value(1) != "Xd" {
		t.Errorf("ToArrow copied string data: %q", sa.Value(1))
	}
}

func TestFromArrow(t *testing.T) {
	mem := memory.NewGoAllocator()
	var cases []struct {
		name string
		arr  arrow.Array
		t    coldata.Type
		want []any
	}
	add := func(name string, arr arrow.Array, ty coldata.Type, want ...any) {
		cases = append(cases, struct {
			name string
			arr  arrow.Array
			t    coldata.Type
			want []any
		}{name, arr, ty, want})
	}
	{
		b := array.NewBooleanBuilder(mem)
		b.AppendValues([]bool{true, false, true}, []bool{true, false, true})
		add("bool", b.NewArray(), coldata.Bool, true, nil, true)
		b.Release()
	}
	{
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{1, 2, 3, 4}, []bool{true, true, false, true})
		add("int64", b.NewArray(), coldata.Int64, int64(1), int64(2), nil, int64(4))
		b.Release()
	}
	{
		b := array.NewInt32Builder(mem)
		b.AppendValues([]int32{-5, 0, 7}, []bool{true, false, true})
		add("int32", b.NewArray(), coldata.Int64, int64(-5), nil, int64(7))
		b.Release()
	}
	{
		b := array.NewInt8Builder(mem)
		b.AppendValues([]int8{-128, 127}, nil)
		add("int8", b.NewArray(), coldata.Int64, int64(-128), int64(127))
		b.Release()
	}
	{
		b := array.NewInt16Builder(mem)
		b.AppendValues([]int16{-300}, nil)
		add("int16", b.NewArray(), coldata.Int64, int64(-300))
		b.Release()
	}
	{
		b := array.NewUint8Builder(mem)
		b.AppendValues([]uint8{255}, nil)
		add("uint8", b.NewArray(), coldata.Int64, int64(255))
		b.Release()
	}
	{
		b := array.NewUint16Builder(mem)
		b.AppendValues([]uint16{65535}, nil)
		add("uint16", b.NewArray(), coldata.Int64, int64(65535))
		b.Release()
	}
	{
		b := array.NewUint32Builder(mem)
		b.AppendValues([]uint32{4000000000}, []bool{true})
		b.AppendNull()
		add("uint32", b.NewArray(), coldata.Int64, int64(4000000000), nil)
		b.Release()
	}
	{
		b := array.NewUint64Builder(mem)
		b.AppendValues([]uint64{12}, nil)
		add("uint64", b.NewArray(), coldata.Int64, int64(12))
		b.Release()
	}
	{
		b := array.NewFloat64Builder(mem)
		b.AppendValues([]float64{1.5, 0, -2}, []bool{true, false, true})
		add("float64", b.NewArray(), coldata.Float64, 1.5, nil, -2.0)
		b.Release()
	}
	{
		b := array.NewFloat32Builder(mem)
		b.AppendValues([]float32{0.5, 3}, []bool{false, true})
		add("float32", b.NewArray(), coldata.Float64, nil, 3.0)
		b.Release()
	}
	{
		b := array.NewStringBuilder(mem)
		b.AppendValues([]string{"x", "", "héllo", "z"}, []bool{true, true, true, false})
		add("string", b.NewArray(), coldata.String, "x", "", "héllo", nil)
		b.Release()
	}
	{
		b := array.NewLargeStringBuilder(mem)
		b.AppendValues([]string{"large", "", "s"}, []bool{true, false, true})
		add("large string", b.NewArray(), coldata.String, "large", nil, "s")
		b.Release()
	}
	{
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		b.AppendValues([][]byte{[]byte("bin"), nil}, []bool{true, false})
		add("binary", b.NewArray(), coldata.String, "bin", nil)
		b.Release()
	}
	{
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
		b.Append(decimal128.FromI64(12345))
		b.AppendNull()
		add("decimal128", b.NewArray(), coldata.DecimalOf(10, 2), decimal.FromInt64(12345), nil)
		b.Release()
	}
	add("null", array.NewNull(3), coldata.Null, nil, nil, nil)

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.arr.Release()
			v, err := coldata.FromArrow(tc.arr)
			if err != nil {
				t.Fatal(err)
			}
			if v.Type != tc.t {
				t.Fatalf("type %s, want %s", v.Type, tc.t)
			}
			checkVals(t, tc.name, v, tc.want)
			hasNull := false
			for _, w := range tc.want {
				hasNull = hasNull || w == nil
			}
			if v.HasNulls() != hasNull {
				t.Errorf("HasNulls = %v, want %v", v.HasNulls(), hasNull)
			}
		})
	}

	// Unsupported arrays are errors, not panics.
	db := array.NewTime32Builder(mem, arrow.FixedWidthTypes.Time32s.(*arrow.Time32Type))
	db.Append(1)
	da := db.NewArray()
	defer da.Release()
	if _, err := coldata.FromArrow(da); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Errorf("FromArrow(time32) = %v", err)
	}
}

func TestFromArrowSlices(t *testing.T) {
	mem := memory.NewGoAllocator()
	var strs []string
	var valid []bool
	var ints []int64
	var want []any
	var wantInts []any
	var bools []bool
	var wantBools []any
	for i := 0; i < 30; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), i%4)
		strs = append(strs, s)
		ints = append(ints, int64(i*i))
		bools = append(bools, i%3 == 1)
		valid = append(valid, i%5 != 2)
		if i%5 == 2 {
			want, wantInts, wantBools = append(want, nil), append(wantInts, nil), append(wantBools, nil)
		} else {
			want, wantInts, wantBools = append(want, s), append(wantInts, int64(i*i)), append(wantBools, i%3 == 1)
		}
	}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues(strs, valid)
	sarr := sb.NewArray()
	defer sarr.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(ints, valid)
	iarr := ib.NewArray()
	defer iarr.Release()
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues(bools, valid)
	barr := bb.NewArray()
	defer barr.Release()
	lb := array.NewLargeStringBuilder(mem)
	lb.AppendValues(strs, valid)
	larr := lb.NewArray()
	defer larr.Release()

	for _, r := range []struct{ lo, hi int }{{0, 30}, {3, 17}, {8, 24}, {1, 2}, {29, 30}, {7, 7}, {16, 30}} {
		for _, src := range []struct {
			arr  arrow.Array
			want []any
		}{{sarr, want}, {iarr, wantInts}, {barr, wantBools}, {larr, want}} {
			s := array.NewSlice(src.arr, int64(r.lo), int64(r.hi))
			v, err := coldata.FromArrow(s)
			if err != nil {
				t.Fatal(err)
			}
			checkVals(t, src.arr.DataType().String(), v, src.want[r.lo:r.hi])
			if v.Type == coldata.String && (len(v.Offsets) != v.Len+1 || v.Offsets[0] != 0) {
				t.Errorf("[%d,%d) %s: offsets %v", r.lo, r.hi, src.arr.DataType(), v.Offsets)
			}
			// Round trip back to Arrow.
			back := coldata.ToArrow(v)
			if !array.Equal(back, castBack(t, s)) {
				t.Errorf("[%d,%d) %s: round trip %v != %v", r.lo, r.hi, src.arr.DataType(), back, s)
			}
			back.Release()
			s.Release()
		}
	}

	// Zero-copy: a plain int64 or string array shares its buffers.
	v, _ := coldata.FromArrow(iarr)
	if &v.Ints[0] != &iarr.(*array.Int64).Int64Values()[0] {
		t.Errorf("int64 data copied")
	}
	v, _ = coldata.FromArrow(sarr)
	if &v.Offsets[0] != &sarr.(*array.String).ValueOffsets()[0] {
		t.Errorf("string offsets copied")
	}
}

// castBack converts a large string array to a string array so that it
// compares with what ToArrow produces.
func castBack(t *testing.T, a arrow.Array) arrow.Array {
	ls, ok := a.(*array.LargeString)
	if !ok {
		return a
	}
	b := array.NewStringBuilder(memory.NewGoAllocator())
	defer b.Release()
	for i := 0; i < ls.Len(); i++ {
		if ls.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(ls.Value(i))
		}
	}
	return b.NewArray()
}

func TestRecordRoundTrip(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	batch := coldata.NewBatch([]*coldata.Vec{
		build(coldata.Bool, true, nil, false),
		coldata.NewConst(coldata.Int64, int64(3), 3),
		build(coldata.Float64, 1.25, 2.5, nil),
		build(coldata.String, nil, "x", "yz"),
	}, 3)
	rec := coldata.BatchToRecord(schema, batch)
	defer rec.Release()
	if rec.NumRows() != 3 || rec.NumCols() != 4 || !rec.Schema().Equal(schema) {
		t.Fatalf("record %d rows %d cols %s", rec.NumRows(), rec.NumCols(), rec.Schema())
	}
	back, err := coldata.RecordToBatch(rec)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len != 3 || len(back.Cols) != 4 {
		t.Fatalf("batch %d rows %d cols", back.Len, len(back.Cols))
	}
	want := [][]any{{true, nil, false}, {int64(3), int64(3), int64(3)}, {1.25, 2.5, nil}, {nil, "x", "yz"}}
	for c := range want {
		checkVals(t, schema.Field(c).Name, back.Cols[c], want[c])
	}

	// A column Arrow has but gsql does not is an error naming the column.
	db := array.NewTime32Builder(memory.NewGoAllocator(), arrow.FixedWidthTypes.Time32s.(*arrow.Time32Type))
	db.Append(1)
	da := db.NewArray()
	defer da.Release()
	bad := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "when", Type: arrow.FixedWidthTypes.Time32s}}, nil), []arrow.Array{da}, 1)
	defer bad.Release()
	if _, err := coldata.RecordToBatch(bad); err == nil || !strings.Contains(err.Error(), `"when"`) {
		t.Errorf("RecordToBatch(time32) = %v", err)
	}
}

func TestRecordColumnsToBatch(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.Date32Builder).AppendValues([]arrow.Date32{10, 20}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	bt, err := coldata.RecordColumnsToBatch(rec, []int{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if bt.Len != 2 || bt.Cols[0] != nil || bt.Cols[2] != nil || bt.Cols[1] == nil || bt.Cols[1].Ints[1] != 20 {
		t.Fatalf("only column 1 should be converted: %+v", bt.Cols)
	}
	all, err := coldata.RecordColumnsToBatch(rec, nil)
	if err != nil || all.Cols[0] == nil || all.Cols[2] == nil || string(all.Cols[2].Bytes[all.Cols[2].Offsets[1]:all.Cols[2].Offsets[2]]) != "y" {
		t.Fatalf("all columns: %+v, %v", all, err)
	}
	if _, err := coldata.RecordColumnsToBatch(rec, []int{3}); err == nil {
		t.Fatal("a column past the record's end gave no error")
	}
}
