package operators

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/spill"
)

const (
	// spillFanout is the partitions one split makes: a state 4x the limit
	// fits after one split, one 1000x after two.
	spillFanout = 32
	// spillMaxDepth bounds the splits of one partition: past it the groups
	// cannot be split apart (one huge group, or a hash that will not
	// spread them) and the state-limit error stands.
	spillMaxDepth = 3
	// spillFlushRows is the rows a partition buffers before a write.
	spillFlushRows = 8192
)

// spillSplitter splits operator inputs into hash partitions on disk (the
// part SpillAggregate and SpillJoin share): one spill directory per
// query, one hash per depth of splitting, the same hash for both sides of
// a join so that matching keys meet in the same partition.
type spillSplitter struct {
	dir    *spill.Dir
	seeds  [spillMaxDepth + 1]maphash.Seed
	keyBuf []byte
	route  []int
	keys   []*coldata.Vec
	// peak is the most host memory one split's partitions held (rows
	// waiting to be written, write buffers).
	peak int64
}

// start makes the spill directory under parent and the hashes.
func (sp *spillSplitter) start(parent string) error {
	for i := range sp.seeds {
		sp.seeds[i] = maphash.MakeSeed()
	}
	dir, err := spill.NewDir(parent)
	if err != nil {
		return err
	}
	sp.dir = dir
	return nil
}

// split opens in, reads it to its end and writes its rows to spillFanout
// partitions by the depth's hash of keys, dropping rows with a NULL key
// when dropNulls (a join's build side: they match nothing, and all in
// one partition they would keep it from ever splitting). It returns nil
// partitions when in has no rows.
func (sp *spillSplitter) split(ctx context.Context, in Operator, keys []expr.Expr, dropNulls bool, depth int, what string) (*spill.Partitions, error) {
	if err := in.Open(ctx); err != nil {
		return nil, fmt.Errorf("reopen input: %w", err)
	}
	defer in.Close()
	var parts *spill.Partitions
	defer func() {
		if parts != nil {
			sp.peak = max(sp.peak, parts.PeakBytes())
		}
	}()
	sp.keys = append(sp.keys[:0], make([]*coldata.Vec, len(keys))...)
	for {
		b, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if parts == nil {
			types := make([]coldata.Type, len(b.Cols))
			for i, c := range b.Cols {
				types[i] = c.Type
			}
			name := fmt.Sprintf("%s%d-%d", what, depth, sp.dir.Files())
			if parts, err = sp.dir.NewPartitions(name, spillFanout, types, spillFlushRows); err != nil {
				return nil, err
			}
		}
		for i, k := range keys {
			if sp.keys[i], err = expr.Eval(k, b); err != nil {
				return nil, err
			}
		}
		sp.route = sp.route[:0]
	rows:
		for r := 0; r < b.Len; r++ {
			if dropNulls {
				for _, k := range sp.keys {
					if k.IsNull(r) {
						sp.route = append(sp.route, -1)
						continue rows
					}
				}
			}
			sp.keyBuf = opspec.AppendRowKey(sp.keyBuf[:0], sp.keys, r)
			sp.route = append(sp.route, int(maphash.Bytes(sp.seeds[depth], sp.keyBuf)%spillFanout))
		}
		err = parts.Add(b, sp.route)
		b.ReleaseOwner()
		if err != nil {
			return nil, err
		}
	}
	if parts == nil {
		return nil, nil
	}
	return parts, parts.Finish()
}

// count adds a split to st's spill counters.
func (sp *spillSplitter) count(st *Stats) {
	if st != nil {
		st.SpillPartitions.Add(spillFanout)
		st.SpillBytes.Store(sp.dir.BytesWritten())
	}
}

// remove deletes the spill directory, if one was made.
func (sp *spillSplitter) remove() error {
	if sp.dir == nil {
		return nil
	}
	err := sp.dir.Remove()
	sp.dir = nil
	return err
}

// isStateLimit reports the error of an operator's state past its byte
// limit: what splitting the state over partitions on disk cures (a cap on
// groups or rows that the user set is not).
func isStateLimit(err error, state string) bool {
	var oom *memory.OutOfMemoryError
	return errors.As(err, &oom) && oom.State == state && oom.Limit > 0
}
