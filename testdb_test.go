package gsql_test

import (
	"context"
	"testing"
	"time"

	"github.com/gsqlengine/gsql"
)

// openTestDB opens a database with opts for one test or benchmark, runs
// the setup statements in it, and closes it when the test ends. A test
// that needs the device to be there (and skips without it) opens its own.
func openTestDB(tb testing.TB, opts gsql.Options, setup ...string) *gsql.DB {
	tb.Helper()
	db, err := gsql.Open(opts)
	if err != nil {
		tb.Fatalf("open database (%+v): %v", opts, err)
	}
	tb.Cleanup(func() { db.Close() })
	for _, s := range setup {
		if _, err := db.Exec(context.Background(), s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// waitCompiles waits for the background kernel compiles to finish, so
// that warm figures are those of the fused kernels.
func waitCompiles(t testing.TB, db *gsql.DB) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := db.Stats().GPU
		if st == nil || st.CompilesQueued == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d compiles still queued after 2 minutes", st.CompilesQueued)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
