//go:build cuda

package gpuexec

import (
	"os"
	"testing"
)

// TestCUDAScanHotColumnsUnderCap: on the GPU, under a pool limit that holds
// two of a table's columns, a warm scan uploads nothing and a scan of
// three streams only the third beside views of the resident two, with
// the host's rows (the fake-driver test's steps).
func TestCUDAScanHotColumnsUnderCap(t *testing.T) {
	if os.Getenv("GSQL_EXPECT_NO_GPU") != "" {
		t.Skip("GSQL_EXPECT_NO_GPU set")
	}
	runHotColumns(t, func(t *testing.T, opts Options) *Device {
		d, err := NewDevice(opts)
		if err != nil {
			t.Fatalf("NewDevice: %v", err)
		}
		return d // runHotColumns closes it
	})
}
