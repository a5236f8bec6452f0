package catalog

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/gsqlengine/gsql/hashmix"
)

// sketchBits is the HyperLogLog precision p: 2^p one-byte registers
// (4 KiB a column), a standard error of 1.04/sqrt(2^p), about 1.6%.
const sketchBits = 12

const sketchRegs = 1 << sketchBits

// Sketch is a HyperLogLog distinct-count sketch (Flajolet et al.) over
// 64-bit hashes, estimated with Ertl's improved estimator, which needs
// no empirical bias tables and is accurate from a handful of values to
// billions. The hashes are fixed functions of the values (hashInt,
// hashBytes), not seeded per process, so that sketches persisted by one
// process merge with those of another.
type Sketch struct {
	reg [sketchRegs]uint8
}

// Add records a hashed value.
func (s *Sketch) Add(h uint64) {
	i := h >> (64 - sketchBits)
	// The rank of the first 1 bit after the index bits; the sentinel bit
	// bounds it at 64-p+1.
	r := uint8(bits.LeadingZeros64(h<<sketchBits|1<<(sketchBits-1)) + 1)
	if r > s.reg[i] {
		s.reg[i] = r
	}
}

// Merge makes s the sketch of the union of s's and o's values.
func (s *Sketch) Merge(o *Sketch) {
	for i, r := range o.reg {
		if r > s.reg[i] {
			s.reg[i] = r
		}
	}
}

// Estimate returns the estimated number of distinct values added.
func (s *Sketch) Estimate() float64 {
	const q = 64 - sketchBits
	var c [q + 2]int
	for _, r := range s.reg {
		c[r]++
	}
	m := float64(sketchRegs)
	z := m * ertlTau(1-float64(c[q+1])/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * ertlSigma(float64(c[0])/m)
	if math.IsInf(z, 1) {
		return 0 // every register empty
	}
	return m * m / (2 * math.Ln2) / z
}

// ertlSigma is sigma(x) = x + sum_k x^(2^k) 2^(k-1) (Ertl 2017).
func ertlSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// ertlTau is tau(x) = (1 - x - sum_k (1 - x^(2^-k))^2 2^-k) / 3.
func ertlTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// Sketch encodings: dense is every register; sparse, for sketches of few
// values, is (index uint16, rank byte) per non-empty register.
const (
	sketchDense  = 1
	sketchSparse = 2
)

// MarshalBinary encodes s compactly (small tables take a few bytes).
func (s *Sketch) MarshalBinary() ([]byte, error) {
	n := 0
	for _, r := range s.reg {
		if r != 0 {
			n++
		}
	}
	if 3*n < sketchRegs {
		out := make([]byte, 1, 1+3*n)
		out[0] = sketchSparse
		for i, r := range s.reg {
			if r != 0 {
				out = binary.LittleEndian.AppendUint16(out, uint16(i))
				out = append(out, r)
			}
		}
		return out, nil
	}
	out := make([]byte, 1+sketchRegs)
	out[0] = sketchDense
	copy(out[1:], s.reg[:])
	return out, nil
}

// UnmarshalBinary decodes MarshalBinary's encoding.
func (s *Sketch) UnmarshalBinary(b []byte) error {
	*s = Sketch{}
	if len(b) == 0 {
		return errors.New("sketch: empty encoding")
	}
	const maxRank = 64 - sketchBits + 1
	switch b[0] {
	case sketchDense:
		if len(b) != 1+sketchRegs {
			return errors.New("sketch: wrong length")
		}
		copy(s.reg[:], b[1:])
	case sketchSparse:
		if (len(b)-1)%3 != 0 {
			return errors.New("sketch: wrong length")
		}
		for p := b[1:]; len(p) > 0; p = p[3:] {
			i := binary.LittleEndian.Uint16(p)
			if int(i) >= sketchRegs {
				return errors.New("sketch: register out of range")
			}
			s.reg[i] = p[2]
		}
	default:
		return errors.New("sketch: unknown encoding")
	}
	for _, r := range s.reg {
		if r > maxRank {
			return errors.New("sketch: rank out of range")
		}
	}
	return nil
}

// hashBytes hashes a string eight bytes at a time.
func hashBytes(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		h = hashmix.SplitMix64(h ^ binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * i)
		}
		h = hashmix.SplitMix64(h ^ t ^ 0xff<<56)
	}
	return hashmix.SplitMix64(h)
}

// hashFloat hashes a double so that equal values hash alike (0 and -0).
func hashFloat(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	return hashmix.SplitMix64(math.Float64bits(f))
}

// hashDec hashes a 128-bit decimal.
func hashDec(lo uint64, hi int64) uint64 {
	return hashmix.SplitMix64(hashmix.SplitMix64(lo) ^ uint64(hi))
}
