package operators

import "testing"

// The partitions a build side needs: a power of two, at least 2, each
// within the budget, at most 1024.
func TestOOMPartitionCount(t *testing.T) {
	for _, c := range []struct {
		bytes, budget uint64
		want          int
	}{
		{100, 1000, 2}, {1000, 1000, 2}, {2001, 1000, 4}, {8000, 1000, 8}, {8001, 1000, 16},
		{1 << 40, 1, 1024}, {5, 0, 1024},
	} {
		if got := oomPartitions(c.bytes, c.budget); got != c.want {
			t.Errorf("oomPartitions(%d, %d) = %d, want %d", c.bytes, c.budget, got, c.want)
		}
	}
}
