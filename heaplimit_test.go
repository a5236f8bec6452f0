package gsql

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestHeapLimitFor(t *testing.T) {
	for _, tc := range []struct{ tables, want int64 }{
		{0, 0},
		{100 << 20, 100<<20 + minHeapHeadroom},
		{4 << 30, 5 << 30},
	} {
		if got := heapLimitFor(tc.tables); got != tc.want {
			t.Errorf("heapLimitFor(%d) = %d, want %d", tc.tables, got, tc.want)
		}
	}
}

// heapTracked is what the heap limit counts for db, whether it tracks db,
// and the limit it computes for every database it tracks.
func heapTracked(db *DB) (n int64, tracked bool, limit int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	var total int64
	for d, tables := range heapLimit.tables {
		for _, b := range tables {
			total += b
			if d == db {
				n += b
			}
		}
	}
	_, tracked = heapLimit.tables[db]
	limit = heapLimitFor(total)
	if limit > 0 {
		limit = max(limit, heapLimit.live+liveHeadroom)
	}
	return n, tracked, limit
}

// writeCSV writes a CSV file of rows rows to a temporary directory.
func writeCSV(t *testing.T, rows int) string {
	var sb strings.Builder
	sb.WriteString("id,name\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&sb, "%d,name %d\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHeapLimitFollowsTables: the runtime's memory limit follows the
// heap bytes of the tables imported, created and dropped, and is lifted
// when the last database closes; NoHeapLimit leaves a database out.
func TestHeapLimitFollowsTables(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: gsql leaves the limit alone")
	}
	ctx := context.Background()
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(ctx, writeCSV(t, 50_000), "t", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE u AS SELECT id * 2 AS x FROM t"); err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, tm := range db.Stats().TableMemory {
		want += tm.Bytes
	}
	n, tracked, limit := heapTracked(db)
	if !tracked || n != want {
		t.Fatalf("tracked %v, %d bytes; want %d (the tables' Arrow bytes)", tracked, n, want)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit %d, want %d", got, limit)
	}
	if _, err := db.Exec(ctx, "DROP TABLE t, u"); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := heapTracked(db); n != 0 {
		t.Errorf("%d bytes counted after DROP", n)
	}

	off, err := Open(Options{Device: "cpu", NoHeapLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if _, err := off.Import(ctx, writeCSV(t, 1000), "t", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, tracked, _ := heapTracked(off); tracked {
		t.Errorf("a NoHeapLimit database is tracked")
	}

	db.Close()
	if _, tracked, _ := heapTracked(db); tracked {
		t.Errorf("a closed database is tracked")
	}
	heapLimit.mu.Lock()
	others := len(heapLimit.tables)
	heapLimit.mu.Unlock()
	if got := debug.SetMemoryLimit(-1); others == 0 && got != math.MaxInt64 {
		t.Errorf("memory limit %d with no database open, want none", got)
	}
}

// TestHeapLimitKeepsProgramLimit: a limit the program set is not moved.
func TestHeapLimitKeepsProgramLimit(t *testing.T) {
	const mine = 1 << 40
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(mine))
	ctx := context.Background()
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(ctx, writeCSV(t, 10_000), "t", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != mine {
		t.Errorf("memory limit %d, want the program's %d", got, int64(mine))
	}
}
