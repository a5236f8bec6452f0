package operators

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/opspec"
)

// DeviceHashAggregate groups device batches on the GPU: each batch is
// hashed and aggregated by the device (gpuexec.GroupBy), its groups come to
// the host with their partial states, and the host merges the batches'
// partials (a device batch usually holds a whole table, so there is one).
// Batches are concatenated and grouped at once up to AggConcatBytes; above
// it (ClickBench's hits at 100M rows), while they take at most an eighth
// of the device, their rows are hash-partitioned by key on the device and
// each partition grouped at once (groupPartitioned), so that the groups
// are final and only the LIMIT's groups leave the device under a Top.
// Output and semantics are HashAggregate's: key columns then aggregates,
// groups in first-appearance order, one row for an ungrouped aggregate.
// Float sums add in the device's order, so their last bits may differ from
// the CPU's row-order sums; BIGINT sums are exact (128-bit) and fail only
// when the total is out of range. Quantiles (MEDIAN, QUANTILE_CONT/DISC,
// PERCENTILE_CONT/DISC) are the CPU's bits; having no partial state, they
// need a group's rows at once, so with them the input is grouped as one
// device batch, or on the host when the batches cannot be concatenated.
type DeviceHashAggregate struct {
	Input DeviceOperator
	RT    *DeviceRuntime
	// Keys are the key columns of the input batches; each AggSpec's Arg is
	// a column reference into them (nil for COUNT(*)).
	Keys        []int
	KeyTypes    []coldata.Type
	Aggs        []opspec.AggSpec
	MemoryLimit uint64
	Stats       *Stats
	// Top, when set, says an ORDER BY on one COUNT aggregate and a LIMIT
	// read this aggregate's output: when the device groups the whole
	// input at once, only the groups they can read come out.
	Top *opspec.TopGroups
	// Spill, when set, runs a GROUP BY whose merged groups pass
	// MemoryLimit again on the host, spilling its groups to disk in
	// SpillDir (SpillAggregate) instead of failing.
	Spill    bool
	SpillDir string
	// GroupOn and PartitionOn, when set, stand in for the device's
	// GroupByTop and PartitionRows: tests over the fake driver, which
	// runs no generated kernels, pass host twins.
	GroupOn     func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error)
	PartitionOn func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, parts int, base int64) (*gpuexec.PartitionedRows, error)

	out *Materialized
	// devDone says NextDevice has returned the groups; onDevice holds,
	// while consume runs for NextDevice, how the device finishes each
	// aggregate.
	devDone  bool
	onDevice *deviceFinish
	// ahead holds input batches read ahead to see whether the input is
	// tiny (groupOnHost), which the device path reads first; hosted says
	// the input was tiny and grouped on the host.
	ahead  []*gpuexec.DeviceBatch
	hosted bool
	// seenRows and seenBytes count the input read; inputFailed says the
	// input itself failed (device_aggregate_partitioned.go sizes its
	// partitions by what an attempt read, and does not take over an
	// input's failure).
	seenRows, seenBytes uint64
	inputFailed         bool
	// parted groups partition by partition after the device ran out of
	// memory; depth is how many such GROUP BYs this one is inside.
	parted *aggPartStream
	depth  int
	// oomSpill, in a partition's own GROUP BY, is the partitioned
	// GROUP BY's host budget and spill directory, shared; oneKey says
	// the partition's rows all have one key.
	oomSpill *partSpill
	oneKey   bool
}

// deviceFinish is how the device finishes every aggregate of a GROUP BY
// whose groups stay there.
type deviceFinish struct {
	finish []gpuexec.GroupFinish
	types  []coldata.Type
	out    *gpuexec.DeviceBatch
}

// DeviceAggKinds maps the aggregates of specs onto device aggregates, or
// reports which one has no device implementation.
func DeviceAggKinds(specs []opspec.AggSpec) ([]gpuexec.GroupAgg, error) {
	out := make([]gpuexec.GroupAgg, len(specs))
	var quantiles, distinct bool
	for i, s := range specs {
		quantile := s.Kind == opspec.AggQuantileCont || s.Kind == opspec.AggQuantileDisc
		quantiles = quantiles || quantile
		distinct = distinct || s.Distinct
		if s.Kind == opspec.AggGroupConcat || (len(s.Order) > 0 && !quantile) {
			return nil, fmt.Errorf("aggregate %d (GROUP_CONCAT) has no GPU implementation", i)
		}
		if s.Kind == opspec.AggCountStar {
			out[i] = gpuexec.GroupAgg{Kind: gpuexec.GroupCountStar}
			continue
		}
		ref, ok := s.Arg.(*expr.ColumnRef)
		if !ok {
			return nil, fmt.Errorf("aggregate %d: argument is not a column", i)
		}
		name := map[opspec.AggKind]string{opspec.AggCount: "count", opspec.AggSum: "sum", opspec.AggAvg: "avg", opspec.AggMin: "min", opspec.AggMax: "max",
			opspec.AggVarPop: "var", opspec.AggVarSamp: "var", opspec.AggStddevPop: "var", opspec.AggStddevSamp: "var",
			opspec.AggQuantileCont: "quantile_cont", opspec.AggQuantileDisc: "quantile_disc"}[s.Kind]
		k, ok := gpuexec.GroupAggFor(name, ref.T)
		if s.Distinct && (!distinctable(ref.T) || isVariance(s.Kind)) {
			ok = false // the argument becomes a hash key; no DISTINCT variance
		}
		if name == "" {
			name = fmt.Sprintf("aggregate kind %d", s.Kind)
		}
		if !ok {
			return nil, fmt.Errorf("aggregate %s over %s has no GPU implementation", name, ref.T)
		}
		out[i] = gpuexec.GroupAgg{Kind: k, Arg: ref.Index}
		if quantile {
			out[i].Quantile = s.Quantile
			out[i].Desc = len(s.Order) > 0 && s.Order[0].Desc
		}
	}
	if quantiles && distinct {
		// The DISTINCT paths merge partial states on the host, which a
		// quantile has none of.
		return nil, fmt.Errorf("quantiles beside DISTINCT aggregates have no GPU implementation")
	}
	return out, nil
}

// hasDistinct reports whether an aggregate of specs is DISTINCT.
func hasDistinct(specs []opspec.AggSpec) bool {
	for _, s := range specs {
		if s.Distinct {
			return true
		}
	}
	return false
}

// hasQuantile reports whether kinds hold a quantile, which needs every
// row of a group in one device batch.
func hasQuantile(kinds []gpuexec.GroupAgg) bool {
	for _, k := range kinds {
		if k.Kind == gpuexec.GroupQuantileCont || k.Kind == gpuexec.GroupQuantileDisc {
			return true
		}
	}
	return false
}

// Open implements Operator.
func (h *DeviceHashAggregate) Open(ctx context.Context) error {
	h.out, h.devDone, h.hosted = nil, false, false
	h.seenRows, h.seenBytes, h.inputFailed = 0, 0, false
	h.dropAhead()
	if err := h.closeParted(); err != nil {
		return err
	}
	return h.Input.Open(ctx)
}

// NextDevice implements DeviceOperator, for a GROUP BY read by device
// operators (a join, a filter): when the whole input is grouped at once
// and the device finishes every aggregate (deviceFinishes), the groups
// never leave the device; otherwise the host's result is uploaded.
func (h *DeviceHashAggregate) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if !h.devDone {
		h.devDone = true
		kinds, err := DeviceAggKinds(h.Aggs)
		if err != nil {
			return nil, err
		}
		f := deviceFinishes(h.Aggs, kinds)
		if f == nil && hasDistinct(h.Aggs) {
			// A DISTINCT grouping may keep its groups on the device
			// (device_aggregate_distinct.go); its out says whether it did.
			f = &deviceFinish{}
		}
		if f != nil && h.Top == nil {
			h.onDevice = f
			b, err := h.consume(ctx)
			h.onDevice = nil
			switch {
			case err == nil && f.out != nil:
				h.out = &Materialized{}
				return f.out, nil
			case err == nil:
				h.out = &Materialized{Batches: []*coldata.Batch{b}}
			case h.oomPartitionable(err):
				// Out of device memory: Next returns the partitions'
				// groups.
				if err := h.groupPartitionedAfterOOM(ctx, err); err != nil {
					return nil, err
				}
			case h.Spill && isGroupStateLimit(err):
				// Past MemoryLimit on the host: Next reads the input
				// again and spills.
				h.dropAhead()
				if err := h.Input.Close(); err != nil {
					return nil, err
				}
				if err := h.Input.Open(ctx); err != nil {
					return nil, err
				}
			default:
				return nil, err
			}
		}
	}
	b, err := h.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	if h.Stats != nil && b.Len > 0 && !h.hosted {
		h.Stats.HostGroups.Add(1)
	}
	return h.upload(ctx, b)
}

// upload brings the host's groups to the device.
func (h *DeviceHashAggregate) upload(ctx context.Context, b *coldata.Batch) (*gpuexec.DeviceBatch, error) {
	var db *gpuexec.DeviceBatch
	err := h.RT.Cache.RetryOOM(h.RT.waitCtx(ctx), func() (err error) {
		db, err = h.RT.Dev.Upload(ctx, b)
		return err
	})
	return db, err
}

