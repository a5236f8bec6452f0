package operators

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A device operator pays the GPU's fixed costs whatever its input's size:
// each kernel launch, and each synchronisation that brings a size or a
// flag to the host, costs microseconds, and the device sort and join run
// a dozen or more of them (the radix sort of 20 rows: 26 launches; a join
// of two 25-row tables: about 10 launches and 3 round trips). When the
// rows an operator actually holds, known at run time from its batches,
// are tiny, one download, the CPU operator's own code (the oracle, so the
// answer is the CPU backend's) and one upload cost less: two transfers of
// a few kilobytes and microseconds of host work, no launch. EXPLAIN
// ANALYZE says so: host_order_rows= on a sort, host_join_rows= on a join,
// host_group_rows= on a GROUP BY.
const (
	// defaultTinyRows bounds the rows (of each join side) an operator
	// handles on the host. On an H200 the radix sort of 20 rows took 26
	// launches and 0.4 ms (docs/benchlog/2026-11-30-session9.md, query
	// r055: 3.09 ms against DuckDB's 2.87), some 15 µs a launch with its
	// syncs, and a join of 25-row tables about 10 launches and 3 round
	// trips; the host sorts, or hashes and probes, a couple of thousand
	// rows in well under that (tens of µs). Past a few thousand rows the
	// device's throughput wins, so the bound stays low.
	defaultTinyRows = 2048
	// tinyBytes bounds the device bytes of the columns downloaded (each
	// join side, or a sort's whole input): a few tiny rows of long
	// strings are not tiny to move.
	tinyBytes = 1 << 20
	// tinyJoinOutRows bounds a host join's output: tiny sides whose keys
	// repeat can pair into millions of rows, which the device joins
	// faster; past it the host join is dropped and the device joins.
	tinyJoinOutRows = 1 << 16
	// tinyJoinSliceRows cuts the left rows the host join probes at once,
	// so that it sees a growing output after at most this many rows'
	// pairs (at most tinyRows each) and stops early.
	tinyJoinSliceRows = 128
)

// tinyRows is the bound in force (defaultTinyRows; SetTinyRows).
var tinyRows atomic.Int64

// GSQL_TINY_ROWS overrides the bound (0: never), so that a run of the GPU
// tests can still send their many small tables through the device
// kernels.
func init() {
	tinyRows.Store(defaultTinyRows)
	if n, err := strconv.Atoi(os.Getenv("GSQL_TINY_ROWS")); err == nil && n >= 0 {
		tinyRows.Store(int64(n))
	}
}

// SetTinyRows sets the rows below which device sorts and joins run on the
// host (0: never), so that tests and benchmarks can compare both paths
// over the same data; the returned function restores the previous bound.
func SetTinyRows(n int) (restore func()) {
	old := tinyRows.Swap(int64(n))
	return func() { tinyRows.Store(old) }
}

// tinyOnHost reports whether batches (none: an empty input) hold few enough rows and bytes,
// together, to be handled on the host (tinyRows, tinyBytes).
func tinyOnHost(parts []*gpuexec.DeviceBatch) bool {
	rows, bytes := 0, uint64(0)
	for _, p := range parts {
		rows += p.Len
		bytes += p.ColumnBytes()
	}
	return int64(rows) <= tinyRows.Load() && bytes <= tinyBytes
}

// download copies parts to the host, in order.
func download(ctx context.Context, d *gpuexec.Device, parts []*gpuexec.DeviceBatch) ([]*coldata.Batch, error) {
	out := make([]*coldata.Batch, 0, len(parts))
	for _, p := range parts {
		hb, err := d.Download(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, hb)
	}
	return out, nil
}

// tiny reports whether the sort orders parts on the host as a tiny input:
// not when SetSortKeysOnHost asks for the keys-only host path, which
// benchmarks and tests measure apart.
func (s *DeviceSort) tiny(parts []*gpuexec.DeviceBatch) bool {
	return !sortKeysOnHost.Load() && tinyOnHost(parts)
}

// sortOnHost orders the tiny input parts on the host: downloaded whole,
// ordered as the CPU Sort orders them (hostPerm: NULL placement, DESC,
// NaN, ties in input order, the LIMIT's first rows) and uploaded in that
// order, one transfer each way and no launch.
func (s *DeviceSort) sortOnHost(ctx context.Context, parts []*gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	hbs, err := download(ctx, s.RT.Dev, parts)
	if err != nil {
		return nil, fmt.Errorf("ORDER BY on the host: %w", err)
	}
	all := hbs[0]
	if len(hbs) > 1 {
		if all, err = coldata.ConcatCheck(hbs, len(all.Cols), ctx.Err); err != nil {
			return nil, err
		}
	}
	perm, err := s.hostPerm(ctx, all, s.Keys)
	if err != nil {
		return nil, err
	}
	if s.Stats != nil {
		s.Stats.HostOrders.Add(1)
		s.Stats.HostOrderRows.Add(int64(all.Len))
	}
	out, err := s.RT.Dev.Upload(ctx, coldata.GatherBatch(all, perm))
	if err != nil {
		return nil, fmt.Errorf("ORDER BY on the host: %w", err)
	}
	return out, nil
}

