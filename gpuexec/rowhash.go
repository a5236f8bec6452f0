package gpuexec

import (
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/hashmix"
)

// RowHash is the hash the device kernels give row r of the key columns
// cols (gsql_row_hash in kernels/hash.cu), computed on the CPU bit for
// bit: equal keys (NULL equal to NULL, -0.0 to 0.0, strings by bytes)
// hash equally, and a host and a device that split rows by it agree on
// every row's partition. Change both or neither.
func RowHash(cols []*coldata.Vec, r int) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, c := range cols {
		i := r
		if c.Const {
			i = 0
		}
		var v uint64
		switch t := c.Type.Physical(); {
		case t == coldata.Null || c.IsNull(r):
			v = 0x2545f4914f6cdd1d
		case t == coldata.Decimal:
			d := c.Decs[i]
			v = d.Lo ^ hashmix.Mix64(uint64(d.Hi)+0x632be59bd9b4e019)
		case t == coldata.String:
			s := c.Bytes[c.Offsets[i]:c.Offsets[i+1]]
			v = 0xcbf29ce484222325 ^ uint64(len(s))
			for _, b := range s {
				v = (v ^ uint64(b)) * 0x100000001b3
			}
		case t == coldata.Bool:
			v = uint64(c.Bools[i])
		case t == coldata.Float64:
			if v = math.Float64bits(c.Floats[i]); v<<1 == 0 {
				v = 0 // -0.0 groups with 0.0
			}
		default:
			v = uint64(c.Ints[i])
		}
		h = hashmix.Mix64(h ^ (v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)))
	}
	return h
}

// hashPartBits is the partitions SplitByHash cuts a batch into before it
// hands contiguous runs of them to the destinations: 2^8, so that no
// destination of up to 256 gets more than 1/256 of the rows above its share.
const hashPartBits = 8

// HashDestination is the destination, of n, of a row whose RowHash is h:
// the top hashPartBits bits of h scaled to n. SplitByHash gives every row
// this destination.
func HashDestination(h uint64, n int) int {
	return int((h >> (64 - hashPartBits)) * uint64(n) >> hashPartBits)
}

// HashDestinations is each row's HashDestination of n by the key columns
// keys of b: the CPU's side of SplitByHash.
func HashDestinations(b *coldata.Batch, keys []int, n int) ([]int, error) {
	if n < 1 || n > 1<<hashPartBits {
		return nil, invalidf("hash split into %d destinations (1 to %d)", n, 1<<hashPartBits)
	}
	cols := make([]*coldata.Vec, len(keys))
	for i, k := range keys {
		if k < 0 || k >= len(b.Cols) {
			return nil, invalidf("hash split key column %d of %d", k, len(b.Cols))
		}
		cols[i] = b.Cols[k]
	}
	out := make([]int, b.Len)
	for r := range out {
		out[r] = HashDestination(RowHash(cols, r), n)
	}
	return out, nil
}
