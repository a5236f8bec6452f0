package gsql

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The Go heap's headroom, sized to the tables held.
//
// The Go runtime collects when the heap has grown by GOGC percent (100)
// of what its last collection found live. In a process that holds its
// tables in the heap the live heap is mostly those tables, so the garbage
// of a load or a query may grow to their whole size before a collection,
// and the process's resident size with it: TPC-H SF1 imported from
// Parquet, 1.45 GB of Arrow buffers, peaked at 2.2x that during the 22
// queries (docs/benchlog/2026-11-29-host-memory.md). querygc.go collects
// after a query; this bounds the heap during one, and during a load.
//
// gsql sets the runtime's soft memory limit (debug.SetMemoryLimit) to the
// heap bytes of the open databases' tables (Arrow buffers not mapped from
// disk) plus headroom for the work: a quarter of them, at least
// minHeapHeadroom. Past the limit the runtime collects sooner, which is
// cheap here since the tables hold no pointers and are not scanned;
// nothing fails. A query whose own memory outgrows the headroom would
// make the collector run back to back (the runtime lets it take half the
// CPU then: TPC-H Q18 took twice as long), so after every collection the
// limit is raised, while the process needs it, to what it holds plus
// headroom (gcHook, afterGCLimit), and it falls back when that falls. What
// it holds is what the runtime's limit counts, not only the live heap:
// the runtime's own overhead (heap fragmentation, span metadata, freed
// pages not yet returned) grows with the heap, and a limit set at the
// live heap plus a fixed 256 MiB sat below that total in a bench process
// holding 21 GB (TPC-H SF10 twice: gsql's tables and the generator's), so
// the collector ran back to back, 4,092 times in 22 queries, and TPC-H
// SF10 on the GPU took 1,665 ms against 407 without the limit
// (docs/benchlog/2026-11-29-heap-limit.md). The headroom is also a share
// of what is held, so the collections per byte allocated do not grow
// with the heap an embedding program keeps beside gsql's tables. A
// limit the program set (debug.SetMemoryLimit, GOMEMLIMIT) is left alone,
// as is the runtime's pacing under Options.NoHeapLimit.

// minHeapHeadroom is the least room for a query's working memory above
// the tables.
const minHeapHeadroom = 256 << 20

// liveHeadroom is the least room above what the process holds after a
// collection that the limit leaves (an eighth of it when that is more),
// so that a query whose working memory outgrows the headroom makes the
// collector run every liveHeadroom bytes or more, not back to back.
// TPC-H SF1: 64 MiB gave a peak of 1.52x the tables and 25% more time
// than no limit; 256 MiB 1.68x and no more time (the collector's reuse
// of memory saves what its cycles cost); the strict limit 1.51x and 47%
// more time (docs/benchlog/2026-11-29-host-memory.md).
const liveHeadroom = minHeapHeadroom

var heapLimit struct {
	mu sync.Mutex
	// tables holds, per open database (not NoHeapLimit), each table's
	// heap bytes.
	tables map[*DB]map[string]int64
	// set is the limit gsql last set; 0 when it set none.
	set int64
	// held is what the runtime's limit counted after the last
	// collection (afterGCHeld); hooked is true while gcHook follows the
	// collections.
	held   int64
	hooked bool
}

// gcSentinel is an object whose finalizer runs after each collection
// (it is made unreachable at once). It is larger than the tiny
// allocator's blocks, whose finalizers may never run.
type gcSentinel struct{ _ [64]byte }

// armGCHook makes a sentinel for the next collection.
func armGCHook() {
	runtime.SetFinalizer(&gcSentinel{}, gcHook)
}

// heldSamples read, after a collection, the live heap, the heap's object
// bytes (live and not yet swept), and the runtime's mapped and released
// memory, whose difference is what the memory limit counts.
var heldSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}

