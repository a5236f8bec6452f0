package bytesize

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"", 0, true}, {"4096", 4096, true}, {"2GiB", 2 << 30, true}, {"2G", 2 << 30, true},
		{"512MiB", 512 << 20, true}, {"1.5gib", 3 << 29, true}, {"100MB", 100e6, true}, {"1 KiB", 1024, true},
		{"lots", 0, false}, {"2XB", 0, false}, {"-1G", 0, false}, {"1e30TB", 0, false},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v", tc.in, got, err)
		}
	}
}
