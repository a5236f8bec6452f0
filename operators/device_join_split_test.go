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
	if got, want := pairLimit(64<<20, 64), int64(262144); got != want {
		t.Errorf("pair limit of a 64 MiB pool at 64 bytes a pair: %d, want %d", got, want)
	}
	if got := pairLimit(1<<20, 64); got != minPairLimit {
		t.Errorf("pair limit of a 1 MiB pool: %d, want the floor %d", got, minPairLimit)
	}
	if got := pairLimit(0, 64); got != 1<<31-1 {
		t.Errorf("pair limit without a memory figure: %d", got)
	}
}
