package sql_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps the parser free of the engine: sql imports coldata
// only for type names (coldata.ParseType) and errkind for its errors'
// kinds, and nothing else of gsql.
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "sql", "coldata", "decimal", "errkind")
}