// deviceFinishes maps each aggregate onto the device's finish of its
// state, or returns nil when one has none (a variance, MIN/MAX of a
// BOOLEAN, DISTINCT, a quantile: the host finishes those).
func deviceFinishes(specs []opspec.AggSpec, kinds []gpuexec.GroupAgg) *deviceFinish {
	f := &deviceFinish{finish: make([]gpuexec.GroupFinish, len(specs)), types: make([]coldata.Type, len(specs))}
	for i, s := range specs {
		if s.Distinct {
			return nil
		}
		avg := s.Kind == opspec.AggAvg
		sum := s.Kind == opspec.AggSum
		var fin gpuexec.GroupFinish
		switch k := kinds[i].Kind; {
		case s.Kind == opspec.AggCountStar || s.Kind == opspec.AggCount:
			fin = gpuexec.FinishCount
		case k == gpuexec.GroupSumInt && sum && s.Type == coldata.Int64:
			fin = gpuexec.FinishSumInt
		case k == gpuexec.GroupSumInt && avg && s.Type == coldata.Float64:
			fin = gpuexec.FinishAvgInt
		case k == gpuexec.GroupSumFloat && avg && s.Type == coldata.Float64:
			fin = gpuexec.FinishAvgFloat
		case (k == gpuexec.GroupSumFloat && sum || k == gpuexec.GroupMinFloat || k == gpuexec.GroupMaxFloat) && s.Type == coldata.Float64:
			fin = gpuexec.FinishFloat
		case (k == gpuexec.GroupMinInt || k == gpuexec.GroupMaxInt) && s.Type.Physical() == coldata.Int64:
			fin = gpuexec.FinishInt
		case k == gpuexec.GroupSumDec && sum && s.Type.IsDecimal():
			fin = gpuexec.FinishSumDec
		case (k == gpuexec.GroupMinString || k == gpuexec.GroupMaxString || k == gpuexec.GroupMinDec || k == gpuexec.GroupMaxDec) &&
			s.Arg != nil && s.Type.Physical() == s.Arg.Type().Physical():
			fin = gpuexec.FinishRows
		case k == gpuexec.GroupSumDec && avg && s.Type.IsDecimal() && s.Arg != nil &&
			s.Type.Scale() >= s.Arg.Type().Scale() && s.Type.Scale()-s.Arg.Type().Scale() <= 18:
			fin = gpuexec.FinishAvgDec
		default:
			return nil
		}
		f.finish[i], f.types[i] = fin, s.Type
	}
	return f
}

// Next implements Operator.
func (h *DeviceHashAggregate) Next(ctx context.Context) (*coldata.Batch, error) {
	if h.parted != nil {
		return h.parted.next(ctx)
	}
	if h.out == nil {
		b, err := h.consume(ctx)
		if err != nil && h.Spill && isGroupStateLimit(err) {
			return h.spillOnHost(ctx)
		}
		if err != nil && h.oomPartitionable(err) {
			if err := h.groupPartitionedAfterOOM(ctx, err); err != nil {
				return nil, err
			}
			return h.parted.next(ctx)
		}
		if err != nil {
			return nil, err
		}
		h.out = &Materialized{Batches: []*coldata.Batch{b}}
	}
	return h.out.Next(ctx)
}

// spillOnHost is the last step for groups past MemoryLimit: the input is
// read again, downloaded, and grouped on the host by a SpillAggregate
// that splits it by key onto disk at once (the merge on the host just
// showed the groups do not fit). EXPLAIN ANALYZE counts the batches as
// CPU fallbacks and shows the spilled partitions.
func (h *DeviceHashAggregate) spillOnHost(ctx context.Context) (*coldata.Batch, error) {
	h.dropAhead()
	if err := h.Input.Close(); err != nil {
		return nil, err
	}
	in := &countBatches{Operator: &DeviceToHost{Input: h.Input, RT: h.RT}, st: h.Stats}
	sa := &SpillAggregate{Agg: &HashAggregate{Input: in, Keys: h.keyExprs(), Aggs: h.Aggs, MemoryLimit: h.MemoryLimit, Top: h.Top},
		Dir: h.SpillDir, Stats: h.Stats, SplitAtOnce: true}
	if err := sa.Open(ctx); err != nil {
		sa.Close()
		return nil, err
	}
	var out []*coldata.Batch
	for {
		b, err := sa.Next(ctx)
		if err != nil {
			sa.Close()
			return nil, err
		}
		if b == nil {
			break
		}
		out = append(out, b)
	}
	if err := sa.Close(); err != nil {
		return nil, err
	}
	h.out = &Materialized{Batches: out}
	return h.out.Next(ctx)
}

// countBatches counts the batches passing through as CPU fallbacks.
type countBatches struct {
	Operator
	st *Stats
}

func (c *countBatches) Next(ctx context.Context) (*coldata.Batch, error) {
	b, err := c.Operator.Next(ctx)
	if b != nil && c.st != nil {
		c.st.Fallbacks.Add(1)
	}
	return b, err
}

// keyExprs are the key columns as the CPU's HashAggregate takes them.
func (h *DeviceHashAggregate) keyExprs() []expr.Expr {
	keys := make([]expr.Expr, len(h.Keys))
	for i, k := range h.Keys {
		keys[i] = &expr.ColumnRef{Index: k, Name: fmt.Sprintf("key%d", i), T: h.KeyTypes[i]}
	}
	return keys
}

// Close implements Operator.
func (h *DeviceHashAggregate) Close() error {
	h.dropAhead()
	err := h.closeParted()
	if cerr := h.Input.Close(); err == nil {
		err = cerr
	}
	return err
}

// closeParted ends a partitioned grouping.
func (h *DeviceHashAggregate) closeParted() error {
	if h.parted == nil {
		return nil
	}
	err := h.parted.close()
	h.parted = nil
	return err
}

// mergedAgg is one aggregate's state of one group across batches.
type mergedAgg struct {
	count int64
	lo    uint64 // 128-bit BIGINT sum, low word; MIN/MAX of BIGINT/BOOL
	hi    int64
	top   int64 // DECIMAL sum: the top word of 192 bits (lo, hi below)
	f     float64
	s     []byte
	d     decimal.Int128 // MIN/MAX of DECIMAL
	// mean and m2: VAR/STDDEV's mean and sum of squared deviations from
	// it (count holds n), merged pairwise.
	mean, m2 float64
}

