package wire_test

import (
	"testing"

	"github.com/gsqlengine/gsql/internal/deptest"
)

// TestDependencies keeps the wire protocol engine-free (docs/SERVER.md): it
// imports Arrow, datetime and decimal (DECIMAL values), never the engine;
// statements reach the engine through a Handler.
func TestDependencies(t *testing.T) {
	deptest.AllowOnly(t, "server/mysql/wire", "datetime", "decimal")
	deptest.ImportsOnly(t, "server/mysql/wire", []string{"datetime", "decimal"}, "github.com/apache/arrow/go/")
}
