package gsql_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/spill"
)

// TestGroupBySpillsPastMemoryLimit runs GROUP BYs and joins whose state is
// many times Options.MemoryLimit: each answers as the same query without a
// limit does, EXPLAIN ANALYZE shows the partitions it spilled, and no
// spill file is left behind.
func TestGroupBySpillsPastMemoryLimit(t *testing.T) {
	setup := func(db *gsql.DB) {
		t.Helper()
		sequence(t, db, 17) // g = 1..131072
		mustExec(t, db, `CREATE TABLE t (id BIGINT, k BIGINT, name VARCHAR, x DOUBLE, n BIGINT)`)
		mustExec(t, db, `INSERT INTO t SELECT g, g % 1000, CONCAT('name-', CAST(g % 50021 AS VARCHAR)), CAST(g AS DOUBLE) / 7,
			CASE WHEN g % 13 = 0 THEN NULL ELSE g % 97 END FROM seq`)
	}
	free := openTestDB(t, gsql.Options{Device: "cpu"})
	setup(free)
	tmp := t.TempDir()
	// 1 MiB against ~130K groups of ~200 bytes of state: over 20x the
	// limit, so some partitions split twice.
	limited := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 1 << 20, TempDir: tmp})
	setup(limited)
	for _, q := range []string{
		`SELECT id, COUNT(*), SUM(x), MIN(name), MAX(n) FROM t GROUP BY id ORDER BY id`,
		`SELECT name, k % 7, COUNT(*), AVG(x), COUNT(DISTINCT n) FROM t GROUP BY name, k % 7 ORDER BY name, 2`,
		`SELECT n, COUNT(*) FROM t GROUP BY n ORDER BY n`,
		`SELECT name, SUM(id) AS s FROM t GROUP BY name ORDER BY s DESC, name LIMIT 5`,
		`SELECT COUNT(*), SUM(c) FROM (SELECT id, name, COUNT(*) AS c FROM t GROUP BY id, name) AS g`,
		`SELECT name, COUNT(*) FROM t GROUP BY name HAVING COUNT(*) > 2 ORDER BY name`,
		// Joins whose build side is many times the limit.
		`SELECT COUNT(*), SUM(a.id + b.k), MIN(b.id) FROM t AS a JOIN t AS b ON a.name = b.name AND a.id <> b.id`,
		`SELECT a.id, b.k FROM t AS a LEFT JOIN t AS b ON a.n * 1000 = b.id WHERE a.id % 50 = 0 ORDER BY a.id, b.k`,
		`SELECT COUNT(*), SUM(id) FROM t WHERE id IN (SELECT n * 1000 FROM t)`,
		`SELECT COUNT(*) FROM t AS a WHERE NOT EXISTS (SELECT 1 FROM t AS b WHERE b.id = a.n * 2000)`,
		`SELECT g.name, g.c, t.id FROM (SELECT name, COUNT(*) AS c FROM t GROUP BY name) AS g JOIN t ON t.name = g.name WHERE t.id % 1000 = 1 ORDER BY t.id`,
	} {
		want := rowsOf(t, free, q)
		got := rowsOf(t, limited, q)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s\nspilled answer differs: %d rows, want %d; first %q want %q", q, len(got), len(want), firstRow(got), firstRow(want))
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Fatalf("%s: left in the temp directory: %v", q, entries)
		}
	}
	for _, q := range []string{
		`EXPLAIN ANALYZE SELECT id, COUNT(*) FROM t GROUP BY id`,
		`EXPLAIN ANALYZE SELECT COUNT(*) FROM t AS a JOIN t AS b ON a.id = b.id`,
	} {
		plan := strings.Join(rowsOf(t, limited, q), "\n")
		if !strings.Contains(plan, "spilled_partitions=") || !strings.Contains(plan, "peak_host_bytes=") {
			t.Fatalf("EXPLAIN ANALYZE does not show the spill:\n%s", plan)
		}
	}
	// Without keys nothing can be split: a small state answers in memory.
	if got := rowsOf(t, limited, `SELECT COUNT(*), SUM(id) FROM t`); got[0] != "131072|8590000128" {
		t.Fatalf("global aggregate: %v", got)
	}
}

// TestSpillDefaultsToTheDatabaseDirectory: an on-disk database spills
// into its own spill/ directory and leaves it empty.
func TestSpillDefaultsToTheDatabaseDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 256 << 10, Path: path})
	sequence(t, db, 15)
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM (SELECT g, COUNT(*) FROM seq GROUP BY g) AS x`); got[0] != "32768" {
		t.Fatalf("groups: %v", got)
	}
	entries, err := os.ReadDir(filepath.Join(path, "spill"))
	if err != nil {
		t.Fatalf("no spill directory in the database: %v", err)
	}
	if len(entries) != 0 {
		t.Fatalf("left in spill/: %v", entries)
	}
}

// sequence makes table seq of one column g holding 1..2^doublings.
func sequence(t *testing.T, db *gsql.DB, doublings int) {
	t.Helper()
	mustExec(t, db, `CREATE TABLE seq (g BIGINT)`)
	mustExec(t, db, `INSERT INTO seq VALUES (1)`)
	for i := 0; i < doublings; i++ {
		mustExec(t, db, `INSERT INTO seq SELECT g + (SELECT MAX(g) FROM seq) FROM seq`)
	}
}

func firstRow(rows []string) string {
	if len(rows) == 0 {
		return ""
	}
	return rows[0]
}

// TestSpillDiskFull: a spill write that finds the disk full (injected
// ENOSPC, then a real 256 KiB tmpfs where the test may mount one) fails
// the query with a DiskFullError, leaves no spill file, and loses nothing
// committed: the table reads back whole after a reopen, and the same query
// answers once there is room.
func TestSpillDiskFull(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, tmp string, fail func() (restore func())) {
		path := filepath.Join(t.TempDir(), "db")
		db := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 256 << 10, Path: path, TempDir: tmp})
		sequence(t, db, 15)
		const q = `SELECT COUNT(*) FROM (SELECT g, COUNT(*) FROM seq GROUP BY g) AS x`
		restore := fail()
		err := queryError(ctx, db, q)
		var full *spill.DiskFullError
		if !errors.As(err, &full) || errkind.Of(err) != errkind.DiskFull {
			restore()
			t.Fatalf("query with the disk full: %v", err)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("left in the temp directory: %v", entries)
		}
		restore()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 256 << 10, Path: path, TempDir: t.TempDir()})
		if got := rowsOf(t, db, `SELECT COUNT(*), SUM(g) FROM seq`); got[0] != "32768|536887296" {
			t.Fatalf("after the failed query: %v", got)
		}
		if got := rowsOf(t, db, q); got[0] != "32768" {
			t.Fatalf("with room: %v", got)
		}
	}
	t.Run("injected", func(t *testing.T) {
		check(t, t.TempDir(), func() func() { return spill.FailWrites(syscall.ENOSPC) })
	})
	t.Run("tmpfs", func(t *testing.T) {
		tmp := t.TempDir()
		if err := syscall.Mount("tmpfs", tmp, "tmpfs", 0, "size=256k"); err != nil {
			t.Skipf("cannot mount a tmpfs here: %v", err)
		}
		defer syscall.Unmount(tmp, 0)
		check(t, tmp, func() func() { return func() {} })
	})
}