func (h *DeviceHashAggregate) consume(ctx context.Context) (*coldata.Batch, error) {
	kinds, err := DeviceAggKinds(h.Aggs)
	if err != nil {
		return nil, err
	}
	if out, ok, err := h.groupOnHost(ctx); err != nil || ok {
		return out, err
	}
	for _, s := range h.Aggs {
		if s.Distinct {
			return h.consumeDistinct(ctx, kinds)
		}
	}
	var parts []*gpuexec.GroupPartial
	// group groups b; last says no batch follows it, so with no partials
	// before it its groups are the final ones and a Top may cut them.
	var group func(b *gpuexec.DeviceBatch, last bool) error
	halving := 0 // the halves being grouped one inside the other
	group = func(b *gpuexec.DeviceBatch, last bool) error {
		if f := h.onDevice; f != nil && last && len(parts) == 0 {
			out, err := h.RT.Dev.GroupByOnDevice(ctx, b, h.Keys, kinds, f.finish, f.types)
			if err == nil {
				h.addLaunches(4 + len(kinds))
				f.out = out
				return nil
			}
			// Out of device memory, the groups are made as partials below
			// (in halves if need be) and merged on the host.
			if !errors.Is(err, gpuexec.ErrGroupsOnHost) && !gpuexec.IsOutOfMemory(err) {
				return err
			}
		}
		top := h.deviceTop(last && len(parts) == 0, kinds)
		p, err := h.groupByTop(ctx, b, kinds, top)
		if gpuexec.IsOutOfMemory(err) && !hasQuantile(kinds) { // a quantile has no partials to merge
			// Device out of memory for the batch's hash table: its halves
			// are grouped in turn, their partials merged on the host like
			// any batch's (Spark RAPIDS' split and retry), before the query
			// fails.
			if lo, hi, ok := splitHalves(b); ok {
				defer lo.Release()
				defer hi.Release()
				if h.Stats != nil {
					h.Stats.OOMSplits.Add(1)
				}
				before := len(parts)
				halving++
				defer func() { halving-- }()
				if err := group(lo, false); err != nil {
					return err
				}
				if halving == 1 && h.manyGroups(parts[before:], lo.Len) && h.oomPartitionable(err) {
					// The host would merge about every group of both
					// halves: the input is grouped by partition instead.
					return err
				}
				return group(hi, false)
			}
		}
		if err != nil {
			return err
		}
		h.addLaunches(p.Launches)
		h.noteTop(top, p)
		parts = append(parts, p)
		return nil
	}
	// Batches are concatenated on the device, up to AggConcatBytes, and
	// grouped together: their groups are then final, where grouping each
	// batch left the host to merge every group of every batch by its key
	// (TPC-H Q10 at SF10, 381,000 groups of seven keys:
	// docs/benchlog/2026-11-26-tpch-gpu.md).
	limit := min(uint64(AggConcatBytes), h.RT.Dev.MemoryLimit()/8)
	quantiles := hasQuantile(kinds)
	if quantiles {
		// A quantile has no partial state to merge: the whole input is
		// grouped at once, or on the host when it cannot be one batch.
		limit = math.MaxUint64
	}
	var hostOut *coldata.Batch
	var pending []*gpuexec.DeviceBatch
	var pendingBytes uint64
	defer func() {
		for _, b := range pending {
			b.Release()
		}
	}()
	// Batches over the concatenation limit together (or whose strings
	// cannot be one batch) are grouped by partition while they fit
	// partLimit: each partition's rows from every batch at once, so that
	// their groups are final instead of partials the host merges by key
	// (ClickBench Q19 at 100M rows merged tens of millions of groups on
	// the host, docs/benchlog/2026-11-26-clickbench-gpu.md; GROUP BY URL's
	// 3.5 GB of characters can never be one batch).
	partLimit := h.RT.Dev.MemoryLimit() / aggPartitionShare
	partition := len(h.Keys) > 0 && !quantiles && partLimit > limit
	flush := func(last bool) error {
		defer func() {
			for _, b := range pending {
				b.Release()
			}
			pending, pendingBytes = nil, 0
		}()
		if len(pending) > 1 && !(quantiles && quantilesOnHost) {
			if pendingBytes <= limit {
				if c, err := h.RT.Dev.Concatenate(pending); err == nil {
					defer c.Release()
					return group(c, last)
				}
			}
			if partition {
				// Batches with few groups for their rows (TPC-H Q1: 4 over
				// 60M rows) are grouped one by one, their small partials
				// merged on the host; from the first with many, the rest
				// are grouped by partition. A large first batch is probed
				// by its first AggProbeRows rows, so that many groups cost
				// little grouping twice; with few, the rest of it is
				// grouped as a batch of its own.
				pieces, split := pending, false
				if first := pending[0]; AggFewRows > 0 && first.Len > 2*AggProbeRows {
					if v, err := gpuexec.Split(first, []int{AggProbeRows}); err == nil {
						defer releaseDeviceBatches(v)
						pieces, split = append(v, pending[1:]...), true
					}
				}
				few, err := h.groupFew(ctx, pieces, split, pending[0].Len, kinds, &parts)
				if err != nil {
					return err
				}
				rest, restBytes := pieces[few:], uint64(0)
				if few == 0 {
					rest, restBytes = pending, pendingBytes // whole batches: no views
				} else {
					for _, b := range rest {
						restBytes += b.ColumnBytes() // a view of text counts its whole batch: more partitions at worst
					}
				}
				if h.Stats != nil {
					n := few
					if len(rest) == 1 {
						n++
					}
					if split && few > 0 {
						n-- // the first batch in two pieces
					}
					h.Stats.BatchPartials.Add(int64(n))
				}
				if len(rest) > 1 {
					p, err := h.groupPartitioned(ctx, rest, restBytes, limit, kinds, last && len(parts) == 0)
					if err == nil {
						parts = append(parts, p)
						return nil
					}
					if !errors.Is(err, errPartitionTooLarge) {
						return err
					}
				}
				for i, b := range rest {
					if err := group(b, last && i == len(rest)-1); err != nil {
						return err
					}
				}
				return nil
			}
		}
		if len(pending) > 1 {
			// Too many rows or characters for one batch: group each.
			if quantiles {
				var err error
				hostOut, err = h.aggregateOnHost(ctx, pending)
				return err
			}
		}
		for i, b := range pending {
			if err := group(b, last && i == len(pending)-1); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		b, err := h.nextInput(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if n := b.ColumnBytes(); len(pending) > 0 && ((!partition && pendingBytes+n > limit) || pendingBytes+n > partLimit) {
			if err := flush(false); err != nil {
				b.Release()
				return nil, err
			}
		}
		pending = append(pending, b)
		pendingBytes += b.ColumnBytes()
	}
	if err := flush(true); err != nil {
		return nil, err
	}
	if hostOut != nil {
		return hostOut, nil
	}
	if f := h.onDevice; f != nil && f.out != nil {
		return nil, nil
	}
	return h.mergeParts(parts, kinds)
}

// aggregateOnHost groups device batches with the CPU's HashAggregate (a
// GROUP BY with quantiles whose input does not fit one device batch):
// the batches are downloaded one by one. Each counts as a CPU fallback.
func (h *DeviceHashAggregate) aggregateOnHost(ctx context.Context, batches []*gpuexec.DeviceBatch) (*coldata.Batch, error) {
	var host []*coldata.Batch
	for _, b := range batches {
		hb, err := h.RT.Dev.Download(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("GROUP BY with quantiles on the host: %w", err)
		}
		host = append(host, hb)
		if h.Stats != nil {
			h.Stats.Fallbacks.Add(1)
		}
	}
	agg := &HashAggregate{Input: &Materialized{Batches: host}, Keys: h.keyExprs(), Aggs: h.Aggs, MemoryLimit: h.MemoryLimit}
	if err := agg.Open(ctx); err != nil {
		return nil, err
	}
	defer func() {
		// The downloaded input and the groups are held together.
		var n int64
		for _, b := range host {
			n += b.HostBytes()
		}
		raisePeak(h.Stats, n+int64(agg.StateBytes()))
		agg.Close()
	}()
	var out []*coldata.Batch
	for {
		b, err := agg.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		out = append(out, b)
	}
	return coldata.Concat(out, len(h.Keys)+len(h.Aggs)), nil
}

// quantilesOnHost (tests) takes the host path of a GROUP BY with
// quantiles over several batches, as when they cannot be concatenated.
var quantilesOnHost = false

// releaseDeviceBatches releases every batch of bs.
func releaseDeviceBatches(bs []*gpuexec.DeviceBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// AggConcatBytes bounds the device batches a GROUP BY concatenates to
// group at once (a variable so that tests can make small tables take the
// partitioned path).
var AggConcatBytes = 2 << 30

// aggPartitionShare: a GROUP BY over batches of at most 1/aggPartitionShare
// of the device memory limit groups them by partition when they are too
// large to concatenate (the partitioned copy takes as much again).
const aggPartitionShare = 8

// mergeParts merges the device batches' groups into the output: one
// batch's groups are final; more batches' partial states merge per group
// on the host.
func (h *DeviceHashAggregate) mergeParts(parts []*gpuexec.GroupPartial, kinds []gpuexec.GroupAgg) (*coldata.Batch, error) {
	if len(parts) == 1 {
		// One device batch (the usual case: a batch holds a whole table):
		// its groups are final.
		if p := parts[0]; p.Keys.Len > 0 || len(h.Keys) > 0 {
			return h.finishPartial(p, kinds)
		}
	}
	groups := map[string]int{}
	keyB := make([]*coldata.Builder, len(h.Keys))
	for i, t := range h.KeyTypes {
		keyB[i] = coldata.NewBuilder(t, 0)
	}
	var states [][]mergedAgg // [group][agg]
	var stateBytes uint64
	var key []byte
	for _, p := range parts {
		for g := 0; g < p.Keys.Len; g++ {
			key = opspec.AppendRowKey(key[:0], p.Keys.Cols, g)
			gi, ok := groups[string(key)]
			if !ok {
				gi = len(groups)
				stateBytes += uint64(len(key) + 64 + 64*len(h.Aggs))
				if h.MemoryLimit > 0 && stateBytes > h.MemoryLimit {
					return nil, h.memoryError(gi)
				}
				groups[string(key)] = gi
				for i, kb := range keyB {
					kb.AppendFrom(p.Keys.Cols[i], g)
				}
				states = append(states, make([]mergedAgg, len(h.Aggs)))
			}
			for a := range h.Aggs {
				mergeAgg(&states[gi][a], kinds[a].Kind, &p.Aggs[a], g)
			}
		}
	}
	if len(h.Keys) == 0 && len(states) == 0 {
		states = append(states, make([]mergedAgg, len(h.Aggs)))
	}
	raisePeak(h.Stats, int64(stateBytes)) // the groups merged on the host
	keys := make([]*coldata.Vec, len(keyB))
	for i, kb := range keyB {
		keys[i] = kb.Finish()
	}
	return h.finish(keys, len(states), kinds, func(g, a int, m *mergedAgg) { *m = states[g][a] })
}

// distinctable reports whether DISTINCT values of type t can be found on
// the device, as group keys.
func distinctable(t coldata.Type) bool {
	t = t.Physical()
	return t == coldata.Bool || t == coldata.Int64 || t == coldata.Float64 || t == coldata.String || t == coldata.Decimal
}

// distinctParts are one device batch's results when DISTINCT aggregates
// are present: the groups with the other aggregates' states, and per
// DISTINCT aggregate the batch's distinct (keys..., argument) tuples.
type distinctParts struct {
	groups *gpuexec.GroupPartial // nil when there are no keys and no plain aggregates
	pairs  []*gpuexec.GroupPartial
}

// consumeDistinct aggregates with DISTINCT aggregates: the device finds
// each DISTINCT aggregate's distinct (group keys, argument) tuples by
// grouping on both, and the host folds every tuple into its group, each
// distinct value once (across batches too).
func (h *DeviceHashAggregate) consumeDistinct(ctx context.Context, kinds []gpuexec.GroupAgg) (*coldata.Batch, error) {
	var plain, distinct []int
	var plainKinds []gpuexec.GroupAgg
	for i, s := range h.Aggs {
		if s.Distinct {
			distinct = append(distinct, i)
		} else {
			plain = append(plain, i)
			plainKinds = append(plainKinds, kinds[i])
		}
	}
	nk := len(h.Keys)
	// COUNT(DISTINCT x) without GROUP BY over one device batch (a resident
	// table is one batch up to 256M rows): the device counts the groups of
	// a hash table and only the counts come back. With more batches the
	// values themselves are needed, to count each once across batches.
	var ahead []*gpuexec.DeviceBatch
	if nk == 0 && h.onlyDistinctCounts(distinct) {
		// Several batches (a resident table of more than one row group:
		// ClickBench's hits at 100M rows) are concatenated on the device
		// when they fit one batch; folding their distinct values on the
		// host was ClickBench's slow COUNT(DISTINCT UserID) at 100M rows
		// (docs/benchlog/2026-11-26-clickbench-gpu.md).
		limit := min(uint64(AggConcatBytes), h.RT.Dev.MemoryLimit()/8)
		var bytes uint64
		for {
			b, err := h.nextInput(ctx)
			if err != nil {
				releaseDeviceBatches(ahead)
				return nil, err
			}
			if b == nil {
				break
			}
			ahead = append(ahead, b)
			bytes += b.ColumnBytes()
		}
		switch {
		case len(ahead) == 1:
			return h.countDistinctOne(ctx, ahead[0], kinds, plain, plainKinds, distinct)
		case len(ahead) > 1 && bytes <= limit:
			if c, err := h.RT.Dev.Concatenate(ahead); err == nil {
				releaseDeviceBatches(ahead)
				return h.countDistinctOne(ctx, c, kinds, plain, plainKinds, distinct)
			}
			// Too many rows or characters for one batch: fold on the host.
		}
	}
	if nk > 0 && (h.onlyDistinctCounts(distinct) || h.planDistinctOnDevice(kinds) != nil) {
		var done bool
		var out *coldata.Batch
		var err error
		if out, ahead, done, err = h.countDistinctGroups(ctx, kinds, plain, plainKinds, distinct); err != nil || done {
			return out, err
		}
	}
	var parts []distinctParts
	for {
		var b *gpuexec.DeviceBatch
		var err error
		if len(ahead) > 0 {
			b, ahead = ahead[0], ahead[1:]
		} else if b, err = h.nextInput(ctx); err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		var part distinctParts
		launches := 0
		err = func() error {
			defer b.Release()
			if nk > 0 || len(plain) > 0 {
				p, err := h.groupBy(ctx, b, h.Keys, plainKinds)
				if err != nil {
					return err
				}
				part.groups, launches = p, launches+p.Launches
			}
			for _, a := range distinct {
				keys := append(append(make([]int, 0, nk+1), h.Keys...), kinds[a].Arg)
				p, err := h.groupBy(ctx, b, keys, nil)
				if err != nil {
					return err
				}
				part.pairs, launches = append(part.pairs, p), launches+p.Launches
			}
			return nil
		}()
		if err != nil {
			return nil, err
		}
		if h.Stats != nil {
			h.Stats.Launches.Add(int64(launches))
		}
		parts = append(parts, part)
	}

	groups := map[string]int{}
	keyB := make([]*coldata.Builder, nk)
	for i, t := range h.KeyTypes {
		keyB[i] = coldata.NewBuilder(t, 0)
	}
	var states [][]mergedAgg // [group][agg]
	var stateBytes uint64
	var key []byte
	group := func(cols []*coldata.Vec, row int) (int, error) {
		key = opspec.AppendRowKey(key[:0], cols, row)
		gi, ok := groups[string(key)]
		if ok {
			return gi, nil
		}
		gi = len(states)
		stateBytes += uint64(len(key) + 64 + 64*len(h.Aggs))
		if h.MemoryLimit > 0 && stateBytes > h.MemoryLimit {
			return 0, h.memoryError(gi)
		}
		groups[string(key)] = gi
		for i, kb := range keyB {
			kb.AppendFrom(cols[i], row)
		}
		states = append(states, make([]mergedAgg, len(h.Aggs)))
		return gi, nil
	}
	for _, part := range parts {
		if part.groups == nil {
			continue
		}
		for g := 0; g < part.groups.Keys.Len; g++ {
			gi, err := group(part.groups.Keys.Cols, g)
			if err != nil {
				return nil, err
			}
			for pi, a := range plain {
				mergeAgg(&states[gi][a], kinds[a].Kind, &part.groups.Aggs[pi], g)
			}
		}
	}
	if nk == 0 && len(states) == 0 {
		states = append(states, make([]mergedAgg, len(h.Aggs)))
	}
	// A value seen by two batches counts once: remember the tuples when
	// there is more than one batch.
	var seen map[string]struct{}
	if len(parts) > 1 {
		seen = map[string]struct{}{}
	}
	var tuple []byte
	for di, a := range distinct {
		for _, part := range parts {
			p := part.pairs[di]
			x := p.Keys.Cols[nk]
			for j := 0; j < p.Keys.Len; j++ {
				if x.IsNull(j) {
					continue
				}
				gi := 0
				if nk > 0 {
					var err error
					if gi, err = group(p.Keys.Cols[:nk], j); err != nil {
						return nil, err
					}
				}
				if seen != nil {
					tuple = opspec.AppendRowKey(append(tuple[:0], byte(di), byte(di>>8)), p.Keys.Cols, j)
					if _, dup := seen[string(tuple)]; dup {
						continue
					}
					seen[string(tuple)] = struct{}{}
					stateBytes += uint64(len(tuple) + 16)
					if h.MemoryLimit > 0 && stateBytes > h.MemoryLimit {
						return nil, h.memoryError(len(states))
					}
				}
				foldDistinct(&states[gi][a], kinds[a].Kind, x, j)
			}
		}
	}
	raisePeak(h.Stats, int64(stateBytes)) // the groups and distinct values on the host
	keys := make([]*coldata.Vec, nk)
	for i, kb := range keyB {
		keys[i] = kb.Finish()
	}
	return h.finish(keys, len(states), kinds, func(g, a int, m *mergedAgg) { *m = states[g][a] })
}

// countDistinctGroups computes a GROUP BY with DISTINCT aggregates on the
// device over its input concatenated into one batch: with every
// aggregate finished there, its groups stay there
// (device_aggregate_distinct.go); else, for COUNT(DISTINCT x) only, each
// aggregate's distinct (keys, x) rows grouped by the keys count each
// group's values, the other aggregates group the input as usual, and only
// the groups come to the host, where folding every tuple was most of
// TPC-H Q16 at SF10 (1.2M tuples; docs/benchlog/2026-11-26-tpch-gpu.md).
// done is false when the input does not fit one batch or the aggregates
// are neither: ahead then holds the batches read, for the general path.
func (h *DeviceHashAggregate) countDistinctGroups(ctx context.Context, kinds []gpuexec.GroupAgg, plain []int,
	plainKinds []gpuexec.GroupAgg, distinct []int) (out *coldata.Batch, ahead []*gpuexec.DeviceBatch, done bool, err error) {
	for {
		b, err := h.nextInput(ctx)
		if err != nil {
			releaseBatches(ahead)
			return nil, nil, false, err
		}
		if b == nil {
			break
		}
		ahead = append(ahead, b)
	}
	var in *gpuexec.DeviceBatch
	switch len(ahead) {
	case 0:
		return nil, nil, false, nil
	case 1:
		in = ahead[0]
	default:
		c, cerr := h.RT.Dev.Concatenate(ahead)
		if cerr != nil {
			return nil, ahead, false, nil
		}
		releaseBatches(ahead)
		in = c
	}
	defer in.Release()
	// Under ORDER BY <plain aggregate> LIMIT with the groups going to the
	// host, the COUNT path below cuts them to the top ones on the device
	// (ClickBench Q23: 10 of 220,000 groups with their text MINs).
	cut := h.onDevice == nil && h.onlyDistinctCounts(distinct) && h.plainTop(plain, kinds) != nil
	if dp := h.planDistinctOnDevice(kinds); dp != nil && !cut {
		dev, err := h.groupDistinctOnDevice(ctx, in, dp)
		switch {
		case err == nil && h.onDevice != nil:
			h.onDevice.out = dev
			return nil, nil, true, nil
		case err == nil:
			defer dev.Release()
			out, err := h.RT.Dev.Download(ctx, dev)
			return out, nil, true, err
		case !errors.Is(err, gpuexec.ErrGroupsOnHost):
			return nil, nil, false, err
		}
	}
	if !h.onlyDistinctCounts(distinct) {
		// The general path folds the tuples on the host.
		r, err := in.Retain()
		if err != nil {
			return nil, nil, false, err
		}
		return nil, []*gpuexec.DeviceBatch{r}, false, nil
	}
	launches := 0
	defer func() {
		if h.Stats != nil {
			h.Stats.Launches.Add(int64(launches))
		}
	}()
	nk := len(h.Keys)
	counts := make([]*gpuexec.GroupPartial, len(distinct))
	keys := make([]int, nk)
	for i := range keys {
		keys[i] = i
	}
	for di, a := range distinct {
		cols := append(append(make([]int, 0, nk+1), h.Keys...), kinds[a].Arg)
		rows, err := h.RT.Dev.DistinctRows(ctx, in, cols)
		if err != nil {
			return nil, nil, false, err
		}
		p, err := h.RT.Dev.GroupBy(ctx, rows, keys, []gpuexec.GroupAgg{{Kind: kinds[a].Kind, Arg: nk}})
		rows.Release()
		if err != nil {
			return nil, nil, false, err
		}
		launches += p.Launches + 4
		counts[di] = p
	}
	if len(plain) == 0 && len(distinct) == 1 {
		out, err = h.finishPartial(counts[0], kinds)
		return out, nil, true, err
	}
	// The groups of the plain aggregates (or of the first count) in order;
	// each count's groups found by key. Under ORDER BY COUNT(*) LIMIT k
	// only the k top groups of the plain aggregates come back, and only
	// they are looked up (ClickBench Q23: 10 of 220,000 groups, whose
	// states the host finished one by one).
	base := counts[0]
	if len(plain) > 0 {
		top := h.plainTop(plain, kinds)
		if base, err = h.RT.Dev.GroupByTop(ctx, in, h.Keys, plainKinds, top); err != nil {
			return nil, nil, false, err
		}
		h.noteTop(top, base)
		launches += base.Launches
	}
	n := base.Keys.Len
	index := make(map[string]int, n)
	var key []byte
	for g := 0; g < n; g++ {
		key = opspec.AppendRowKey(key[:0], base.Keys.Cols, g)
		index[string(key)] = g
	}
	at := make([][]int, len(distinct)) // [distinct][base group] -> its group in counts
	for di, p := range counts {
		at[di] = make([]int, n)
		found := 0
		for j := 0; j < p.Keys.Len && found < n; j++ {
			key = opspec.AppendRowKey(key[:0], p.Keys.Cols, j)
			if g, ok := index[string(key)]; ok {
				at[di][g] = j
				found++
			}
		}
		if found != n {
			return nil, nil, false, fmt.Errorf("internal error: %d of %d groups of the DISTINCT count missing", n-found, n)
		}
	}
	// Each aggregate's place among the plain ones (>= 0) or the distinct
	// counts (-1 - i).
	place := make([]int, len(h.Aggs))
	for i, a := range plain {
		place[a] = i
	}
	for i, a := range distinct {
		place[a] = -1 - i
	}
	out, err = h.finish(base.Keys.Cols, n, kinds, func(g, a int, m *mergedAgg) {
		if i := place[a]; i >= 0 {
			mergeAgg(m, kinds[a].Kind, &base.Aggs[i], g)
			return
		}
		i := -1 - place[a]
		m.count = counts[i].Aggs[0].Count[at[i][g]]
	})
	return out, nil, true, err
}

// plainTop is the top-groups cut for the plain aggregates' grouping when
// the COUNT that orders the groups is one of them (nil otherwise).
func (h *DeviceHashAggregate) plainTop(plain []int, kinds []gpuexec.GroupAgg) *gpuexec.GroupTop {
	t := h.deviceTop(true, kinds)
	if t == nil || t.Agg < 0 || t.Key {
		return t
	}
	i := slices.Index(plain, t.Agg)
	if i < 0 {
		return nil
	}
	t.Agg = i
	return t
}

func releaseBatches(bs []*gpuexec.DeviceBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// onlyDistinctCounts reports whether every DISTINCT aggregate is a COUNT.
func (h *DeviceHashAggregate) onlyDistinctCounts(distinct []int) bool {
	for _, a := range distinct {
		if h.Aggs[a].Kind != opspec.AggCount {
			return false
		}
	}
	return true
}

// countDistinctOne finishes aggregates without GROUP BY over one device
// batch b (released here): plain aggregates by one reduction, each
// COUNT(DISTINCT x) by gpuexec.CountDistinct.
func (h *DeviceHashAggregate) countDistinctOne(ctx context.Context, b *gpuexec.DeviceBatch, kinds []gpuexec.GroupAgg,
	plain []int, plainKinds []gpuexec.GroupAgg, distinct []int) (*coldata.Batch, error) {
	defer b.Release()
	states := make([]mergedAgg, len(h.Aggs))
	launches := 0
	if len(plain) > 0 && b.Len > 0 {
		p, err := h.RT.Dev.GroupBy(ctx, b, nil, plainKinds)
		if err != nil {
			return nil, err
		}
		launches += p.Launches
		for pi, a := range plain {
			mergeAgg(&states[a], kinds[a].Kind, &p.Aggs[pi], 0)
		}
	}
	for _, a := range distinct {
		n, l, err := h.RT.Dev.CountDistinct(ctx, b, kinds[a].Arg)
		if err != nil {
			return nil, err
		}
		launches += l
		states[a].count = n
	}
	if h.Stats != nil {
		h.Stats.Launches.Add(int64(launches))
	}
	return h.finish([]*coldata.Vec{}, 1, kinds, func(_, a int, m *mergedAgg) { *m = states[a] })
}

// foldDistinct folds one distinct non-NULL value, row j of x, into an
// aggregate's state.
func foldDistinct(m *mergedAgg, k gpuexec.GroupAggKind, x *coldata.Vec, j int) {
	first := m.count == 0
	m.count++
	switch k {
	case gpuexec.GroupSumInt:
		v := int64(0)
		if x.Type == coldata.Bool {
			if x.Bool(j) {
				v = 1
			}
		} else {
			v = x.Int(j)
		}
		var carry uint64
		m.lo, carry = bits.Add64(m.lo, uint64(v), 0)
		m.hi += v>>63 + int64(carry) // sign-extend v to 128 bits
	case gpuexec.GroupSumFloat:
		m.f += x.Float(j)
	case gpuexec.GroupMinInt, gpuexec.GroupMaxInt:
		if v := x.Int(j); first || (k == gpuexec.GroupMinInt && v < int64(m.lo)) || (k == gpuexec.GroupMaxInt && v > int64(m.lo)) {
			m.lo = uint64(v)
		}
	case gpuexec.GroupMinBool, gpuexec.GroupMaxBool:
		v := uint64(0)
		if x.Bool(j) {
			v = 1
		}
		if first || (k == gpuexec.GroupMinBool && v < m.lo) || (k == gpuexec.GroupMaxBool && v > m.lo) {
			m.lo = v
		}
	case gpuexec.GroupMinFloat, gpuexec.GroupMaxFloat:
		if v := x.Float(j); first || (k == gpuexec.GroupMinFloat && v < m.f) || (k == gpuexec.GroupMaxFloat && v > m.f) {
			m.f = v
		}
	case gpuexec.GroupMinString, gpuexec.GroupMaxString:
		v := x.Str(j)
		c := bytes.Compare(v, m.s)
		if first || (k == gpuexec.GroupMinString && c < 0) || (k == gpuexec.GroupMaxString && c > 0) {
			m.s = append(m.s[:0], v...)
		}
	case gpuexec.GroupSumDec:
		addDec(m, x.Dec(j))
	case gpuexec.GroupMinDec, gpuexec.GroupMaxDec:
		foldDecExtreme(m, k, x.Dec(j), first)
	}
}

// addDec adds v to a DECIMAL sum kept as top:hi:lo (192-bit two's
// complement).
func addDec(m *mergedAgg, v decimal.Int128) {
	add192(m, v.Lo, uint64(v.Hi), uint64(v.Hi>>63))
}

// add192 adds the 192-bit value t:h:l to m's DECIMAL sum.
func add192(m *mergedAgg, l, h, t uint64) {
	var c uint64
	m.lo, c = bits.Add64(m.lo, l, 0)
	var hi uint64
	hi, c = bits.Add64(uint64(m.hi), h, c)
	m.hi = int64(hi)
	top, _ := bits.Add64(uint64(m.top), t, c)
	m.top = int64(top)
}

// foldDecExtreme keeps the smaller (GroupMinDec) or larger DECIMAL.
func foldDecExtreme(m *mergedAgg, k gpuexec.GroupAggKind, v decimal.Int128, first bool) {
	c := v.Cmp(m.d)
	if first || (k == gpuexec.GroupMinDec && c < 0) || (k == gpuexec.GroupMaxDec && c > 0) {
		m.d = v
	}
}

// finishPartial turns one batch's groups into the output, column by
// column straight from the device states.
func (h *DeviceHashAggregate) finishPartial(p *gpuexec.GroupPartial, kinds []gpuexec.GroupAgg) (*coldata.Batch, error) {
	if err := h.checkMemory(p.Keys); err != nil {
		return nil, err
	}
	n := p.Keys.Len
	cols := append(make([]*coldata.Vec, 0, len(p.Keys.Cols)+len(h.Aggs)), p.Keys.Cols...)
	for a, spec := range h.Aggs {
		st := &p.Aggs[a]
		k := kinds[a].Kind
		if v := directColumn(spec, k, st, n); v != nil {
			cols = append(cols, v)
			continue
		}
		b := coldata.NewBuilder(spec.Type, n)
		for g := 0; g < n; g++ {
			c := st.Count[g]
			switch {
			case spec.Kind == opspec.AggCountStar || spec.Kind == opspec.AggCount:
				b.AppendInt(c)
			case c == 0:
				b.AppendNull()
			case k == gpuexec.GroupMinString || k == gpuexec.GroupMaxString:
				b.AppendBytes(st.Str.Str(g))
			case k == gpuexec.GroupMinDec || k == gpuexec.GroupMaxDec:
				b.AppendDec(st.Dec.Dec(g))
			case k == gpuexec.GroupVariance:
				appendVariance(b, spec.Kind, c, st.M2[g])
			case k == gpuexec.GroupQuantileCont:
				b.AppendFloat(st.Float[g])
			case k == gpuexec.GroupQuantileDisc:
				b.AppendFrom(st.Vals, g)
			case k == gpuexec.GroupSumFloat || k == gpuexec.GroupMinFloat || k == gpuexec.GroupMaxFloat:
				if spec.Kind == opspec.AggAvg {
					b.AppendFloat(st.Float[g] / float64(c))
				} else {
					b.AppendFloat(st.Float[g])
				}
			default:
				m := mergedAgg{count: c, lo: st.Lo[g]}
				if st.Hi != nil {
					m.hi = st.Hi[g]
				}
				if st.Top != nil {
					m.top = st.Top[g]
				}
				if err := finishAgg(b, spec, k, &m); err != nil {
					return nil, err
				}
			}
		}
		cols = append(cols, b.Finish())
	}
	return &coldata.Batch{Cols: cols, Len: n}, nil
}

// directColumn builds the output column of the commonest aggregates
// straight from the device's state arrays, without a builder's per-value
// calls (10M groups of COUNT, SUM and AVG took hundreds of milliseconds
// that way); nil for the others, and for an integer sum that needs the
// overflow error.
func directColumn(spec opspec.AggSpec, k gpuexec.GroupAggKind, st *gpuexec.AggPartial, n int) *coldata.Vec {
	if spec.Kind == opspec.AggCountStar || spec.Kind == opspec.AggCount {
		return &coldata.Vec{Type: coldata.Int64, Len: n, Ints: st.Count[:n:n]}
	}
	var nulls []byte
	for g := 0; g < n; g++ {
		if st.Count[g] == 0 {
			if nulls == nil {
				nulls = coldata.NewValidBitmap(n)
			}
			coldata.ClearBit(nulls, g)
		}
	}
	switch {
	case k == gpuexec.GroupSumInt && spec.Kind == opspec.AggSum && spec.Type == coldata.Int64:
		out := make([]int64, n)
		for g := 0; g < n; g++ {
			lo, hi := st.Lo[g], st.Hi[g]
			if !((hi == 0 && lo < 1<<63) || (hi == -1 && lo >= 1<<63)) {
				return nil // the builder path raises the error
			}
			out[g] = int64(lo)
		}
		return &coldata.Vec{Type: coldata.Int64, Len: n, Ints: out, Nulls: nulls}
	case k == gpuexec.GroupSumInt && spec.Kind == opspec.AggAvg:
		out := make([]float64, n)
		for g := 0; g < n; g++ {
			if c := st.Count[g]; c > 0 {
				lo, hi := st.Lo[g], st.Hi[g]
				fits := (hi == 0 && lo < 1<<63) || (hi == -1 && lo >= 1<<63)
				out[g] = int128Float(hi, lo, fits) / float64(c)
			}
		}
		return &coldata.Vec{Type: coldata.Float64, Len: n, Floats: out, Nulls: nulls}
	case (k == gpuexec.GroupSumFloat || k == gpuexec.GroupMinFloat || k == gpuexec.GroupMaxFloat) && spec.Type == coldata.Float64:
		out := make([]float64, n)
		copy(out, st.Float[:n])
		if spec.Kind == opspec.AggAvg {
			for g := 0; g < n; g++ {
				if c := st.Count[g]; c > 0 {
					out[g] /= float64(c)
				}
			}
		}
		return &coldata.Vec{Type: coldata.Float64, Len: n, Floats: out, Nulls: nulls}
	case (k == gpuexec.GroupMinInt || k == gpuexec.GroupMaxInt) && spec.Type.Physical() == coldata.Int64:
		out := make([]int64, n)
		for g := 0; g < n; g++ {
			out[g] = int64(st.Lo[g])
		}
		return &coldata.Vec{Type: spec.Type, Len: n, Ints: out, Nulls: nulls}
	}
	return nil
}

// finish assembles the output: the key columns, then each aggregate's
// final value per group, state(g, a, m) filling group g's state of
// aggregate a.
func (h *DeviceHashAggregate) finish(keys []*coldata.Vec, n int, kinds []gpuexec.GroupAgg, state func(g, a int, m *mergedAgg)) (*coldata.Batch, error) {
	cols := append(make([]*coldata.Vec, 0, len(keys)+len(h.Aggs)), keys...)
	for a, spec := range h.Aggs {
		b := coldata.NewBuilder(spec.Type, n)
		for g := 0; g < n; g++ {
			var m mergedAgg
			state(g, a, &m)
			if err := finishAgg(b, spec, kinds[a].Kind, &m); err != nil {
				return nil, err
			}
		}
		cols = append(cols, b.Finish())
	}
	return &coldata.Batch{Cols: cols, Len: n}, nil
}

// checkMemory applies MemoryLimit to one batch's groups, estimated as the
// CPU's HashAggregate estimates its state.
func (h *DeviceHashAggregate) checkMemory(keys *coldata.Batch) error {
	if h.MemoryLimit == 0 {
		return nil
	}
	est := uint64(keys.Len) * uint64(64+64*len(h.Aggs)+10*len(keys.Cols))
	for _, c := range keys.Cols {
		if c.Type == coldata.String && c.Len > 0 && !c.Const {
			est += uint64(c.Offsets[c.Len] - c.Offsets[0])
		}
	}
	if est > h.MemoryLimit {
		return h.memoryError(keys.Len)
	}
	return nil
}

func (h *DeviceHashAggregate) memoryError(groups int) error {
	return memory.StateLimit(groupByState, h.MemoryLimit, groups, "groups")
}

// mergeAgg folds group g of a batch's partial into the merged state.
func mergeAgg(m *mergedAgg, k gpuexec.GroupAggKind, p *gpuexec.AggPartial, g int) {
	c := p.Count[g]
	if c == 0 {
		return
	}
	first := m.count == 0
	m.count += c
	switch k {
	case gpuexec.GroupSumInt:
		var carry uint64
		m.lo, carry = bits.Add64(m.lo, p.Lo[g], 0)
		m.hi += p.Hi[g] + int64(carry)
	case gpuexec.GroupSumFloat:
		m.f += p.Float[g]
	case gpuexec.GroupMinInt, gpuexec.GroupMinBool:
		if x := p.Lo[g]; first || int64(x) < int64(m.lo) {
			m.lo = x
		}
	case gpuexec.GroupMaxInt, gpuexec.GroupMaxBool:
		if x := p.Lo[g]; first || int64(x) > int64(m.lo) {
			m.lo = x
		}
	case gpuexec.GroupMinFloat:
		if x := p.Float[g]; first || x < m.f {
			m.f = x
		}
	case gpuexec.GroupMaxFloat:
		if x := p.Float[g]; first || x > m.f {
			m.f = x
		}
	case gpuexec.GroupMinString, gpuexec.GroupMaxString:
		x := p.Str.Str(g)
		c := bytes.Compare(x, m.s)
		if first || (k == gpuexec.GroupMinString && c < 0) || (k == gpuexec.GroupMaxString && c > 0) {
			m.s = append(m.s[:0], x...)
		}
	case gpuexec.GroupSumDec:
		add192(m, p.Lo[g], uint64(p.Hi[g]), uint64(p.Top[g]))
	case gpuexec.GroupMinDec, gpuexec.GroupMaxDec:
		foldDecExtreme(m, k, p.Dec.Dec(g), first)
	case gpuexec.GroupVariance:
		mergeMoments(m, c, p.Mean[g], p.M2[g], first)
	}
}

// mergeMoments merges c values of mean and sum of squared deviations m2
// into m, whose count already includes them (first: m held none): the
// pairwise update of Chan, Golub and LeVeque, as the device merges its
// partials, exact in exact arithmetic whatever the split.
func mergeMoments(m *mergedAgg, c int64, mean, m2 float64, first bool) {
	if first {
		m.mean, m.m2 = mean, m2
		return
	}
	nb := float64(c)
	na := float64(m.count - c)
	n := float64(m.count)
	delta := mean - m.mean
	m.mean += delta * (nb / n)
	m.m2 += m2 + delta*delta*(na*nb/n)
}

// appendVariance appends the variance or standard deviation kind of n
// values with sum of squared deviations m2, as HashAggregate finishes
// them: NULL for no values, and for a sample form with fewer than two.
func appendVariance(b *coldata.Builder, kind opspec.AggKind, n int64, m2 float64) {
	samp := kind == opspec.AggVarSamp || kind == opspec.AggStddevSamp
	if n == 0 || (samp && n < 2) {
		b.AppendNull()
		return
	}
	div := float64(n)
	if samp {
		div--
	}
	r := m2 / div
	if kind == opspec.AggStddevPop || kind == opspec.AggStddevSamp {
		r = math.Sqrt(r)
	}
	b.AppendFloat(r)
}

// finishAgg appends an aggregate's final value.
func finishAgg(b *coldata.Builder, spec opspec.AggSpec, k gpuexec.GroupAggKind, m *mergedAgg) error {
	switch spec.Kind {
	case opspec.AggCountStar, opspec.AggCount:
		b.AppendInt(m.count)
		return nil
	}
	if k == gpuexec.GroupVariance {
		appendVariance(b, spec.Kind, m.count, m.m2)
		return nil
	}
	if m.count == 0 {
		b.AppendNull()
		return nil
	}
	switch k {
	case gpuexec.GroupSumInt:
		fits := (m.hi == 0 && m.lo < 1<<63) || (m.hi == -1 && m.lo >= 1<<63)
		if spec.Kind == opspec.AggAvg {
			b.AppendFloat(int128Float(m.hi, m.lo, fits) / float64(m.count))
			return nil
		}
		if !fits {
			return fmt.Errorf("BIGINT value is out of range in SUM")
		}
		if spec.Type == coldata.Float64 {
			b.AppendFloat(float64(int64(m.lo)))
		} else {
			b.AppendInt(int64(m.lo))
		}
	case gpuexec.GroupSumFloat:
		if spec.Kind == opspec.AggAvg {
			b.AppendFloat(m.f / float64(m.count))
		} else {
			b.AppendFloat(m.f)
		}
	case gpuexec.GroupMinInt, gpuexec.GroupMaxInt:
		b.AppendInt(int64(m.lo))
	case gpuexec.GroupMinBool, gpuexec.GroupMaxBool:
		b.AppendBool(m.lo != 0)
	case gpuexec.GroupMinFloat, gpuexec.GroupMaxFloat:
		b.AppendFloat(m.f)
	case gpuexec.GroupMinString, gpuexec.GroupMaxString:
		b.AppendBytes(m.s)
	case gpuexec.GroupMinDec, gpuexec.GroupMaxDec:
		b.AppendDec(m.d)
	case gpuexec.GroupSumDec:
		// The CPU's HashAggregate rules: the sum must fit 38 digits; AVG
		// divides at its own scale.
		sum := decimal.Int128{Lo: m.lo, Hi: m.hi}
		if m.top != m.hi>>63 || !sum.Fits(decimal.MaxPrecision) {
			name := "SUM"
			if spec.Kind == opspec.AggAvg {
				name = "AVG"
			}
			return fmt.Errorf("%w in %s", expr.ErrDecimalRange, name)
		}
		if spec.Kind == opspec.AggAvg {
			avg, err := decimalAvg(sum, m.count, spec.Arg.Type().Scale(), spec.Type)
			if err != nil {
				return err
			}
			b.AppendDec(avg)
			return nil
		}
		b.AppendDec(sum)
	default:
		return fmt.Errorf("internal error: device aggregate kind %d", k)
	}
	return nil
}

// int128Float converts the two's-complement value hi:lo to float64.
func int128Float(hi int64, lo uint64, fitsInt64 bool) float64 {
	if fitsInt64 {
		return float64(int64(lo))
	}
	v := new(big.Int).Lsh(big.NewInt(hi), 64)
	v.Add(v, new(big.Int).SetUint64(lo))
	f, _ := new(big.Float).SetInt(v).Float64()
	return f
}

// AggFewRows: a batch over the concatenation limit with at most one group
// for every AggFewRows rows is grouped on its own and its groups merged on
// the host. The merge costs about 1 µs a group (BenchmarkDeviceAggregateMerge
// on a shared development machine), partitioning and regrouping on the
// device about 1 ns a row (51 ms for TPC-H Q1's 60M rows at SF10, whose 4
// groups take no time to merge), so at this bound the two cost about the
// same and below it the merge wins. A variable so that benchmarks can
// compare the partitioned path (0: never) and tests use small batches.
var AggFewRows = 1024

// AggProbeRows is how many of a large first batch's rows show whether
// batches have few groups (AggFewRows): grouped alone, those rows cost
// little to group again by partition when they have many. A variable so
// that tests can split small batches.
var AggProbeRows = 1 << 21

// groupFew groups batches one at a time while each has at most one group
// for every AggFewRows of its rows, appending their partials to parts, and
// returns how many it grouped. Each is grouped once: the device brings
// back at most one group past that bound, so a batch with many shows it
// at the cost of one grouping and few of its groups downloaded; it and
// the batches after it are left to the caller (to group by partition). The last batch is left too: with no batch after it there
// is nothing to decide. split says the first two are the pieces of one
// batch of firstRows rows, each allowed that batch's groups: the first
// piece's groups are at most the batch's, so more than its bound says
// the batch has many.
func (h *DeviceHashAggregate) groupFew(ctx context.Context, batches []*gpuexec.DeviceBatch, split bool, firstRows int,
	kinds []gpuexec.GroupAgg, parts *[]*gpuexec.GroupPartial) (int, error) {
	if AggFewRows <= 0 {
		return 0, nil
	}
	for i, b := range batches[:len(batches)-1] {
		most := b.Len / AggFewRows
		if split && i < 2 {
			most = firstRows / AggFewRows
		}
		p, err := h.groupByTop(ctx, b, kinds, &gpuexec.GroupTop{Agg: -1, K: most + 1})
		if err != nil {
			return i, err
		}
		h.addLaunches(p.Launches)
		if p.Keys.Len > most {
			return i, nil
		}
		*parts = append(*parts, p)
	}
	return len(batches) - 1, nil
}

// errPartitionTooLarge says a partition's rows could not be one batch
// (one key's rows hold too many characters): the caller groups otherwise.
var errPartitionTooLarge = errors.New("a partition's rows cannot be one device batch")

// partitionsFor is the number of partitions that brings bytes of batches
// to half the concatenation limit each, evenly spread.
func partitionsFor(bytes, limit uint64) int {
	p := 2
	for p < gpuexec.MaxPartitions && bytes/uint64(p) > limit/2 {
		p *= 2
	}
	return p
}

// groupPartitioned groups batches too large to concatenate: each batch's
// rows are reordered by the hash partition of their keys on the device,
// and each partition's rows from every batch are concatenated and grouped
// at once, so that the groups are final and no two partitions share one.
// Each group's first row in the input (a MIN over the row numbers the
// partitioning adds) puts the groups back in first-appearance order; with
// final set, a Top cuts every partition to its K groups and the host
// keeps the K best of those, ties broken by first appearance, as the cut
// over all groups at once would.
func (h *DeviceHashAggregate) groupPartitioned(ctx context.Context, batches []*gpuexec.DeviceBatch, bytes, limit uint64,
	kinds []gpuexec.GroupAgg, final bool) (*gpuexec.GroupPartial, error) {
	dev := h.RT.Dev
	nparts := partitionsFor(bytes, limit)
	rowCol := len(batches[0].Cols)
	aggs := append(slices.Clone(kinds), gpuexec.GroupAgg{Kind: gpuexec.GroupMinInt, Arg: rowCol})
	top := h.deviceTop(final, kinds)
	var split []*gpuexec.PartitionedRows
	defer func() {
		for _, r := range split {
			r.Release()
		}
	}()
	var base int64
	for _, b := range batches {
		if b.Len > 0 {
			r, err := h.partitionRows(ctx, b, nparts, base)
			if err != nil {
				return nil, err
			}
			split = append(split, r)
			h.addLaunches(r.Launches)
		}
		base += int64(b.Len)
	}
	if h.Stats != nil {
		h.Stats.HashPartitions.Add(int64(nparts))
	}
	var outs []*gpuexec.GroupPartial
	for p := 0; p < nparts; p++ {
		var pieces []*gpuexec.DeviceBatch
		for _, r := range split {
			if r.Bounds[p+1] > r.Bounds[p] {
				v, err := r.Part(p)
				if err != nil {
					releaseDeviceBatches(pieces)
					return nil, err
				}
				pieces = append(pieces, v)
			}
		}
		if len(pieces) == 0 {
			continue
		}
		in := pieces[0]
		if len(pieces) > 1 {
			c, err := dev.Concatenate(pieces)
			if err != nil {
				releaseDeviceBatches(pieces)
				return nil, fmt.Errorf("%w: %v", errPartitionTooLarge, err)
			}
			releaseDeviceBatches(pieces)
			pieces = []*gpuexec.DeviceBatch{c}
			in = c
		}
		gp, err := h.groupByTop(ctx, in, aggs, top)
		releaseDeviceBatches(pieces)
		if err != nil {
			return nil, err
		}
		h.addLaunches(gp.Launches)
		outs = append(outs, gp)
	}
	if len(outs) == 0 { // no rows: cannot happen over batches this large
		return nil, errPartitionTooLarge
	}
	out := combinePartitions(outs, aggs, top)
	h.noteTop(top, out)
	return out, nil
}

// groupByTop groups b by the keys on the device (or GroupOn's twin).
func (h *DeviceHashAggregate) groupByTop(ctx context.Context, b *gpuexec.DeviceBatch, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
	if h.GroupOn != nil {
		return h.GroupOn(ctx, h.RT.Dev, b, h.Keys, aggs, top)
	}
	return h.RT.Dev.GroupByTop(ctx, b, h.Keys, aggs, top)
}

// groupBy groups b by keys on the device (or GroupOn's twin, uncut).
func (h *DeviceHashAggregate) groupBy(ctx context.Context, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg) (*gpuexec.GroupPartial, error) {
	if h.GroupOn != nil {
		return h.GroupOn(ctx, h.RT.Dev, b, keys, aggs, nil)
	}
	return h.RT.Dev.GroupBy(ctx, b, keys, aggs)
}

// partitionRows reorders b's rows by key partition on the device (or
// PartitionOn's twin).
func (h *DeviceHashAggregate) partitionRows(ctx context.Context, b *gpuexec.DeviceBatch, parts int, base int64) (*gpuexec.PartitionedRows, error) {
	if h.PartitionOn != nil {
		return h.PartitionOn(ctx, h.RT.Dev, b, h.Keys, parts, base)
	}
	return h.RT.Dev.PartitionRows(ctx, b, h.Keys, parts, base)
}

// deviceTop is the device's form of h.Top for a grouping whose groups are
// final (nil when they are not, or there is no Top or no key).
func (h *DeviceHashAggregate) deviceTop(final bool, kinds []gpuexec.GroupAgg) *gpuexec.GroupTop {
	if !final || len(h.Keys) == 0 {
		return nil
	}
	return DeviceTop(h.Top, h.KeyTypes, h.Aggs, kinds)
}

// DeviceTop is the device's form of top over a grouping by keys of
// keyTypes with aggregates aggs (on the device, kinds): nil where there is
// no cut or the device cannot order by the term (a DECIMAL's AVG, a
// string, a COUNT(DISTINCT)).
func DeviceTop(t *opspec.TopGroups, keyTypes []coldata.Type, aggs []opspec.AggSpec, kinds []gpuexec.GroupAgg) *gpuexec.GroupTop {
	if t == nil || t.Limit < 1 {
		return nil
	}
	top := &gpuexec.GroupTop{Agg: t.Agg, Key: t.Key, Desc: t.Desc, NullsFirst: t.NullsFirst(), Ties: t.Ties, K: t.Limit}
	switch {
	case t.Key:
		if t.Agg < 0 || t.Agg >= len(keyTypes) || !gpuexec.TopKeyOrderable(keyTypes[t.Agg]) {
			return nil
		}
	case t.Agg >= 0:
		if t.Agg >= len(aggs) || t.Agg >= len(kinds) {
			return nil
		}
		spec, k := aggs[t.Agg], kinds[t.Agg].Kind
		top.Avg = spec.Kind == opspec.AggAvg
		// An integer SUM typed DOUBLE orders as its rounded values do.
		sumAsFloat := k == gpuexec.GroupSumInt && spec.Kind == opspec.AggSum && spec.Type != coldata.Int64
		if spec.Distinct || sumAsFloat || !gpuexec.TopOrderable(k, top.Avg) {
			return nil
		}
		if top.Avg && k == gpuexec.GroupSumDec {
			// decimalAvg rescales the sum to the result's scale first.
			top.AvgScale = spec.Type.Scale() - spec.Arg.Type().Scale()
		}
	}
	return top
}

// noteTop counts the groups a cut by top kept in p (EXPLAIN ANALYZE).
func (h *DeviceHashAggregate) noteTop(top *gpuexec.GroupTop, p *gpuexec.GroupPartial) {
	if top != nil && h.Stats != nil {
		h.Stats.TopGroups.Store(int64(p.Keys.Len) + 1)
	}
}

func (h *DeviceHashAggregate) addLaunches(n int) {
	if h.Stats != nil {
		h.Stats.Launches.Add(int64(n))
	}
}

// groupRef is group g of partition part, first seen at input row first,
// with its ordering word under a Top.
type groupRef struct {
	part, g int
	first   int64
	word    uint64
}

// combinePartitions joins the partitions' groups (each holding the
// aggregates kinds, whose last is the MIN of its rows' numbers) into one
// partial in first-appearance order, keeping only what top keeps when top
// is set: each partition was cut on its own, and the best K of their
// survivors by (ordering word, first row), with the K-th's ties when top
// keeps them (gpuexec.TopKeep), are those of a cut over every group at
// once. A partition without words (a NaN) leaves every group.
func combinePartitions(outs []*gpuexec.GroupPartial, kinds []gpuexec.GroupAgg, top *gpuexec.GroupTop) *gpuexec.GroupPartial {
	nagg := len(kinds) - 1
	var refs []groupRef
	ordered := top != nil && (top.Agg >= 0 || top.Key)
	for pi, o := range outs {
		firsts := o.Aggs[nagg].Lo
		var words []uint64
		if ordered {
			w, ok := gpuexec.TopWords(top, kinds, o)
			if !ok {
				top, ordered = nil, false
			}
			words = w
		}
		for g := 0; g < o.Keys.Len; g++ {
			r := groupRef{part: pi, g: g, first: int64(firsts[g])}
			if words != nil {
				r.word = words[g]
			}
			refs = append(refs, r)
		}
	}
	if top != nil && len(refs) > top.K {
		slices.SortFunc(refs, func(a, b groupRef) int {
			return cmp.Or(cmp.Compare(a.word, b.word), cmp.Compare(a.first, b.first))
		})
		keep := top.K
		if ordered {
			sorted := make([]uint64, len(refs))
			for i, r := range refs {
				sorted[i] = r.word
			}
			keep = gpuexec.TopKeep(top, sorted)
		}
		refs = refs[:keep]
	}
	slices.SortFunc(refs, func(a, b groupRef) int { return cmp.Compare(a.first, b.first) })
	return takeGroups(outs, refs, nagg)
}

// takeGroups builds a partial of the groups refs name, in that order, with
// the first nagg aggregates of the partials.
func takeGroups(outs []*gpuexec.GroupPartial, refs []groupRef, nagg int) *gpuexec.GroupPartial {
	res := &gpuexec.GroupPartial{Aggs: make([]gpuexec.AggPartial, nagg)}
	nkeys := len(outs[0].Keys.Cols)
	keys := make([]*coldata.Vec, nkeys)
	for k := range keys {
		b := coldata.NewBuilder(outs[0].Keys.Cols[k].Type, len(refs))
		for _, r := range refs {
			b.AppendFrom(outs[r.part].Keys.Cols[k], r.g)
		}
		keys[k] = b.Finish()
	}
	res.Keys = &coldata.Batch{Cols: keys, Len: len(refs)}
	for a := range res.Aggs {
		dst := &res.Aggs[a]
		dst.Count = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []int64 { return p.Count })
		dst.Lo = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []uint64 { return p.Lo })
		dst.Hi = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []int64 { return p.Hi })
		dst.Top = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []int64 { return p.Top })
		dst.Float = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []float64 { return p.Float })
		dst.Mean = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []float64 { return p.Mean })
		dst.M2 = takeField(outs, refs, a, func(p *gpuexec.AggPartial) []float64 { return p.M2 })
		for _, f := range []struct {
			dst **coldata.Vec
			get func(*gpuexec.AggPartial) *coldata.Vec
		}{
			{&dst.Str, func(p *gpuexec.AggPartial) *coldata.Vec { return p.Str }},
			{&dst.Dec, func(p *gpuexec.AggPartial) *coldata.Vec { return p.Dec }},
			{&dst.Vals, func(p *gpuexec.AggPartial) *coldata.Vec { return p.Vals }},
		} {
			var typ *coldata.Vec
			for _, o := range outs {
				if v := f.get(&o.Aggs[a]); v != nil {
					typ = v
					break
				}
			}
			if typ == nil {
				continue
			}
			b := coldata.NewBuilder(typ.Type, len(refs))
			for _, r := range refs {
				b.AppendFrom(f.get(&outs[r.part].Aggs[a]), r.g)
			}
			*f.dst = b.Finish()
		}
	}
	return res
}

// takeField gathers aggregate a's state array get of the groups refs
// name; nil when no partial holds it (every partial with groups holds the
// same arrays).
func takeField[T any](outs []*gpuexec.GroupPartial, refs []groupRef, a int, get func(*gpuexec.AggPartial) []T) []T {
	held := false
	for _, o := range outs {
		held = held || get(&o.Aggs[a]) != nil
	}
	if !held {
		return nil
	}
	out := make([]T, len(refs))
	for i, r := range refs {
		out[i] = get(&outs[r.part].Aggs[a])[r.g]
	}
	return out
}
