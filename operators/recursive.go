package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// WorkTable holds the rows of a recursive query's previous iteration.
type WorkTable struct {
	batches []*coldata.Batch
}

// WorkScan reads the working table of the iteration in progress.
type WorkScan struct {
	Table   *WorkTable
	batches []*coldata.Batch
	i       int
}

// Open implements Operator.
func (s *WorkScan) Open(context.Context) error {
	s.batches, s.i = s.Table.batches, 0
	return nil
}

// Next implements Operator.
func (s *WorkScan) Next(ctx context.Context) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.batches) {
		return nil, nil
	}
	s.i++
	return s.batches[s.i-1], nil
}

// Close implements Operator.
func (s *WorkScan) Close() error { s.batches = nil; return nil }

// Recursive evaluates WITH RECURSIVE: Base's rows start the result and the
// working table; Step runs again and again over the working table, its new
// rows (under UNION, the rows not seen before) joining the result and
// becoming the next working table, until an iteration adds none.
type Recursive struct {
	Name       string
	Base, Step Operator
	Work       *WorkTable
	// Distinct is UNION (duplicates dropped) rather than UNION ALL.
	Distinct bool
	// MaxIterations and MaxRows bound the recursion; past them it fails.
	MaxIterations int
	MaxRows       int64
	// Iterations is how many times Step ran (EXPLAIN ANALYZE, tests).
	Iterations int

	out  []*coldata.Batch
	i    int
	seen map[string]struct{}
	key  []byte
	// host counts the result's batches and, under UNION, the rows seen.
	host HostBytes
}

// PeakHostBytes is the most host memory the recursion's result held.
func (r *Recursive) PeakHostBytes() int64 { return r.host.Peak() }

// Open implements Operator: the whole recursion runs here.
func (r *Recursive) Open(ctx context.Context) error {
	r.out, r.i, r.Iterations = nil, 0, 0
	r.seen = nil
	r.host.ReleaseAll()
	if r.Distinct {
		r.seen = map[string]struct{}{}
	}
	base, err := drain(ctx, r.Base)
	if err != nil {
		return err
	}
	fresh := r.fresh(base)
	var rows int64
	for len(fresh) > 0 {
		r.out = append(r.out, fresh...)
		for _, b := range fresh {
			rows += int64(b.Len)
			r.host.Grow(b.HostBytes())
		}
		if r.MaxRows > 0 && rows > r.MaxRows {
			return fmt.Errorf("WITH RECURSIVE %s: more than %d rows (is there a stop condition?)", r.Name, r.MaxRows)
		}
		if r.Iterations > r.MaxIterations {
			// The iteration past the limit still added rows.
			return fmt.Errorf("WITH RECURSIVE %s: still adding rows after %d iterations (is there a stop condition?)", r.Name, r.MaxIterations)
		}
		r.Iterations++
		r.Work.batches = fresh
		next, err := drain(ctx, r.Step)
		if err != nil {
			return err
		}
		fresh = r.fresh(next)
	}
	r.Work.batches = nil
	return nil
}

// fresh drops empty batches and, under UNION, rows seen before.
func (r *Recursive) fresh(in []*coldata.Batch) []*coldata.Batch {
	var out []*coldata.Batch
	var sel []int
	for _, b := range in {
		if b.Len == 0 {
			continue
		}
		if r.seen == nil {
			out = append(out, b)
			continue
		}
		sel = sel[:0]
		added := 0
		for i := 0; i < b.Len; i++ {
			r.key = opspec.AppendRowKey(r.key[:0], b.Cols, i)
			if _, ok := r.seen[string(r.key)]; ok {
				continue
			}
			r.seen[string(r.key)] = struct{}{}
			sel = append(sel, i)
			added += len(r.key) + distinctEntryBytes
		}
		r.host.Grow(int64(added))
		switch len(sel) {
		case 0:
		case b.Len:
			out = append(out, b)
		default:
			out = append(out, coldata.GatherBatch(b, sel))
		}
	}
	return out
}

// Next implements Operator.
func (r *Recursive) Next(ctx context.Context) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.i >= len(r.out) {
		return nil, nil
	}
	r.i++
	return r.out[r.i-1], nil
}

// Close implements Operator.
func (r *Recursive) Close() error { r.out, r.seen = nil, nil; r.host.ReleaseAll(); return nil }
