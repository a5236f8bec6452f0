package gsql

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
		limit = max(limit, afterGCLimit(heapLimit.held))
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

func TestAfterGCLimit(t *testing.T) {
	for _, tc := range []struct{ held, want int64 }{
		{0, 0},
		{100 << 20, 100<<20 + liveHeadroom},
		// A process holding 21 GB (the bench's TPC-H SF10 twice) leaves
		// an eighth, not 256 MiB.
		{21 << 30, 21<<30 + 21<<30/8},
	} {
		if got := afterGCLimit(tc.held); got != tc.want {
			t.Errorf("afterGCLimit(%d) = %d, want %d", tc.held, got, tc.want)
		}
	}
	runtime.GC()
	held, ok := afterGCHeld()
	live := int64(0)
	if ok {
		metrics.Read(heldSamples[:1])
		live = int64(heldSamples[0].Value.Uint64())
	}
	if !ok || held < live || held == 0 {
		t.Errorf("afterGCHeld = %d, %v; want at least the live heap %d", held, ok, live)
	}
}

// TestHeapLimitNoBackToBackCollections: a process holding far more heap
// than gsql's tables (an embedding program's own data) collects about
// once per headroom of garbage, not back to back.
func TestHeapLimitNoBackToBackCollections(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: gsql leaves the limit alone")
	}
	if testing.Short() {
		t.Skip("allocates 2 GiB of garbage")
	}
	ctx := context.Background()
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(ctx, writeCSV(t, 20_000), "t", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	ballast := make([]byte, 384<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	runtime.GC()
	runtime.GC() // the hook has seen the ballast
	var sink []byte
	const garbage = 2 << 30
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gcs := ms.NumGC
	for n := 0; n < garbage; n += 1 << 20 {
		sink = make([]byte, 1<<20)
		sink[0] = byte(n)
	}
	runtime.ReadMemStats(&ms)
	if got, most := ms.NumGC-gcs, uint32(2*garbage/liveHeadroom+4); got > most {
		t.Errorf("%d collections for %d bytes of garbage beside %d held, want at most %d", got, garbage, len(ballast), most)
	}
	t.Logf("%d collections for %d bytes of garbage", ms.NumGC-gcs, garbage)
	runtime.KeepAlive(ballast)
	runtime.KeepAlive(sink)
}
