package gpuexec

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// exactMoments is the mean and sum of squared deviations of xs in 512-bit
// arithmetic, rounded to float64.
func exactMoments(xs []float64) (mean, m2 float64) {
	const prec = 512
	sum := new(big.Float).SetPrec(prec)
	for _, x := range xs {
		sum.Add(sum, big.NewFloat(x))
	}
	mu := new(big.Float).SetPrec(prec).Quo(sum, new(big.Float).SetInt64(int64(len(xs))))
	acc := new(big.Float).SetPrec(prec)
	for _, x := range xs {
		d := new(big.Float).SetPrec(prec).Sub(big.NewFloat(x), mu)
		acc.Add(acc, d.Mul(d, d))
	}
	mean, _ = mu.Float64()
	m2, _ = acc.Float64()
	return mean, m2
}

// TestShiftedMoments replays kernels/hash.cu's kind-15 arithmetic on the
// host: the shift is one of the group's values, the shifted sums add in a
// scrambled order (as the device's atomics do), and shiftedMoments turns
// them into the mean and M2, which must match exact arithmetic closely also
// for large means, where sums of squares without a shift cancel away.
func TestShiftedMoments(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := []struct {
		name        string
		base, width float64
		n           int
	}{
		{"one value", 5, 0, 1},
		{"equal values", 1e9 + 0.5, 0, 1000},
		{"small", 0, 10, 100},
		{"negative", -3e4, 2, 5000},
		{"large mean", 1e9, 1, 1 << 16},
		{"huge mean", 1e12, 100, 1 << 16},
	}
	for _, c := range cases {
		xs := make([]float64, c.n)
		for i := range xs {
			xs[i] = c.base + c.width*r.Float64()
		}
		k := math.Float64bits(xs[r.Intn(len(xs))])
		var s1, s2 float64
		for _, j := range r.Perm(len(xs)) {
			d := xs[j] - math.Float64frombits(k)
			s1 += d
			s2 += d * d
		}
		mean, m2 := shiftedMoments(int64(len(xs)), k, s1, s2)
		wantMean, wantM2 := exactMoments(xs)
		if math.Abs(mean-wantMean) > 1e-15*math.Abs(wantMean) {
			t.Errorf("%s: mean %v, want %v", c.name, mean, wantMean)
		}
		if m2 < 0 || math.Abs(m2-wantM2) > 1e-10*wantM2+1e-12*float64(c.n)*c.width*c.width {
			t.Errorf("%s: M2 %v, want %v", c.name, m2, wantM2)
		}
	}
	if mean, m2 := shiftedMoments(0, varUnset, 0, 0); mean != 0 || m2 != 0 {
		t.Errorf("no values: %v, %v", mean, m2)
	}
	if _, m2 := shiftedMoments(1, math.Float64bits(math.Inf(1)), math.NaN(), math.NaN()); !math.IsNaN(m2) {
		t.Errorf("infinite value: M2 %v, want NaN", m2)
	}
}

// TestVarianceKind maps the variance family onto the device: DOUBLE
// arguments only (the binder casts every other one), shift unset at first.
func TestVarianceKind(t *testing.T) {
	if GroupVariance != 15 {
		t.Fatalf("GroupVariance is %d, hash.cu's kind is 15", GroupVariance)
	}
	if k, ok := GroupAggFor("var", coldata.Float64); !ok || k != GroupVariance {
		t.Fatalf("var over DOUBLE: %v %v", k, ok)
	}
	if _, ok := GroupAggFor("var", coldata.Int64); ok {
		t.Fatal("var over BIGINT has a device form")
	}
	if v, ok := stateInit(GroupVariance); !ok || v != varUnset || !math.IsNaN(math.Float64frombits(v)) {
		t.Fatalf("stateInit: %#x %v", v, ok)
	}
}
