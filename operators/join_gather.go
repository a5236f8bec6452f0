package operators

import (
	"github.com/gsqlengine/gsql/coldata"
)

// gatherJob asks for the rows idx of src, as coldata.Gather.
type gatherJob struct {
	src *coldata.Vec
	idx []int
}

// joinGatherRows is the fewest rows per goroutine when a join gathers its
// output in parallel.
var joinGatherRows = 1 << 13

// gatherVecs runs the jobs (each idx of n rows) and returns their vectors:
// a join's output columns. Large outputs are gathered by up to maxWorkers
// goroutines, each filling a range of rows of every column, into one
// vector per column, so that the join's output batches keep their size:
// the gathers read the build side at random and were most of a join's
// time on one goroutine.
func gatherVecs(jobs []gatherJob, n, maxWorkers int) []*coldata.Vec {
	out := make([]*coldata.Vec, len(jobs))
	workers := min(maxWorkers, n/max(joinGatherRows, 8))
	if workers <= 1 {
		for i, jb := range jobs {
			out[i] = coldata.Gather(jb.src, jb.idx)
		}
		return out
	}
	// Row ranges start at multiples of 8, so that no two share a byte of
	// a NULL bitmap.
	step := ((n+workers-1)/workers + 7) &^ 7
	chunks := (n + step - 1) / step
	// Strings: each range's bytes, to place every range's copy.
	var sizes [][]int
	for i, jb := range jobs {
		src := jb.src
		v := &coldata.Vec{Type: src.Type, Len: n}
		out[i] = v
		if src.Const || !parallelGatherable(src.Type) {
			continue
		}
		if src.Nulls != nil {
			v.Nulls = make([]byte, coldata.BitmapLen(n))
		}
		switch src.Type.Physical() {
		case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal:
			// Pooled (every row is written below): the buffers of the
			// batches consumers handed back (release.go).
			a := coldata.AllocVec(src.Type, n)
			v.Bools, v.Ints, v.Floats, v.Decs = a.Bools, a.Ints, a.Floats, a.Decs
		case coldata.String:
			v.Offsets = make([]int32, n+1)
			if sizes == nil {
				sizes = make([][]int, len(jobs))
			}
			sizes[i] = make([]int, chunks+1)
		}
	}
	if sizes != nil {
		parallelDo(workers, len(jobs)*chunks, func(_, t int) {
			i, c := t/chunks, t%chunks
			if sizes[i] == nil {
				return
			}
			src, total := jobs[i].src, 0
			for _, r := range jobs[i].idx[c*step : min((c+1)*step, n)] {
				total += int(src.Offsets[r+1] - src.Offsets[r])
			}
			sizes[i][c+1] = total
		})
		for i, s := range sizes {
			if s == nil {
				continue
			}
			for c := 0; c < chunks; c++ {
				s[c+1] += s[c]
			}
			out[i].Bytes = make([]byte, s[chunks])
		}
	}
	parallelDo(workers, len(jobs)*chunks, func(_, t int) {
		i, c := t/chunks, t%chunks
		src := jobs[i].src
		if src.Const || !parallelGatherable(src.Type) {
			// Gathered whole by the job's first task, alone to touch
			// out[i].
			if c == 0 {
				out[i] = coldata.Gather(src, jobs[i].idx)
			}
			return
		}
		v := out[i]
		lo, hi := c*step, min((c+1)*step, n)
		idx := jobs[i].idx[lo:hi]
		if src.Nulls != nil {
			for k, r := range idx {
				if !src.IsNull(r) {
					v.Nulls[(lo+k)>>3] |= 1 << ((lo + k) & 7)
				}
			}
		}
		switch src.Type.Physical() {
		case coldata.Bool:
			dst := v.Bools[lo:hi]
			for k, r := range idx {
				dst[k] = src.Bools[r]
			}
		case coldata.Int64:
			dst := v.Ints[lo:hi]
			for k, r := range idx {
				dst[k] = src.Ints[r]
			}
		case coldata.Float64:
			dst := v.Floats[lo:hi]
			for k, r := range idx {
				dst[k] = src.Floats[r]
			}
		case coldata.Decimal:
			dst := v.Decs[lo:hi]
			for k, r := range idx {
				dst[k] = src.Decs[r]
			}
		case coldata.String:
			at := sizes[i][c]
			offs, bs := v.Offsets, v.Bytes
			for k, r := range idx {
				at += copy(bs[at:], src.Bytes[src.Offsets[r]:src.Offsets[r+1]])
				offs[lo+k+1] = int32(at)
			}
		}
	})
	return out
}

// parallelGatherable reports whether gatherVecs splits columns of type t
// into row ranges (others are gathered whole by coldata.Gather).
func parallelGatherable(t coldata.Type) bool {
	switch t.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal, coldata.String:
		return true
	}
	return false
}
