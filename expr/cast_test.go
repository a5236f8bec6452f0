package expr

import (
	"math"
	"strconv"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values follow the MySQL 8 reference (Cast Functions and
// Operators; Type Conversion in Expression Evaluation) and the conversions
// documented in cast.go.

func TestScCastToBigint(t *testing.T) {
	scRun(t, "cast_to_bigint", "S", []scCase{
		{[]any{"12"}, 12},
		{[]any{"-7"}, -7},
		{[]any{"12abc"}, 12},
		{[]any{"10x"}, 10},
		{[]any{"abc"}, 0},
		{[]any{""}, 0},
		{[]any{" 12"}, 12},
		{[]any{"\t\n-3"}, -3},
		{[]any{"+5"}, 5},
		{[]any{"3.35"}, 3},              // MySQL: CAST('3.35' AS SIGNED) = 3
		{[]any{"125e342.83"}, 125},      // MySQL: 125
		{[]any{"125.34edf342.83"}, 125}, // MySQL: 125
		{[]any{"-0"}, 0},
		{[]any{"9223372036854775807"}, int64(math.MaxInt64)},
		{[]any{"9223372036854775808"}, int64(math.MaxInt64)},
		{[]any{"-9223372036854775808"}, int64(math.MinInt64)},
		{[]any{"-99999999999999999999999"}, int64(math.MinInt64)},
		{[]any{"١٢"}, 0}, // non-ASCII digits are not digits
		{[]any{nil}, nil},
	})
	scRun(t, "cast_to_bigint", "F", []scCase{
		{[]any{1.6}, 2},
		{[]any{2.4}, 2},
		{[]any{-1.6}, -2},
		{[]any{2.5}, 3}, // half away from zero
		{[]any{-2.5}, -3},
		{[]any{0.5}, 1},
		{[]any{-0.0}, 0},
		{[]any{1e30}, int64(math.MaxInt64)},
		{[]any{-1e30}, int64(math.MinInt64)},
		{[]any{math.Inf(1)}, int64(math.MaxInt64)},
		{[]any{math.NaN()}, 0},
		{[]any{nil}, nil},
	})
	scRun(t, "cast_to_bigint", "B", []scCase{{[]any{true}, 1}, {[]any{false}, 0}, {[]any{nil}, nil}})
	scRun(t, "cast_to_bigint", "N", []scCase{{[]any{nil}, nil}})
}

func TestScCastToDouble(t *testing.T) {
	scRun(t, "cast_to_double", "S", []scCase{
		{[]any{"3.5"}, 3.5},
		{[]any{"1e2"}, 100.0},
		{[]any{"1e3x"}, 1000.0},
		{[]any{" 3.7"}, 3.7},
		{[]any{".5"}, 0.5},
		{[]any{"-.5e1"}, -5.0},
		{[]any{"12abc"}, 12.0},
		{[]any{"abc"}, 0.0},
		{[]any{""}, 0.0},
		{[]any{"-"}, 0.0},
		{[]any{"1e"}, 1.0},
		{[]any{"1e+"}, 1.0},
		{[]any{"1.5E-3"}, 0.0015},
		{[]any{"0.1"}, 0.1},
		{[]any{"123456789012345"}, 123456789012345.0},
		{[]any{"1234567890123456789"}, 1234567890123456789.0},
		{[]any{"0.30000000000000004"}, 0.30000000000000004},
		{[]any{"-0"}, math.Copysign(0, -1)},
		{[]any{"1e999"}, math.Inf(1)},
		{[]any{"0x10"}, 0.0},
		{[]any{"inf"}, 0.0},
		{[]any{nil}, nil},
	})
	scRun(t, "cast_to_double", "I", []scCase{{[]any{3}, 3.0}, {[]any{-9007199254740993}, -9007199254740992.0}, {[]any{nil}, nil}})
	scRun(t, "cast_to_double", "B", []scCase{{[]any{true}, 1.0}, {[]any{false}, 0.0}})
	scRun(t, "cast_to_double", "N", []scCase{{[]any{nil}, nil}})
}

func TestScCastToBoolean(t *testing.T) {
	scRun(t, "cast_to_boolean", "I", []scCase{{[]any{0}, false}, {[]any{-3}, true}, {[]any{nil}, nil}})
	scRun(t, "cast_to_boolean", "F", []scCase{{[]any{0.0}, false}, {[]any{-0.0}, false}, {[]any{0.001}, true}, {[]any{nil}, nil}})
	scRun(t, "cast_to_boolean", "S", []scCase{
		{[]any{"1"}, true}, {[]any{"0"}, false}, {[]any{"0.0"}, false}, {[]any{"abc"}, false},
		{[]any{"1abc"}, true}, {[]any{" 0.5"}, true}, {[]any{""}, false}, {[]any{nil}, nil},
	})
	scRun(t, "cast_to_boolean", "N", []scCase{{[]any{nil}, nil}})
}

func TestScCastToVarchar(t *testing.T) {
	scRun(t, "cast_to_varchar", "I", []scCase{
		{[]any{42}, "42"}, {[]any{-3}, "-3"}, {[]any{0}, "0"},
		{[]any{math.MinInt64}, "-9223372036854775808"}, {[]any{nil}, nil},
	})
	scRun(t, "cast_to_varchar", "F", []scCase{
		{[]any{2.5}, "2.5"},
		{[]any{38.8}, "38.8"}, // MySQL: CAST(38.8 AS CHAR) = '38.8'
		{[]any{1.5}, "1.5"},
		{[]any{0.1}, "0.1"},
		{[]any{100.0}, "100"},
		{[]any{-0.25}, "-0.25"},
		{[]any{1e20}, "1e20"},
		{[]any{1.5e-7}, "1.5e-7"},
		{[]any{1e15}, "1e15"},
		{[]any{123456789012345.0}, "123456789012345"},
		{[]any{999999999999999.9}, "999999999999999.9"},
		{[]any{0.0001}, "0.0001"},
		{[]any{0.00001}, "1e-5"},
		{[]any{-1.2345e100}, "-1.2345e100"},
		{[]any{0.30000000000000004}, "0.30000000000000004"},
		{[]any{0.0}, "0"},
		{[]any{math.Copysign(0, -1)}, "-0"},
		{[]any{math.Inf(1)}, "Infinity"},
		{[]any{math.Inf(-1)}, "-Infinity"},
		{[]any{math.NaN()}, "NaN"},
		{[]any{nil}, nil},
	})
	scRun(t, "cast_to_varchar", "B", []scCase{{[]any{true}, "1"}, {[]any{false}, "0"}, {[]any{nil}, nil}})
	scRun(t, "cast_to_varchar", "N", []scCase{{[]any{nil}, nil}})
	scRun(t, "cast_to_varchar", "S", []scCase{{[]any{"日本"}, "日本"}, {[]any{""}, ""}, {[]any{nil}, nil}})
}

// TestScAppendFloatRoundTrip checks that every printed DOUBLE reads back to
// the same value and matches strconv's shortest digits.
func TestScAppendFloatRoundTrip(t *testing.T) {
	vals := []float64{1, 3, 1.0 / 3, 2.0 / 3, 1e-300, 5e-324, math.MaxFloat64, 123.456, 1e14, 1e15 - 1,
		1e15, 9.999999999999999e14, 1e-4, 9.99e-5, 1e21, 12345678901234567890, 0.1, 6.02214076e23}
	for _, v := range vals {
		for _, x := range []float64{v, -v} {
			s := string(AppendFloat(nil, x))
			back, err := strconv.ParseFloat(s, 64)
			if err != nil || back != x {
				t.Errorf("AppendFloat(%v) = %q reads back as %v (%v)", x, s, back, err)
			}
		}
	}
}

// TestScParseFloatPrefixExact compares the fast path with strconv.
func TestScParseFloatPrefixExact(t *testing.T) {
	for _, s := range []string{"0.1", "0.7", "123.456", "999999999999999", "0.000000000000001", "1.7976931348623157",
		"4.35", "1.005", "-12.5", "00000000000000000001", "3.000000000000001"} {
		want, _ := strconv.ParseFloat(s, 64)
		if got := ParseFloatPrefix([]byte(s)); got != want {
			t.Errorf("ParseFloatPrefix(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestScCastSharesNothingMutable checks that a cast result with NULLs does
// not alias a bitmap the cast would later change, and that a constant
// input gives a constant output.
func TestScCastConst(t *testing.T) {
	for _, target := range []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		in := coldata.NewConst(coldata.String, "7", 5)
		out, err := castVec(in, target, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !out.Const || out.Len != 5 || out.Type != target {
			t.Errorf("cast of a constant to %s: const=%v len=%d type=%s", target, out.Const, out.Len, out.Type)
		}
		null := coldata.NewConst(coldata.Int64, nil, 5)
		out, err = castVec(null, target, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			if !out.IsNull(i) {
				t.Errorf("cast of constant NULL to %s: row %d not NULL", target, i)
			}
		}
	}
}
