package expr

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// Expected values follow the MySQL 8 reference, Mathematical Functions:
// ABS(2) = 2, ABS(-32) = 32; CEILING(1.23) = 2, CEILING(-1.23) = -1;
// FLOOR(1.23) = 1, FLOOR(-1.23) = -2; ROUND(-1.23) = -1, ROUND(-1.58) = -2,
// ROUND(1.58) = 2, ROUND(1.298, 1) = 1.3, ROUND(1.298, 0) = 1,
// ROUND(23.298, -1) = 20, ROUND(150, 2) = 150, ROUND(2.5) = 3 (exact value);
// TRUNCATE(1.223,1) = 1.2, TRUNCATE(1.999,1) = 1.9, TRUNCATE(1.999,0) = 1,
// TRUNCATE(-1.999,1) = -1.9, TRUNCATE(122,-2) = 100; SIGN(-32) = -1,
// SIGN(0) = 0, SIGN(234) = 1; SQRT(4) = 2, SQRT(20) = 4.4721359549996,
// SQRT(-16) = NULL; POW(2,2) = 4, POW(2,-2) = 0.25; EXP(2) =
// 7.3890560989307, EXP(-2) = 0.13533528323661, EXP(0) = 1; LN(2) =
// 0.69314718055995, LN(-2) = NULL; LOG10(2) = 0.30102999566398,
// LOG10(100) = 2, LOG10(-100) = NULL; PI() = 3.141593 (printed to 6
// places). MySQL's DECIMAL example TRUNCATE(10.28*100, 0) = 1028 is not
// reproducible with DOUBLE arithmetic (10.28*100 = 1027.9999999999999).

func TestScAbsSign(t *testing.T) {
	scRun(t, "abs", "I", []scCase{{[]any{2}, 2}, {[]any{-32}, 32}, {[]any{0}, 0}, {[]any{-scMax}, scMax}, {[]any{nil}, nil}, {[]any{scMin}, scErr{}}})
	scRun(t, "abs", "F", []scCase{{[]any{-2.5}, 2.5}, {[]any{math.Copysign(0, -1)}, 0.0}, {[]any{nil}, nil}})
	scRun(t, "abs", "S", []scCase{{[]any{"-3"}, 3.0}})
	scRun(t, "abs", "B", []scCase{{[]any{true}, 1}})
	scRun(t, "sign", "I", []scCase{{[]any{-32}, -1}, {[]any{0}, 0}, {[]any{234}, 1}, {[]any{scMin}, -1}, {[]any{nil}, nil}})
	scRun(t, "sign", "F", []scCase{{[]any{-0.5}, -1}, {[]any{0.0}, 0}, {[]any{1e-300}, 1}, {[]any{nil}, nil}})
}

func TestScFloorCeil(t *testing.T) {
	scRun(t, "floor", "F", []scCase{{[]any{1.23}, 1.0}, {[]any{-1.23}, -2.0}, {[]any{1e30}, 1e30}, {[]any{-0.5}, -1.0}, {[]any{nil}, nil}})
	scRun(t, "ceil", "F", []scCase{{[]any{1.23}, 2.0}, {[]any{-1.23}, math.Copysign(0, -1) - 1}, {[]any{-0.5}, math.Copysign(0, -1)}, {[]any{nil}, nil}})
	scRun(t, "ceiling", "F", []scCase{{[]any{1.23}, 2.0}, {[]any{-1.23}, -1.0}})
	scRun(t, "floor", "I", []scCase{{[]any{scMin}, scMin}, {[]any{7}, 7}, {[]any{nil}, nil}})
	scRun(t, "ceil", "S", []scCase{{[]any{"1.2x"}, 2.0}})
}

func TestScRound(t *testing.T) {
	scRun(t, "round", "F", []scCase{
		{[]any{-1.23}, -1.0}, {[]any{-1.58}, -2.0}, {[]any{1.58}, 2.0},
		{[]any{2.5}, 3.0}, {[]any{-2.5}, -3.0}, {[]any{0.5}, 1.0}, {[]any{-0.5}, -1.0},
		{[]any{0.49999999999999994}, 0.0}, {[]any{-0.4}, math.Copysign(0, -1)},
		{[]any{1e300}, 1e300}, {[]any{math.Inf(-1)}, math.Inf(-1)}, {[]any{nil}, nil},
	})
	scRun(t, "round", "FI", []scCase{
		{[]any{1.298, 1}, 1.3},
		{[]any{1.298, 0}, 1.0},
		{[]any{23.298, -1}, 20.0},
		{[]any{150.0, 2}, 150.0},
		{[]any{1.005, 2}, 1.01}, // decimal digits, as MySQL's exact value
		{[]any{2.675, 2}, 2.68},
		{[]any{-2.675, 2}, -2.68},
		{[]any{1.0049999, 2}, 1.0},
		{[]any{999.995, 2}, 1000.0},
		{[]any{0.0005, 3}, 0.001},
		{[]any{0.0004, 3}, 0.0},
		{[]any{1234.5678, -2}, 1200.0},
		{[]any{1250.0, -2}, 1300.0},
		{[]any{-1250.0, -2}, -1300.0},
		{[]any{0.12345678901234568, 35}, 0.12345678901234568},
		{[]any{5e-324, 400}, 5e-324},
		{[]any{1e300, -400}, 0.0},
		{[]any{4.5e-30, 30}, 5e-30},
		{[]any{1.5, nil}, nil},
		{[]any{nil, 1}, nil},
	})
	scRun(t, "round", "I", []scCase{{[]any{150}, 150}, {[]any{nil}, nil}})
	scRun(t, "round", "II", []scCase{
		{[]any{150, 2}, 150},
		{[]any{1250, -2}, 1300},
		{[]any{1249, -2}, 1200},
		{[]any{-1250, -2}, -1300},
		{[]any{-1249, -2}, -1200},
		{[]any{scMax, -18}, 9000000000000000000},
		{[]any{4000000000000000000, -19}, 0},
		{[]any{scMax, -40}, 0},
		{[]any{nil, -1}, nil},
		{[]any{scMax, -1}, scErr{}},
		{[]any{scMax, -19}, scErr{}},
	})
	scRun(t, "round", "IF", []scCase{{[]any{1250, -2.4}, 1300}}) // d converts to BIGINT
}

