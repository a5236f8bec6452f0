package mysqldiff

import (
	"context"
	"os"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/tests"
)

// TestRecordedQueriesFuse checks, without a GPU, that every recorded query
// over the table that computes something compiles into fused GPU kernels
// (code generation is pure Go): a shape the generator makes that the GPU
// cannot run shows here, in CI, before a GPU run. The precompiled
// interpreter tier runs each of them too, so that no query waits for its
// fused kernels' compile.
func TestRecordedQueriesFuse(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, s := range Setup {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	src, err := os.ReadFile(answersFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tests.ParseScript(answersFile, src)
	if err != nil {
		t.Fatal(err)
	}
	departed := map[string]bool{}
	for _, d := range departures {
		departed[d.sql] = true
	}
	checked := 0
	for _, rec := range s.Records {
		// Queries without FROM fold to constants; a bare column list
		// computes nothing; a server error or a departure may fail here.
		if rec.Kind != tests.KindQuery || !strings.Contains(rec.SQL, " FROM e ") || !strings.Contains(rec.SQL, "(") || departed[rec.SQL] {
			continue
		}
		ks, err := db.KernelSources(ctx, rec.SQL)
		if err != nil {
			t.Errorf("%s: %v", rec.SQL, err)
			continue
		}
		if len(ks) == 0 {
			t.Errorf("no fused GPU kernel for %s", rec.SQL)
		}
		for _, k := range ks {
			// Else a cold run waits for NVRTC (issue 39 item 3).
			if k.InterpErr != nil {
				t.Errorf("%s: the interpreter cannot run %s: %v", rec.SQL, k.Operator, k.InterpErr)
			}
		}
		checked++
	}
	t.Logf("%d queries compile into fused kernels", checked)
}
