package spill_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps spill beside coldata: it stores batches and knows
// nothing of the operators that spill through it.
func TestDependencies(t *testing.T) {
	deptest.Forbid(t, "spill", "operators", "expr", "planner", "execbuild", "sql", "catalog", "storage", "server", "gpuexec")
}
