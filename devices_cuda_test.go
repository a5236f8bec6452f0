//go:build cuda

package gsql_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
)

// TestCUDADevicesOption: Options.Devices opens a device state per listed
// GPU (every one by default), queries run on the first, .stats shows each;
// a GPU that is not there is skipped in auto mode and fails strict mode.
func TestCUDADevicesOption(t *testing.T) {
	n, err := gpuexec.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		device, devices string
		open            int // devices open
		skipped         int
		err             bool
	}{
		{"gpu", "", 1, 0, false}, // the default: GPU 0 alone
		{"gpu", "all", n, 0, false},
		{"gpu", "0", 1, 0, false},
		{"auto", fmt.Sprintf("0,%d", n), 1, 1, false},
		{"gpu", fmt.Sprintf("0,%d", n), 0, 0, true},
	} {
		name := c.device + "/" + c.devices
		db, err := gsql.Open(gsql.Options{Device: c.device, Devices: c.devices})
		if c.err {
			if err == nil || !errors.Is(err, gpuexec.ErrNoDevice) {
				if db != nil {
					db.Close()
				}
				t.Fatalf("%s: %v, want an error wrapping ErrNoDevice", name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st := db.Stats()
		if len(st.Devices) != c.open || len(st.SkippedDevices) != c.skipped || !st.Devices[0].Queries || st.Devices[0].Ordinal != 0 {
			t.Fatalf("%s: %d devices, skipped %v; want %d and %d", name, len(st.Devices), st.SkippedDevices, c.open, c.skipped)
		}
		if (c.open > 1 || c.skipped > 0) != strings.Contains(st.String(), "runs the queries") {
			t.Fatalf("%s: .stats per-device lines:\n%s", name, st)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
