package files

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPolicy(t *testing.T) {
	dir := t.TempDir()
	inside := filepath.Join(dir, "ok.csv")
	os.WriteFile(inside, []byte("a\n1\n"), 0o644)
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "secret.csv")
	os.WriteFile(outside, []byte("a\n1\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	escape := filepath.Join(dir, "..", filepath.Base(outsideDir), "secret.csv")

	cases := []struct {
		name   string
		policy Policy
		stmt   string
		denied bool
	}{
		{"no files by default", Policy{}, "SELECT * FROM read_csv('" + inside + "')", true},
		{"plain statements pass", Policy{}, "SELECT 1", false},
		{"a table named like the prefix by hand", Policy{}, "SELECT * FROM `__file__:/etc/passwd`", true},
		{"in a subquery", Policy{}, "SELECT * FROM t WHERE a IN (SELECT a FROM read_parquet('x.parquet'))", true},
		{"in a join", Policy{}, "SELECT * FROM t JOIN read_ipc('x.arrow') f ON t.a = f.a", true},
		{"in INSERT ... SELECT", Policy{}, "INSERT INTO t SELECT * FROM read_csv('x.csv')", true},
		{"in CREATE TABLE AS", Policy{}, "CREATE TABLE t AS SELECT * FROM read_csv('x.csv')", true},
		{"in a view", Policy{}, "CREATE VIEW v AS SELECT * FROM read_csv('x.csv')", true},
		{"in EXPLAIN", Policy{}, "EXPLAIN SELECT * FROM read_csv('x.csv')", true},
		{"in a CTE", Policy{}, "WITH f AS (SELECT * FROM read_csv('x.csv')) SELECT * FROM f", true},
		{"in UPDATE's subquery", Policy{}, "UPDATE t SET a = 1 WHERE a IN (SELECT a FROM read_csv('x.csv'))", true},
		{"inside the directory", Policy{Dir: dir}, "SELECT * FROM read_csv('" + inside + "')", false},
		{"missing file inside", Policy{Dir: dir}, "SELECT * FROM read_csv('" + filepath.Join(dir, "new.csv") + "')", false},
		{"outside the directory", Policy{Dir: dir}, "SELECT * FROM read_csv('" + outside + "')", true},
		{"dot-dot escape", Policy{Dir: dir}, "SELECT * FROM read_csv('" + escape + "')", true},
		{"symlink escape", Policy{Dir: dir}, "SELECT * FROM read_csv('" + link + "')", true},
		{"relative path outside", Policy{Dir: dir}, "SELECT * FROM read_csv('x.csv')", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.policy.Check(c.stmt)
			if got := errors.Is(err, ErrDenied); got != c.denied {
				t.Fatalf("denied=%v (%v), want %v", got, err, c.denied)
			}
		})
	}
}
