package expr

import "math"

// Portable EXP and LN: the classic argument-reduction and polynomial
// algorithms (as in Sun's fdlibm), written so that every operation rounds
// once (explicit float64 conversions keep Go from fusing a*b+c on
// architectures with fused multiply-add). The GPU runtime
// (gpuexec/fuse/rt/, compiled with --fmad=false) runs the same steps,
// so both backends give the same bits; Go's math.Exp and math.Log are
// assembly on amd64 whose results depend on the CPU model.

const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	log2e = 1.44269504088896338700e+00

	expP1 = 1.66666666666666657415e-01
	expP2 = -2.77777777770155933842e-03
	expP3 = 6.61375632143793436117e-05
	expP4 = -1.65339022054652515390e-06
	expP5 = 4.13813679705723846039e-08

	expOverflow  = 7.09782712893383973096e+02
	expUnderflow = -7.45133219101941108420e+02

	logL1 = 6.666666666666735130e-01
	logL2 = 3.999999999940941908e-01
	logL3 = 2.857142874366239149e-01
	logL4 = 2.222219843214978396e-01
	logL5 = 1.818357216161805012e-01
	logL6 = 1.531383769920937332e-01
	logL7 = 1.479819860511658591e-01
)

// portableExp is e**x.
func portableExp(x float64) float64 {
	switch {
	case x != x || x > expOverflow:
		return x + math.Inf(1) // NaN stays NaN
	case x < expUnderflow:
		return 0
	case x > -0x1p-28 && x < 0x1p-28:
		return 1 + x
	}
	k := 0
	if x < 0 {
		k = int(float64(log2e*x) - 0.5)
	} else {
		k = int(float64(log2e*x) + 0.5)
	}
	fk := float64(k)
	hi := x - float64(fk*ln2Hi)
	lo := float64(fk * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	p := expP4 + float64(t*expP5)
	p = expP3 + float64(t*p)
	p = expP2 + float64(t*p)
	p = expP1 + float64(t*p)
	c := r - float64(t*p)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// portableLog is the natural logarithm (x < 0: NaN, 0: -Inf).
func portableLog(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := logL5 + float64(s4*logL7)
	t1 = logL3 + float64(s4*t1)
	t1 = float64(s2 * (logL1 + float64(s4*t1)))
	t2 := logL4 + float64(s4*logL6)
	t2 = float64(s4 * (logL2 + float64(s4*t2)))
	R := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+R)) + float64(k*ln2Lo))) - f)
}

// portableLog10 is log10(x) = ln(x) / ln(10).
func portableLog10(x float64) float64 { return float64(portableLog(x) * (1 / math.Ln10)) }

// portablePow is x**y for finite, non-special operands; the caller (POWER)
// makes non-finite results NULL. The integer part of y is applied by
// repeated squaring of x's mantissa with the exponent kept apart (so large
// powers neither overflow early nor lose bits), the fractional part, at
// most one half, through exp(yf * ln x).
func portablePow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case x != x || y != y:
		return math.NaN()
	case x == 0:
		odd := isOddInt(y)
		switch {
		case y < 0 && math.Signbit(x) && odd:
			return math.Inf(-1)
		case y < 0:
			return math.Inf(1)
		case math.Signbit(x) && odd:
			return x
		}
		return 0
	case math.IsInf(y, 0):
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == (y > 0):
			return 0
		}
		return math.Inf(1)
	case math.IsInf(x, 0):
		if x < 0 {
			return portablePow(1/x, -y)
		}
		if y < 0 {
			return 0
		}
		return math.Inf(1)
	}
	yi, yf := math.Modf(math.Abs(y))
	if yf != 0 && x < 0 {
		return math.NaN()
	}
	if yi >= 0x1p63 {
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == (y > 0):
			return 0
		}
		return math.Inf(1)
	}
	a := 1.0
	ae := 0
	if yf != 0 {
		if yf > 0.5 {
			yf--
			yi++
		}
		a = portableExp(float64(yf * portableLog(x)))
	}
	m, me := math.Frexp(x)
	for i := int64(yi); i != 0; i >>= 1 {
		if me < -1<<12 || 1<<12 < me {
			// Far past the exponent range: only the sign of the
			// overflow or underflow is left to settle.
			ae += me
			break
		}
		if i&1 == 1 {
			a *= m
			ae += me
		}
		m *= m
		me <<= 1
		if m < 0.5 {
			m += m
			me--
		}
	}
	if y < 0 {
		a = 1 / a
		ae = -ae
	}
	return math.Ldexp(a, ae)
}

// isOddInt reports whether x is an odd integer.
func isOddInt(x float64) bool {
	if math.Abs(x) >= 0x1p53 {
		return false // every such double is even
	}
	xi, xf := math.Modf(x)
	return xf == 0 && int64(xi)&1 == 1
}
