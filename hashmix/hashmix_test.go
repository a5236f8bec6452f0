package hashmix

import "testing"

// TestMix64Values pins the finaliser to MurmurHash3's fmix64 (the
// device's gsql_mix64 computes the same, and partitions depend on it).
func TestMix64Values(t *testing.T) {
	for _, tc := range []struct{ in, want uint64 }{
		{0, 0},
		{1, 0xb456bcfc34c2cb2c},
		{0xffffffffffffffff, 0x64b5720b4b825f21},
	} {
		if got := Mix64(tc.in); got != tc.want {
			t.Errorf("Mix64(%#x) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestSplitMix64Values pins splitmix64's finaliser (generated data and
// stored sketches depend on it).
func TestSplitMix64Values(t *testing.T) {
	for _, tc := range []struct{ in, want uint64 }{
		{0, 0},
		{1, 0x5692161d100b05e5},
		{0x9e3779b97f4a7c15, 0xe220a8397b1dcdaf},
	} {
		if got := SplitMix64(tc.in); got != tc.want {
			t.Errorf("SplitMix64(%#x) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}
