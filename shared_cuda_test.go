//go:build cuda

package gsql_test

import (
	"regexp"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
)

// Two databases of a process share one GPU state (one context, one
// compile of the runtime), and EXPLAIN ANALYZE of a GPU query ends with
// its waits on that device. Run on a GPU machine (-tags cuda).
func TestGPUSharedDeviceWaits(t *testing.T) {
	setup := []string{"CREATE TABLE t (x BIGINT, s VARCHAR)", "INSERT INTO t VALUES (1, 'a'), (2, 'bb'), (3, NULL)"}
	a := openTestDB(t, gsql.Options{Device: "gpu"}, setup...)
	b := openTestDB(t, gsql.Options{Device: "gpu", PoolLimit: 1 << 30}, setup...)
	if sa, sb := a.Stats().GPU, b.Stats().GPU; sa == nil || sb == nil || sa.Users < 2 || sb.Users != sa.Users {
		t.Fatalf("device not shared: %+v / %+v", sa, sb)
	}
	field := regexp.MustCompile(`^gpu waits: context_thread=(\d+)/(\S+) compile=(\d+)/(\S+) pool_memory=(\d+)/(\S+)$`)
	for _, db := range []*gsql.DB{a, b} {
		lines := rowsOf(t, db, "EXPLAIN ANALYZE SELECT x + 1, UPPER(s) FROM t WHERE x > 1")
		found := false
		for _, l := range lines {
			if m := field.FindStringSubmatch(l); m != nil {
				found = true
				for i := 2; i < len(m); i += 2 {
					if d, err := time.ParseDuration(m[i]); err != nil || d < 0 {
						t.Fatalf("bad time in %q", l)
					}
				}
			}
		}
		if !found {
			t.Fatalf("no waits line in\n%q", lines)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, b, "SELECT UPPER(s) FROM t WHERE x = 2"); len(got) != 1 {
		t.Fatalf("after the other database closed: %q", got)
	}
}