func TestScTruncate(t *testing.T) {
	scRun(t, "truncate", "FI", []scCase{
		{[]any{1.223, 1}, 1.2},
		{[]any{1.999, 1}, 1.9},
		{[]any{1.999, 0}, 1.0},
		{[]any{-1.999, 1}, -1.9},
		{[]any{4.35, 2}, 4.35}, // 4.35*100 = 434.99999999999994 in binary
		{[]any{0.3, 1}, 0.3},
		{[]any{-0.35, 1}, -0.3},
		{[]any{1.5, 5}, 1.5},
		{[]any{1999.0, -3}, 1000.0},
		{[]any{-0.05, 1}, math.Copysign(0, -1)},
		{[]any{nil, 1}, nil},
	})
	scRun(t, "truncate", "II", []scCase{
		{[]any{122, -2}, 100},
		{[]any{-199, -2}, -100},
		{[]any{scMax, -1}, 9223372036854775800},
		{[]any{scMin, -18}, -9000000000000000000},
		{[]any{scMax, -19}, 0},
		{[]any{5, 3}, 5},
	})
}

// TestScRoundReference compares ROUND/TRUNCATE of DOUBLE with rounding on
// the decimal text strconv prints, for random values and scales.
func TestScRoundReference(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for iter := 0; iter < 20000; iter++ {
		x := (r.Float64() - 0.5) * math.Pow(10, float64(r.Intn(12)-4))
		if r.Intn(3) == 0 {
			// Values with few decimals sit exactly on ties in decimal.
			x = float64(r.Intn(200000)-100000) / math.Pow(10, float64(r.Intn(5)))
		}
		d := int64(r.Intn(8) - 2)
		for _, trunc := range []bool{false, true} {
			got := roundFloat(x, d, trunc)
			want := roundDecimal(x, d, trunc)
			if got != want && !(got == 0 && want == 0) {
				t.Fatalf("round(%v, %d, trunc=%v) = %v, decimal reference %v", x, d, trunc, got, want)
			}
		}
	}
	// The decimal reference itself against formatted text for a few values.
	for _, c := range []struct {
		x    float64
		d    int64
		want string
	}{{2.675, 2, "2.68"}, {1.005, 2, "1.01"}, {-0.125, 2, "-0.13"}, {0.125, 1, "0.1"}, {99.95, 1, "100"}} {
		if got := strconv.FormatFloat(roundDecimal(c.x, c.d, false), 'f', -1, 64); got != c.want {
			t.Errorf("roundDecimal(%v, %d) = %s, want %s", c.x, c.d, got, c.want)
		}
	}
}

func TestScPowerEtc(t *testing.T) {
	scRun(t, "sqrt", "I", []scCase{{[]any{4}, 2.0}, {[]any{20}, scApprox(4.47213595499958)}, {[]any{-16}, nil}, {[]any{0}, 0.0}, {[]any{nil}, nil}})
	scRun(t, "power", "II", []scCase{{[]any{2, 2}, 4.0}, {[]any{2, -2}, 0.25}, {[]any{0, 0}, 1.0}, {[]any{nil, 2}, nil}})
	scRun(t, "pow", "FF", []scCase{{[]any{-8.0, 1.0 / 3}, nil}, {[]any{10.0, 400.0}, nil}, {[]any{0.0, -1.0}, nil}, {[]any{-2.0, 3.0}, -8.0}})
	scRun(t, "exp", "I", []scCase{{[]any{2}, scApprox(7.38905609893065)}, {[]any{-2}, scApprox(0.1353352832366127)}, {[]any{0}, 1.0}, {[]any{nil}, nil}})
	scRun(t, "ln", "I", []scCase{{[]any{2}, scApprox(0.6931471805599453)}, {[]any{-2}, nil}, {[]any{0}, nil}, {[]any{1}, 0.0}})
	scRun(t, "log10", "I", []scCase{{[]any{2}, scApprox(0.3010299956639812)}, {[]any{100}, 2.0}, {[]any{-100}, nil}})
	scRun(t, "log10", "S", []scCase{{[]any{"1000"}, 3.0}, {[]any{"x"}, nil}})
	if got := scEval1(t, "pi", ""); got != math.Pi {
		t.Errorf("PI() = %v", got)
	}
}
