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
