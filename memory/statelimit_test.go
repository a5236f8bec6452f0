package memory

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/errkind"
)

// TestOutOfMemoryKinds: every memory error is of kind OutOfMemory, and only
// allocation failures match ErrOutOfMemory (what is retried after evicting
// cached tables); a statement's state past its limit keeps its message.
func TestOutOfMemoryKinds(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		msg    string
		isPool bool
	}{
		{"pool limit", &OutOfMemoryError{Requested: 2048, Limit: 1024, InUse: 512},
			"out of memory: requested 2.0 KiB with 512 B of the 1.0 KiB pool limit in use", true},
		{"upstream", fmt.Errorf("device full: %w", ErrOutOfMemory), "device full: out of memory", true},
		{"state bytes", StateLimit("GROUP BY state", 1<<20, 5000, "groups"),
			"GROUP BY state exceeds the memory limit of 1.0 MiB (5000 groups so far)", false},
		{"state units", StateUnitLimit("join build side", 1000, "rows"),
			"join build side exceeds the memory limit of 1000 rows", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := fmt.Errorf("query: %w", c.err)
			if c.err.Error() != c.msg {
				t.Errorf("message %q, want %q", c.err.Error(), c.msg)
			}
			if got := errkind.Of(err); got != errkind.OutOfMemory {
				t.Errorf("kind %v", got)
			}
			if errors.Is(err, ErrOutOfMemory) != c.isPool {
				t.Errorf("errors.Is(ErrOutOfMemory) = %v", !c.isPool)
			}
		})
	}
}
