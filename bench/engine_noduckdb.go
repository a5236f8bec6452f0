//go:build !cgo || noduckdb

package main

import (
	"context"
	"fmt"
)

// duckdbAvailable tells whether this build includes DuckDB: it needs cgo
// and no noduckdb build tag.
const duckdbAvailable = false

// duckEngine is a stand-in for builds without DuckDB.
type duckEngine struct{ engine }

func openDuckDB() (*duckEngine, error) {
	return nil, fmt.Errorf("duckdb: %w: built without cgo or with the noduckdb tag", errUnavailable)
}

// Version is unknown without DuckDB.
func (e *duckEngine) Version(context.Context) string { return "unavailable" }

// MemoryBytes is unknown without DuckDB.
func (e *duckEngine) MemoryBytes(context.Context) (int64, error) { return 0, errUnavailable }
