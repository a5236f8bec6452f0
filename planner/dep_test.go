package planner_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps planning apart from execution: plans name the
// specifications in opspec, and what placement must know of the device
// comes in PlaceOptions; execbuild turns plans into operators.
func TestDependencies(t *testing.T) {
	deptest.Forbid(t, "planner", "operators", "gpuexec", "execbuild", "memory", "storage", "server")
}