// joinOnHost joins on the host when the right input, right, and the left
// one, read ahead here, are both tiny: both downloaded, joined by the CPU
// HashJoin and its output uploaded in one batch (j.hostOut). It reports
// false when a side, or the output, is not tiny; the left batches read
// stay in j.leftBuf for the device join then.
func (j *DeviceHashJoin) joinOnHost(ctx context.Context, right []*gpuexec.DeviceBatch) (bool, error) {
	if tinyRows.Load() <= 0 || !tinyOnHost(right) {
		return false, nil
	}
	for !j.leftExhausted && tinyOnHost(j.leftBuf) {
		b, err := j.Left.NextDevice(ctx)
		if err != nil {
			return false, err
		}
		if b == nil {
			j.leftExhausted = true
			break
		}
		if b.Len == 0 {
			b.Release()
			continue
		}
		j.leftBuf = append(j.leftBuf, b)
	}
	if !j.leftExhausted || !tinyOnHost(j.leftBuf) {
		return false, nil
	}
	rows := 0
	for _, b := range append(j.leftBuf[:len(j.leftBuf):len(j.leftBuf)], right...) {
		rows += b.Len
	}
	var out *gpuexec.DeviceBatch
	if len(j.leftBuf) > 0 {
		// Every kind's output is made of left rows: none, no output.
		lhs, err := download(ctx, j.RT.Dev, j.leftBuf)
		if err != nil {
			return false, fmt.Errorf("join on the host: %w", err)
		}
		rhs, err := download(ctx, j.RT.Dev, right)
		if err != nil {
			return false, fmt.Errorf("join on the host: %w", err)
		}
		outs, ok, err := j.hostJoin(ctx, lhs, rhs)
		if err != nil || !ok {
			return false, err
		}
		if len(outs) > 0 {
			if out, err = j.RT.Dev.UploadBatches(ctx, outs); err != nil {
				return false, fmt.Errorf("join on the host: %w", err)
			}
		}
	}
	for _, b := range j.leftBuf {
		b.Release()
	}
	j.leftBuf, j.hosted, j.hostOut = nil, true, out
	if j.Stats != nil {
		j.Stats.HostJoins.Add(1)
		j.Stats.HostJoinRows.Add(int64(rows))
	}
	return true, nil
}

// hostJoin joins host batches lhs (each with every column of the left
// input) and rhs (the right input's) as the CPU HashJoin does, and
// returns its output batches with the device join's columns: the left
// output columns, then (not for a semi or anti join) the right ones. ok
// is false when the output passes tinyJoinOutRows.
func (j *DeviceHashJoin) hostJoin(ctx context.Context, lhs, rhs []*coldata.Batch) (outs []*coldata.Batch, ok bool, err error) {
	nl := len(lhs[0].Cols)
	// Left rows a slice at a time, so that an output growing past the
	// bound is seen early (the pairs of tinyJoinSliceRows rows at most).
	var left []*coldata.Batch
	for _, b := range lhs {
		for lo := 0; lo < b.Len; lo += tinyJoinSliceRows {
			left = append(left, coldata.SliceBatch(b, lo, min(b.Len, lo+tinyJoinSliceRows)))
		}
	}
	hj := j.hostHashJoin(&Materialized{Batches: left}, lhs[0], rhs)
	if err := hj.Open(ctx); err != nil {
		return nil, false, err
	}
	defer hj.Close()
	rows := 0
	for {
		b, err := hj.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if b == nil {
			return outs, true, nil
		}
		if rows += b.Len; rows > tinyJoinOutRows {
			return nil, false, nil
		}
		if b.Len > 0 {
			outs = append(outs, j.deviceColumns(b, nl))
		}
	}
}

// hostHashJoin is the CPU HashJoin that stands in for the device join over
// host batches: left yields batches with every column of the left input
// (like first), rhs holds the right input's.
func (j *DeviceHashJoin) hostHashJoin(left Operator, first *coldata.Batch, rhs []*coldata.Batch) *HashJoin {
	nl := len(first.Cols)
	lk := make([]expr.Expr, len(j.LeftKeys))
	for i, k := range j.LeftKeys {
		lk[i] = &expr.ColumnRef{Index: k, Name: fmt.Sprintf("l%d", k), T: first.Cols[k].Type}
	}
	rk := make([]expr.Expr, len(j.RightKeys))
	for i, k := range j.RightKeys {
		rk[i] = &expr.ColumnRef{Index: k, Name: fmt.Sprintf("r%d", k), T: j.RightInTypes[k]}
	}
	var cond expr.Expr
	if j.Cond != nil {
		// j.Cond reads the left output columns, then the right input's;
		// HashJoin's every left column, then the right ones.
		m := map[int]int{}
		for c := range expr.Columns(j.Cond) {
			if c < len(j.LeftTypes) {
				m[c] = c
			} else {
				m[c] = c - len(j.LeftTypes) + nl
			}
		}
		cond = expr.Remap(j.Cond, m)
	}
	return &HashJoin{Left: left, Right: &Materialized{Batches: rhs}, LeftKeys: lk, RightKeys: rk,
		Cond: cond, Kind: j.Kind, LeftCols: nl, RightTypes: j.RightInTypes}
}

