package expr

import "github.com/gsqlengine/gsql/coldata"

// BuildStrings makes a String vector of n rows in two passes, the algorithm
// the GPU kernels use too: size(i) returns row i's byte length, the lengths
// are scanned into offsets, then fill(i, dst) writes exactly that many bytes
// into the pre-sized buffer. Rows that are NULL in valid (a validity bitmap,
// nil for none) are skipped and come out empty and NULL.
func BuildStrings(n int, valid []byte, size func(i int) int, fill func(i int, dst []byte)) *coldata.Vec {
	out := &coldata.Vec{Type: coldata.String, Len: n, Nulls: valid}
	offs := make([]int32, n+1)
	total := 0
	for i := 0; i < n; i++ {
		if valid == nil || coldata.BitIsSet(valid, i) {
			total += size(i)
		}
		offs[i+1] = int32(total)
	}
	buf := make([]byte, total)
	for i := 0; i < n; i++ {
		if lo, hi := offs[i], offs[i+1]; hi > lo {
			fill(i, buf[lo:hi])
		}
	}
	out.Offsets = offs
	out.Bytes = buf
	return out
}
