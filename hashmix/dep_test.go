package hashmix_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps hashmix a leaf: every layer that hashes rows,
// down to expr, may import it.
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "hashmix")
}
