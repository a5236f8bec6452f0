package coldata_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps coldata at the bottom of the layering: the column
// format imports nothing of gsql but the decimal arithmetic its DECIMAL
// columns store.
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "coldata", "decimal")
}
