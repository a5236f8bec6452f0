package operators

import (
	"slices"
	"testing"
)

// TestPieceSplits: a probe batch is cut into about equal pieces, at
// multiples of 64 rows when the pieces are that long (byte-aligned
// validity), never into empty ones.
func TestPieceSplits(t *testing.T) {
	for _, c := range []struct {
		rows, pieces int
		want         []int
	}{
		{1000, 2, []int{448}},
		{5120, 4, []int{1280, 2560, 3840}},
		{100, 4, []int{25, 50, 75}},
		{3, 8, []int{1, 2}},
		{1, 2, []int{}},
	} {
		if got := pieceSplits(c.rows, c.pieces); !slices.Equal(got, c.want) {
			t.Errorf("%d rows in %d pieces: splits %v, want %v", c.rows, c.pieces, got, c.want)
		}
	}
	for _, c := range []struct {
		limit, free uint64
		want        int64
	}{
		{64 << 20, 64 << 20, 262144},     // a free 64 MiB pool at 64 bytes a pair
		{64 << 20, 16 << 20, 65536},      // three quarters of it held
		{1 << 20, 1 << 20, minPairLimit}, // the floor
		{64 << 20, 0, minPairLimit},      // nothing left: the floor, then cuts on out-of-memory
		{0, 0, 1<<31 - 1},                // no memory figure: what a batch holds
	} {
		if got := pairLimit(c.limit, c.free, 64); got != c.want {
			t.Errorf("pair limit with %d of %d bytes free: %d, want %d", c.free, c.limit, got, c.want)
		}
	}
}