// afterGCHeld is what the process holds after a collection as the memory
// limit counts it: the live heap plus the runtime's memory that is not
// heap objects (free spans, metadata, stacks), less what it returned to
// the system. Objects the sweep has not freed yet are not counted.
func afterGCHeld() (int64, bool) {
	metrics.Read(heldSamples)
	var v [4]int64
	for i, s := range heldSamples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, false
		}
		v[i] = int64(s.Value.Uint64())
	}
	live, objects, total, released := v[0], v[1], v[2], v[3]
	return live + max(0, total-released-objects), true
}

// afterGCLimit is the least limit for a process holding held bytes after
// a collection: held plus an eighth, at least liveHeadroom.
func afterGCLimit(held int64) int64 {
	if held == 0 {
		return 0
	}
	return held + max(liveHeadroom, held/8)
}

// gcHook runs after a collection: it keeps the limit above what the
// process holds (afterGCLimit), and re-arms itself while any database is
// tracked.
func gcHook(*gcSentinel) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	if len(heapLimit.tables) == 0 {
		heapLimit.hooked = false
		return
	}
	if held, ok := afterGCHeld(); ok {
		heapLimit.held = held
		retuneHeapLocked()
	}
	armGCHook()
}

// trackHeap registers db's tables with the heap limit and follows their
// changes.
func (db *DB) trackHeap() {
	if db.opts.NoHeapLimit {
		return
	}
	heapLimit.mu.Lock()
	if heapLimit.tables == nil {
		heapLimit.tables = map[*DB]map[string]int64{}
	}
	heapLimit.tables[db] = map[string]int64{}
	if !heapLimit.hooked {
		heapLimit.hooked = true
		armGCHook()
	}
	heapLimit.mu.Unlock()
	for _, name := range db.cat.List() {
		db.tableHeapChanged(name)
	}
	db.cat.OnChange(db.tableHeapChanged)
}

// untrackHeap forgets db's tables (at Close).
func (db *DB) untrackHeap() {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	if _, ok := heapLimit.tables[db]; ok {
		delete(heapLimit.tables, db)
		retuneHeapLocked()
	}
}

// importHeap counts n heap bytes of an import into table that the
// catalog does not hold yet (0: the import ended), so that the limit
// grows with the records as they arrive rather than at the commit.
func (db *DB) importHeap(table string, n int64) {
	db.setHeapBytes("\x00import\x00"+table, n)
}

// tableHeapChanged counts table name's heap bytes again (0 once dropped)
// and moves the limit.
func (db *DB) tableHeapChanged(name string) {
	var n int64
	if t, err := db.cat.Get(name); err == nil {
		// As .stats counts it: mapped bytes are not the heap's, and a
		// buffer several batches share counts once.
		n = db.tableMemory(name, t, bufferSet{}).Heap()
	}
	db.setHeapBytes(name, n)
}

// setHeapBytes records the heap bytes of key (a table, or an import)
// and moves the limit.
func (db *DB) setHeapBytes(key string, n int64) {
	heapLimit.mu.Lock()
	defer heapLimit.mu.Unlock()
	tables, ok := heapLimit.tables[db]
	if !ok {
		return // closed meanwhile, or NoHeapLimit
	}
	if n == 0 {
		delete(tables, key)
	} else {
		tables[key] = n
	}
	retuneHeapLocked()
}

// heapLimitFor is the soft memory limit for tables bytes of tables in
// the heap: 0 for none.
func heapLimitFor(tables int64) int64 {
	if tables == 0 {
		return 0
	}
	return tables + max(minHeapHeadroom, tables/4)
}

// retuneHeapLocked sets the runtime's limit for the tables now held,
// unless the program set one of its own.
func retuneHeapLocked() {
	var total int64
	for _, tables := range heapLimit.tables {
		for _, n := range tables {
			total += n
		}
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 && cur != heapLimit.set {
		return // the program's own limit
	}
	limit := heapLimitFor(total)
	if limit > 0 {
		limit = max(limit, afterGCLimit(heapLimit.held))
	}
	if limit == heapLimit.set {
		return
	}
	heapLimit.set = limit
	if limit == 0 {
		limit = math.MaxInt64
	}
	debug.SetMemoryLimit(limit)
}
