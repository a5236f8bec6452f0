package gsql

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Collecting a finished query's garbage.
//
// The Go runtime starts a collection when the heap has grown by GOGC
// percent (100 by default) of what the last one found live. In a process
// that holds tables in memory, the live heap is mostly those tables, so
// the garbage of many queries (hash tables, accumulators, filtered and
// computed vectors) accumulates, up to the size of the tables, before any
// of it is reused, and every byte of that growth is memory new to the
// process. Touching new memory is not free: each 4 KiB page faults into
// the kernel, so a GB of growth costs seconds, while memory the heap has
// already mapped is reused for the price of clearing it
// (docs/benchlog/2026-11-26-clickbench-cpu.md, "Fresh memory").
//
// So when a query finishes and the heap holds more than a thirty-second
// of the live heap (and at least minQueryGarbage) in objects allocated
// since the last collection, gsql starts a collection in the background
// (one at a time), and the next queries reuse that memory. Tables hold no
// pointers (Arrow buffers), so such a collection marks little: a few
// milliseconds of one core. Options.NoQueryGC leaves the pacing to the
// runtime.
//
// The threshold was an eighth and 64 MiB: over 200K hits (a 315 MB live
// heap) a GROUP BY allocating 7 MB a run then ran 18-40 ms a run for its
// first ten runs in fresh pages, and 5 ms once memory was reused; at a
// thirty-second and 16 MiB it is slow for two (docs/benchlog/
// 2026-11-30-session9.md).

// minQueryGarbage is the least garbage worth a collection, and
// queryGarbageShare the share of the live heap (1/n) past which a query's
// garbage is collected.
const (
	minQueryGarbage   = 16 << 20
	queryGarbageShare = 32
)

var queryGC struct {
	running atomic.Bool
	mu      sync.Mutex
	samples []metrics.Sample
}

// collectQueryGarbage starts a collection in the background when the heap
// holds enough garbage (see above).
func collectQueryGarbage() {
	if queryGC.running.Load() || !queryGC.mu.TryLock() {
		return
	}
	defer queryGC.mu.Unlock()
	if queryGC.samples == nil {
		queryGC.samples = []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
		}
	}
	metrics.Read(queryGC.samples)
	for _, s := range queryGC.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return // a runtime without these metrics
		}
	}
	live, objects := queryGC.samples[0].Value.Uint64(), queryGC.samples[1].Value.Uint64()
	if objects < live || objects-live < max(minQueryGarbage, live/queryGarbageShare) {
		return
	}
	if queryGC.running.CompareAndSwap(false, true) {
		go func() {
			defer queryGC.running.Store(false)
			runtime.GC()
		}()
	}
}
