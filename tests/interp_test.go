package tests

import (
	"context"
	"os"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// TestRegressionQueriesInterpret checks, without a GPU, that every query
// of the regression files whose GPU operators compile into fused kernels
// also runs on the precompiled interpreter tier: an expression the
// interpreter lacks makes a cold query wait for NVRTC (issue 39 item 3:
// a MySQL date query blocked for its 162 KB kernel's compile).
func TestRegressionQueriesInterpret(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for _, path := range testFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseScript(path, src)
		if err != nil {
			t.Fatal(err)
		}
		db, err := gsql.Open(gsql.Options{Device: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range s.Records {
			switch rec.Kind {
			case KindStatement:
				// The file's own statements build its tables; the ones
				// that fail on purpose fail here too.
				_, _ = db.Exec(ctx, rec.SQL)
			case KindQuery:
				// A statement that is no SELECT (SHOW, DESCRIBE) or a
				// query the planner refuses has no kernel to compare.
				ks, err := db.KernelSources(ctx, rec.SQL)
				if err != nil {
					continue
				}
				for _, k := range ks {
					checked++
					if k.InterpErr != nil {
						t.Errorf("%s: %s: the interpreter cannot run %s: %v", path, strings.Join(strings.Fields(rec.SQL), " "), k.Operator, k.InterpErr)
					}
				}
			}
		}
		db.Close()
	}
	if checked < 1000 {
		t.Fatalf("only %d fused operators in the regression files", checked)
	}
}
