package opspec_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps the operator specifications below both the planner
// and the operators: plans carry them without importing operator code.
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "opspec", "coldata", "expr", "decimal", "datetime", "errkind", "hashmix")
	deptest.AllowOnly(t, "opspec/winspec", "opspec", "coldata", "expr", "decimal", "datetime", "errkind", "hashmix")
}