// deviceColumns picks the device join's columns out of a batch of the
// host HashJoin over nl left columns: the left output columns, then (not
// for a semi or anti join) the right ones.
func (j *DeviceHashJoin) deviceColumns(b *coldata.Batch, nl int) *coldata.Batch {
	cols := append([]*coldata.Vec(nil), b.Cols[:len(j.LeftTypes)]...)
	if j.Kind != opspec.SemiJoin && j.Kind != opspec.AntiJoin {
		cols = append(cols, b.Cols[nl:nl+len(j.RightTypes)]...)
	}
	return &coldata.Batch{Cols: cols, Len: b.Len}
}

// groupOnHost reads the input ahead while it stays tiny and, when it ends
// so, groups it on the host: downloaded, grouped by the CPU HashAggregate
// (as aggregateOnHost does for quantiles: the same keys and aggregates) and
// returned as consume returns groups, to be uploaded when a device
// operator reads them. Otherwise the batches read wait in h.ahead for the
// device path and ok is false.
func (h *DeviceHashAggregate) groupOnHost(ctx context.Context) (out *coldata.Batch, ok bool, err error) {
	if tinyRows.Load() <= 0 {
		return nil, false, nil
	}
	var ahead []*gpuexec.DeviceBatch
	for tinyOnHost(ahead) {
		b, err := h.readInput(ctx)
		if err != nil {
			releaseDeviceBatches(ahead)
			return nil, false, err
		}
		if b == nil {
			out, err := h.groupTinyOnHost(ctx, ahead)
			releaseDeviceBatches(ahead)
			return out, err == nil, err
		}
		ahead = append(ahead, b)
	}
	h.ahead = ahead
	return nil, false, nil
}

// groupTinyOnHost groups the tiny input parts on the host. Without a
// top-groups cut: the cut is only a saving, and a tiny input has few
// groups.
func (h *DeviceHashAggregate) groupTinyOnHost(ctx context.Context, parts []*gpuexec.DeviceBatch) (*coldata.Batch, error) {
	hbs, err := download(ctx, h.RT.Dev, parts)
	if err != nil {
		return nil, fmt.Errorf("GROUP BY on the host: %w", err)
	}
	rows := 0
	for _, b := range hbs {
		rows += b.Len
	}
	ha := &HashAggregate{Input: &Materialized{Batches: hbs}, Keys: h.keyExprs(), Aggs: h.Aggs, MemoryLimit: h.MemoryLimit}
	if err := ha.Open(ctx); err != nil {
		ha.Close()
		return nil, err
	}
	var outs []*coldata.Batch
	for {
		b, err := ha.Next(ctx)
		if err != nil {
			ha.Close()
			return nil, err
		}
		if b == nil {
			break
		}
		outs = append(outs, b)
	}
	if err := ha.Close(); err != nil {
		return nil, err
	}
	h.hosted = true
	if h.Stats != nil {
		h.Stats.HostAggs.Add(1)
		h.Stats.HostAggRows.Add(int64(rows))
	}
	switch len(outs) {
	case 0:
		return &coldata.Batch{}, nil
	case 1:
		return outs[0], nil
	}
	return coldata.ConcatCheck(outs, len(outs[0].Cols), ctx.Err)
}

// nextInput is the input's next batch, those read ahead first.
func (h *DeviceHashAggregate) nextInput(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if len(h.ahead) > 0 {
		b := h.ahead[0]
		h.ahead = h.ahead[1:]
		return b, nil
	}
	return h.readInput(ctx)
}

// readInput reads the input's next batch, counting what it read.
func (h *DeviceHashAggregate) readInput(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	b, err := h.Input.NextDevice(ctx)
	if err != nil {
		h.inputFailed = true
	}
	if b != nil {
		h.seenRows += uint64(b.Len)
		h.seenBytes += b.ColumnBytes()
	}
	return b, err
}

// dropAhead releases the batches read ahead (the input is read again, or
// closed).
func (h *DeviceHashAggregate) dropAhead() {
	releaseDeviceBatches(h.ahead)
	h.ahead = nil
}
