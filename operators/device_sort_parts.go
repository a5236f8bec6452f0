package operators

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A DeviceSort over several batches (a resident table's row groups, or
// column choices of them) orders only the keys: each batch's key columns,
// under a LIMIT first narrowed to the batch's candidates
// (gpuexec.TopCandidates), are concatenated and sorted, and the output
// rows are gathered from the batches where they lie, a chunk at a time.
// Every other column is read once, by the gather of the rows kept: never
// concatenated, and never copied whole at once.

// sortChunkRows bounds the rows of one output batch of a sort over
// several batches (with DeviceBatchRows): each chunk's gathers hold about
// twice its rows on the device besides the input.
var sortChunkRows = 1 << 22

// partOrder is the order of a sort over several batches: the rows of the
// sorted key batch in output order, and where each came from.
type partOrder struct {
	// starts[p] is the first key row of batch p; starts[len] the key rows.
	starts []int
	// cand[p] lists the rows of batch p its key rows hold (candidates for
	// a LIMIT, ascending); nil when they are all its rows, in order.
	cand [][]int
	// order lists key rows in output order (the first Limit when set).
	order []int
	// next is the first row of order not yet output.
	next int
}

// locate returns the batch and row of key row g.
func (o *partOrder) locate(g int) (part, row int) {
	part = sort.Search(len(o.starts)-1, func(i int) bool { return o.starts[i+1] > g })
	row = g - o.starts[part]
	if o.cand[part] != nil {
		row = o.cand[part][row]
	}
	return part, row
}

// plan returns how output rows order[lo:hi] are gathered: rows[p] are the
// rows of batch p among them, in output order. When more than one batch
// holds some, the gathered pieces are concatenated in batch order and
// pick lists, for each output row, its row in that concatenation; pick is
// nil when one batch holds them all (its piece is the output).
func (o *partOrder) plan(lo, hi int) (rows [][]int, pick []int) {
	rows = make([][]int, len(o.starts)-1)
	parts := make([]int, hi-lo)
	within := make([]int, hi-lo)
	for i, g := range o.order[lo:hi] {
		p, r := o.locate(g)
		parts[i], within[i] = p, len(rows[p])
		rows[p] = append(rows[p], r)
	}
	base := make([]int, len(rows))
	used, at := 0, 0
	for p, r := range rows {
		base[p] = at
		at += len(r)
		if len(r) > 0 {
			used++
		}
	}
	if used <= 1 {
		return rows, nil
	}
	pick = make([]int, hi-lo)
	for i := range pick {
		pick[i] = base[parts[i]] + within[i]
	}
	return rows, pick
}

// dropEmpty releases the batches of parts without rows and returns the
// rest; when none has rows, the first alone (the output is then empty).
func dropEmpty(parts []*gpuexec.DeviceBatch) []*gpuexec.DeviceBatch {
	kept := parts[:0]
	var empty []*gpuexec.DeviceBatch
	for _, p := range parts {
		if p.Len > 0 {
			kept = append(kept, p)
		} else {
			empty = append(empty, p)
		}
	}
	if len(kept) == 0 {
		kept, empty = append(kept, empty[0]), empty[1:]
	}
	for _, p := range empty {
		p.Release()
	}
	return kept
}

// orderParts orders the rows of parts (each with rows) by the sort keys
// and sets s.order; the caller keeps parts until their rows are gathered.
func (s *DeviceSort) orderParts(ctx context.Context, parts []*gpuexec.DeviceBatch) error {
	total := 0
	for _, p := range parts {
		total += p.Len
	}
	o := &partOrder{starts: make([]int, len(parts)+1), cand: make([][]int, len(parts))}
	var keyParts []*gpuexec.DeviceBatch
	defer func() {
		for _, k := range keyParts {
			k.Release()
		}
	}()
	keys := s.Keys
	for p, b := range parts {
		kb, renumbered, err := keyColumns(b, s.Keys)
		if err != nil {
			return fmt.Errorf("ORDER BY: %w", err)
		}
		keys = renumbered
		if s.Limit > 0 && s.Limit < int64(b.Len)/2 {
			// Only the batch's candidates for the LIMIT can be output.
			first := s.Keys[0]
			rows, ok, err := s.RT.Dev.TopCandidates(ctx, b.Cols[first.Col], first.Desc, int(s.Limit))
			if err == nil && ok {
				var cand *gpuexec.DeviceBatch
				if cand, err = s.gatherKeys(ctx, kb, rows); err == nil {
					kb.Release()
					kb = cand
					o.cand[p] = rows
				}
			}
			if err != nil {
				kb.Release()
				return fmt.Errorf("ORDER BY: %w", err)
			}
		}
		keyParts = append(keyParts, kb)
		o.starts[p+1] = o.starts[p] + kb.Len
	}
	all := keyParts[0]
	if len(keyParts) > 1 {
		c, err := s.RT.Dev.Concatenate(keyParts)
		if err != nil {
			return fmt.Errorf("ORDER BY: %w", err)
		}
		keyParts = append(keyParts, c)
		all = c
	}
	var err error
	if o.order, err = s.orderKeys(ctx, all, keys); err != nil {
		return err
	}
	s.order = o
	return nil
}

// gatherKeys gathers rows of the key columns kb (a view of s.Keys'
// columns) with the key columns' own gather.
func (s *DeviceSort) gatherKeys(ctx context.Context, kb *gpuexec.DeviceBatch, rows []int) (*gpuexec.DeviceBatch, error) {
	if s.keyGather == nil {
		types := make([]coldata.Type, len(kb.Cols))
		for i, c := range kb.Cols {
			types[i] = c.Type
		}
		g, err := prepareGather(s.RT.Dev, types, s.Stats)
		if err != nil {
			return nil, err
		}
		s.keyGather = g
	}
	return s.gatherRowsWith(ctx, s.keyGather, kb, rows)
}

// orderKeys returns the rows of the key batch kb in output order (the
// first Limit when set): sorted on the device when it can, else on the
// host.
func (s *DeviceSort) orderKeys(ctx context.Context, kb *gpuexec.DeviceBatch, keys []opspec.SortKey) ([]int, error) {
	if s.tiny([]*gpuexec.DeviceBatch{kb}) {
		// Few key rows (the batches' LIMIT candidates): the host orders
		// them for less than the radix sort's launches.
		hk, hostKeys, err := s.keysOf(ctx, kb, keys)
		if err != nil {
			return nil, fmt.Errorf("ORDER BY: %w", err)
		}
		if s.Stats != nil {
			s.Stats.HostOrders.Add(1)
			s.Stats.HostOrderRows.Add(int64(kb.Len))
		}
		return s.hostPerm(ctx, hk, hostKeys)
	}
	dk, ok := s.deviceKeys(kb, keys)
	if !ok {
		return s.hostOrder(ctx, kb, keys)
	}
	limit := 0
	if s.Limit > 0 && s.Limit < int64(kb.Len) {
		limit = int(s.Limit)
	}
	order, ok, err := s.RT.Dev.SortRows(ctx, kb.Len, dk, limit)
	if err != nil {
		return nil, fmt.Errorf("ORDER BY: %w", err)
	}
	if !ok {
		// A text key too long to pack: the host sorts the keys.
		return s.hostOrder(ctx, kb, keys)
	}
	defer order.Release()
	if s.Stats != nil {
		s.Stats.Launches.Add(int64(order.Launches))
	}
	// The order comes to the host to be split by batch: 8 bytes a row
	// kept, where the rows themselves stay on the device.
	raw := make([]byte, 8*order.Len)
	if err := s.RT.Dev.CopyToHost(raw, order.Rows.Ptr(), nil); err != nil {
		return nil, fmt.Errorf("ORDER BY: %w", err)
	}
	rows := make([]int, order.Len)
	for i := range rows {
		rows[i] = int(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return rows, nil
}

// nextChunk gathers the next chunk of a sort over several batches: each
// batch's rows in it, then, when several batches hold some, those pieces
// into output order.
func (s *DeviceSort) nextChunk(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	o := s.order
	lo := o.next
	if lo >= len(o.order) {
		s.releaseParts()
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hi := min(len(o.order), lo+max(1, min(sortChunkRows, DeviceBatchRows)))
	rows, pick := o.plan(lo, hi)
	var pieces []*gpuexec.DeviceBatch
	defer func() {
		for _, p := range pieces {
			p.Release()
		}
	}()
	for p, r := range rows {
		if len(r) == 0 {
			continue
		}
		piece, err := s.gatherRows(ctx, s.parts[p], r)
		if err != nil {
			return nil, fmt.Errorf("ORDER BY: %w", err)
		}
		pieces = append(pieces, piece)
	}
	o.next = hi
	if pick == nil {
		out := pieces[0]
		pieces = nil
		return out, nil
	}
	c, err := s.RT.Dev.Concatenate(pieces)
	if err != nil {
		return nil, fmt.Errorf("ORDER BY: %w", err)
	}
	pieces = append(pieces, c)
	return s.gatherRows(ctx, c, pick)
}

// releaseParts drops a sort's input batches and order.
func (s *DeviceSort) releaseParts() {
	for _, p := range s.parts {
		p.Release()
	}
	s.parts, s.order = nil, nil
}
