package operators

import (
	"runtime"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// Handing consumed batches back. A process holding a large table seldom
// collects, so buffers nobody hands back are seldom reused: every batch an
// operator makes would take fresh memory, faulted in and cleared page by
// page (bench --suite tpch Q1 at SF10 with --cpuprofile,
// docs/benchlog/2026-11-26-tpch-cpu-goal-met.md). An operator whose output
// batches hold buffers of its own (a ParallelCompute's gathered and
// computed columns, a join's gathered output) remembers them; a consumer
// that is done with a batch (an aggregate once it has folded the rows in,
// a join once it has probed them) hands it back, and those buffers go to
// coldata's pools, where the next batches' AllocVec and Gather find them.

// batchReleaser is an operator that takes back the batches it returned.
type batchReleaser interface {
	// releaseBatch takes back b, a batch its Next returned: the caller
	// reads none of b's vectors afterwards, except those in live, and
	// keeps none. Batches it does not know, or no longer remembers, are
	// ignored.
	releaseBatch(b *coldata.Batch, live []*coldata.Vec)
}

// releaseInput hands b, a batch op's Next returned, back to op when op can
// reuse its buffers; the caller must be done with every vector of b but
// those in live.
func releaseInput(op Operator, b *coldata.Batch, live []*coldata.Vec) {
	if r, ok := op.(batchReleaser); ok && b != nil {
		r.releaseBatch(b, live)
	}
}

// ownedMax bounds the batches an ownedBatches remembers: a consumer that
// never hands batches back (a sort keeps them, a projection does not pass
// them on) must not make it hold every batch. Consumers that do hand them
// back do so within the batches in flight between two parallel stages,
// about three per core; a fixed 64 kept 64 batches of every such join
// alive on two cores (TPC-H Q18 at SF1: 500 MB of its join's output).
func ownedMax() int { return min(max(4*runtime.GOMAXPROCS(0), 16), 64) }

// ownedBatches remembers, for an operator, the batches it returned and
// the vectors of each that are its own, until the consumer hands them
// back (then they are recycled) or ownedMax later batches push them out
// (then they are forgotten, for the collector). Consumers may hand batches
// back from any goroutine.
type ownedBatches struct {
	mu    sync.Mutex
	order []*coldata.Batch
	vecs  map[*coldata.Batch][]*coldata.Vec
}

// add remembers that vecs, vectors of b, are the operator's own.
func (o *ownedBatches) add(b *coldata.Batch, vecs []*coldata.Vec) {
	if b == nil || len(vecs) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.vecs == nil {
		o.vecs = make(map[*coldata.Batch][]*coldata.Vec)
	}
	if len(o.order) >= ownedMax() {
		delete(o.vecs, o.order[0])
		o.order = append(o.order[:0], o.order[1:]...)
	}
	o.order = append(o.order, b)
	o.vecs[b] = vecs
}

// release recycles the remembered vectors of b that share no data with
// live, and forgets b.
func (o *ownedBatches) release(b *coldata.Batch, live []*coldata.Vec) {
	o.mu.Lock()
	vecs, ok := o.vecs[b]
	if ok {
		delete(o.vecs, b)
		for i, x := range o.order {
			if x == b {
				o.order = append(o.order[:i], o.order[i+1:]...)
				break
			}
		}
	}
	o.mu.Unlock()
	if ok {
		coldata.RecycleUnshared(vecs, live)
	}
}

// reset forgets every batch (the operator's Close).
func (o *ownedBatches) reset() {
	o.mu.Lock()
	o.order, o.vecs = nil, nil
	o.mu.Unlock()
}

// ownedCols returns the vectors of cols that are recyclable and share no
// data with any of the foreign vectors (an input's or a build side's).
func ownedCols(cols []*coldata.Vec, foreign ...[]*coldata.Vec) []*coldata.Vec {
	var out []*coldata.Vec
next:
	for _, v := range cols {
		if !coldata.Recyclable(v) {
			continue
		}
		for _, fs := range foreign {
			if sharesAny(v, fs) {
				continue next
			}
		}
		out = append(out, v)
	}
	return out
}

// sharesAny reports whether v's data buffer overlaps any slice of cols.
func sharesAny(v *coldata.Vec, cols []*coldata.Vec) bool {
	for _, c := range cols {
		if coldata.SharesData(v, c) {
			return true
		}
	}
	return false
}
