//go:build cuda

package gsql

import "testing"

// TestGPUKeyCheck: large inserts into keyed tables of a GPU database are
// checked on the device when no key collides (Stats.DeviceKeyChecks) and
// by the host otherwise, with the CPU database's answers throughout:
// errors 1062 word for word, INSERT IGNORE's warnings, REPLACE and ON
// DUPLICATE KEY UPDATE, NULLs in a UNIQUE key, -0.0 against 0.0, INSERT
// ... SELECT; a failed statement leaves both tables as they were.
func TestGPUKeyCheck(t *testing.T) {
	db, err := Open(Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	runKeyCheckCases(t, db)
}
