package gsql

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
)

// TestDeviceOrdinals: Options.Devices resolves against the GPUs present;
// listed GPUs that are missing are skipped with a reason, malformed
// lists are errors.
func TestDeviceOrdinals(t *testing.T) {
	for _, c := range []struct {
		spec    string
		count   int
		use     []int
		missing int
		err     string
	}{
		{"", 4, []int{0}, 0, ""}, // the default: GPU 0 alone, for now
		{"", 0, nil, 0, ""},
		{"all", 2, []int{0, 1}, 0, ""},
		{" ALL ", 1, []int{0}, 0, ""},
		{"0,2", 4, []int{0, 2}, 0, ""},
		{"2, 0", 4, []int{2, 0}, 0, ""},
		{"0,2", 1, []int{0}, 1, ""},
		{"3", 2, nil, 1, ""},
		{"0,0", 2, nil, 0, "listed twice"},
		{"-1", 2, nil, 0, "not a GPU number"},
		{"0,,1", 2, nil, 0, "not a GPU number"},
		{"gpu0", 2, nil, 0, "not a GPU number"},
	} {
		use, missing, err := deviceOrdinals(c.spec, c.count)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(use, c.use) || len(missing) != c.missing {
			t.Errorf("%q of %d: %v, missing %v, %v; want %v and %d missing", c.spec, c.count, use, missing, err, c.use, c.missing)
		}
	}
}

// TestOpenBadDevices: a malformed Options.Devices fails Open, whatever
// the build.
func TestOpenBadDevices(t *testing.T) {
	db, err := Open(Options{Device: "cpu", Devices: "0,x"})
	if err == nil {
		db.Close()
		t.Fatal("Open accepted Devices \"0,x\"")
	}
	if !strings.Contains(err.Error(), "Options.Devices") {
		t.Fatalf("error %v does not name the option", err)
	}
	db, err = Open(Options{Device: "cpu", Devices: "1,0"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// TestDevicesString: .stats shows a line per GPU when several are open,
// and the skipped ones.
func TestDevicesString(t *testing.T) {
	one := []DeviceStats{{Ordinal: 0, Name: "H200", Queries: true}}
	if s := devicesString(one, nil, nil); s != "" {
		t.Fatalf("one GPU: %q", s)
	}
	two := append(one, DeviceStats{Ordinal: 2, Name: "H200", Stats: gpuexec.Stats{Launches: 7, BytesToPeer: 4096, Memory: memory.Stats{InUse: 512}, ThreadTime: 1500 * time.Millisecond}})
	s := devicesString(two, []string{"GPU 5: not present (4 GPUs)"}, []string{"GPUs 0 and 2 copy through host memory: refused"})
	for _, want := range []string{
		"gpu 0 (H200, runs the queries): 0 bytes in use",
		"gpu 2 (H200): 512 bytes in use, 0 peak, 7 launches, 1.5s busy, 0 bytes to the device, 0 to the host, 4096 to other GPUs",
		"gpu skipped: GPU 5: not present",
		"gpu link: GPUs 0 and 2 copy through host memory: refused",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
}

// TestDSNDevices: the database/sql name's devices= reaches Options.Devices
// (a malformed list fails the open).
func TestDSNDevices(t *testing.T) {
	if _, err := (&sqlDriver{}).OpenConnector("dsndevices?device=cpu&devices=0,zero"); err == nil || !strings.Contains(err.Error(), "Options.Devices") {
		t.Fatalf("devices=0,zero: %v", err)
	}
}
