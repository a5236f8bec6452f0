package decimal

import (
	"math/big"
	"math/rand"
	"testing"
)

func TestArithmeticMatchesBig(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	lim := new(big.Int).Lsh(big.NewInt(1), 127)
	inRange := func(b *big.Int) bool { return b.Cmp(lim) < 0 && b.Cmp(new(big.Int).Neg(lim)) >= 0 }
	gen := func() Int128 {
		switch r.Intn(4) {
		case 0:
			return FromInt64(r.Int63n(2000) - 1000)
		case 1:
			return Int128{Lo: r.Uint64(), Hi: r.Int63n(1<<20) - 1<<19}
		case 2:
			return Int128{Lo: r.Uint64(), Hi: int64(r.Uint64())}
		}
		return FromInt64(int64(r.Uint64()))
	}
	for i := 0; i < 200000; i++ {
		x, y := gen(), gen()
		bx, by := x.big(), y.big()
		check := func(op string, got Int128, ok bool, want *big.Int) {
			if inRange(want) != ok || (ok && got.big().Cmp(want) != 0) {
				t.Fatalf("%s %s %s = %s, %v; want %s", x.big(), op, y.big(), got.big(), ok, want)
			}
		}
		s, ok := x.Add(y)
		check("+", s, ok, new(big.Int).Add(bx, by))
		d, ok := x.Sub(y)
		check("-", d, ok, new(big.Int).Sub(bx, by))
		m, ok := x.Mul(y)
		check("*", m, ok, new(big.Int).Mul(bx, by))
		if y.Sign() != 0 {
			q, _ := x.Quo(y)
			check("quo", q, true, new(big.Int).Quo(bx, by))
		}
	}
}

func TestParseFormatRound(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  string
		ok    bool
	}{
		{"12.345", 2, "12.35", true},
		{"-12.345", 2, "-12.35", true},
		{"12.344", 2, "12.34", true},
		{"0.5", 0, "1", true},
		{"-0.5", 0, "-1", true},
		{" 7 ", 3, "7.000", true},
		{"1e3", 1, "1000.0", true},
		{".25", 2, "0.25", true},
		{"-0.001", 3, "-0.001", true},
		{"99999999999999999999999999999999999999", 0, "99999999999999999999999999999999999999", true},
		{"abc", 2, "", false},
		{"1/2", 2, "", false},
		{"", 2, "", false},
	} {
		x, ok := Parse(tc.in, tc.scale)
		if ok != tc.ok || (ok && x.String(tc.scale) != tc.want) {
			t.Errorf("Parse(%q, %d) = %s, %v; want %s, %v", tc.in, tc.scale, x.String(tc.scale), ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		f     float64
		scale int
		want  string
	}{{1.005, 2, "1.01"}, {-2.5, 0, "-3"}, {0.1, 1, "0.1"}, {123.456, 1, "123.5"}} {
		x, ok := FromFloat64(tc.f, tc.scale)
		if !ok || x.String(tc.scale) != tc.want {
			t.Errorf("FromFloat64(%v, %d) = %s", tc.f, tc.scale, x.String(tc.scale))
		}
	}
	x, _ := Parse("123.456", 3)
	if r, _ := x.Rescale(3, 1); r.String(1) != "123.5" {
		t.Errorf("Rescale = %s", r.String(1))
	}
	if Pow10(38).Fits(38) || !Pow10(37).Fits(38) {
		t.Errorf("10^38 fits 38 digits")
	}
	if f := FromInt64(-12345).Float64(2); f != -123.45 {
		t.Errorf("Float64 = %v", f)
	}
}
