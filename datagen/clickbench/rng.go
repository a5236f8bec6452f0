package clickbench

import (
	"math"

	"github.com/gsqlengine/gsql/hashmix"
)

// rng is a splitmix64 stream. Each row starts its own stream from the
// seed and the row's number, so rows do not depend on one another.
type rng struct{ s uint64 }

func rowRNG(seed uint64, row int64) rng {
	return rng{s: hashmix.SplitMix64(seed*0x9e3779b97f4a7c15 + uint64(row)*0xd1b54a32d192ed03 + 1)}
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return hashmix.SplitMix64(r.s)
}

// intn is uniform in [0, n).
func (r *rng) intn(n int) int { return int((r.next() >> 33) % uint64(n)) }

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance is true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// zipf draws ranks in [0, n) with probability falling like
// 1/(rank+1)^s (the continuous inverse of that density on [1, n+1]):
// rank 0 is the most frequent.
type zipf struct {
	n    int
	a    float64 // (n+1)^(1-s) - 1
	invE float64 // 1/(1-s)
}

// newZipf returns the distribution of n ranks with exponent s (s != 1).
func newZipf(n int, s float64) zipf {
	e := 1 - s
	return zipf{n: n, a: math.Pow(float64(n+1), e) - 1, invE: 1 / e}
}

func (r *rng) zipf(z zipf) int {
	if z.n <= 1 {
		return 0
	}
	x := math.Exp(math.Log1p(r.float()*z.a) * z.invE)
	return min(max(int(x)-1, 0), z.n-1)
}

// weighted draws an index of w with probability proportional to w[i].
func (r *rng) weighted(w []int) int {
	t := 0
	for _, v := range w {
		t += v
	}
	x := r.intn(t)
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// fnv64 is FNV-1a of s, the hashes of URL and Referer.
func fnv64(s []byte) int64 {
	h := uint64(14695981039346656037)
	for _, c := range s {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return int64(h)
}
