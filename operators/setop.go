package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// SetOp is INTERSECT or EXCEPT (Except) of two inputs of the same column
// types, with ALL (bag semantics: a row kept min(l, r) times by INTERSECT
// ALL, max(l - r, 0) times by EXCEPT ALL) or without (distinct rows).
// Rows compare as GROUP BY compares them: NULLs equal each other. The
// right input is read whole into a table of row counts; the left streams.
type SetOp struct {
	Left, Right Operator
	Except, All bool

	counts  map[string]int
	emitted map[string]struct{}
	key     []byte
	sel     []int
	built   bool
	host    HostBytes // the keys of both tables
}

// setEntryBytes is a key's cost in a table besides its bytes: its string
// header, its count and its share of the map's buckets.
const setEntryBytes = 56

// PeakHostBytes is the most host memory the row tables held.
func (s *SetOp) PeakHostBytes() int64 { return s.host.Peak() }

// Open implements Operator.
func (s *SetOp) Open(ctx context.Context) error {
	s.counts, s.emitted, s.built = map[string]int{}, map[string]struct{}{}, false
	s.host.ReleaseAll()
	if err := s.Left.Open(ctx); err != nil {
		return err
	}
	if err := s.Right.Open(ctx); err != nil {
		s.Left.Close()
		return err
	}
	return nil
}

func (s *SetOp) build(ctx context.Context) error {
	for {
		b, err := s.Right.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		added := 0
		for i := 0; i < b.Len; i++ {
			s.key = opspec.AppendRowKey(s.key[:0], b.Cols, i)
			n := len(s.counts)
			s.counts[string(s.key)]++
			if len(s.counts) > n {
				added += len(s.key) + setEntryBytes
			}
		}
		s.host.Grow(int64(added))
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Next implements Operator.
func (s *SetOp) Next(ctx context.Context) (*coldata.Batch, error) {
	if !s.built {
		if err := s.build(ctx); err != nil {
			return nil, err
		}
		s.built = true
	}
	for {
		b, err := s.Left.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		s.sel = s.sel[:0]
		emitted := len(s.emitted)
		for i := 0; i < b.Len; i++ {
			s.key = opspec.AppendRowKey(s.key[:0], b.Cols, i)
			if s.keep(string(s.key)) {
				s.sel = append(s.sel, i)
			}
		}
		// Distinct rows emitted are remembered: about a key each.
		s.host.Grow(int64((len(s.emitted) - emitted) * (len(s.key) + setEntryBytes)))
		switch len(s.sel) {
		case 0:
			continue
		case b.Len:
			return b, nil
		}
		return coldata.GatherBatch(b, s.sel), nil
	}
}

// keep decides for one left row.
func (s *SetOp) keep(k string) bool {
	n := s.counts[k]
	switch {
	case s.All && !s.Except: // INTERSECT ALL
		if n > 0 {
			s.counts[k] = n - 1
			return true
		}
		return false
	case s.All: // EXCEPT ALL
		if n > 0 {
			s.counts[k] = n - 1
			return false
		}
		return true
	}
	if _, done := s.emitted[k]; done || (n > 0) == s.Except {
		return false
	}
	s.emitted[k] = struct{}{}
	return true
}

// Close implements Operator.
func (s *SetOp) Close() error {
	s.counts, s.emitted = nil, nil
	s.host.ReleaseAll()
	err := s.Left.Close()
	if rerr := s.Right.Close(); err == nil {
		err = rerr
	}
	return err
}
