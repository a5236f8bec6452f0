package operators_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps the operators below the plans: they execute the
// specifications in opspec and know nothing of planning or building.
func TestDependencies(t *testing.T) {
	for _, p := range []string{"operators", "operators/window"} {
		deptest.Forbid(t, p, "planner", "execbuild", "sql", "catalog", "storage", "server")
	}
}
