package expr_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps expr a leaf every layer may import: the bound
// expressions and their CPU kernels need only the column format and the
// value arithmetic, errkind for their errors' kinds and hashmix for the
// IN-list sets' hash (docs/ARCHITECTURE.md, "coldata and expr below
// operators").
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "expr", "coldata", "decimal", "datetime", "errkind", "hashmix")
}
