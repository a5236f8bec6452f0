package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// GroupAggKind is an aggregate the device computes per group. AVG is a
// sum and a count; the caller divides.
type GroupAggKind int

// The values are the kernel's kind codes (kernels/hash.cu, GAgg).
const (
	GroupCountStar GroupAggKind = iota
	GroupCount
	GroupSumInt // BIGINT or BOOL argument: exact 128-bit sum
	GroupSumFloat
	GroupMinInt
	GroupMaxInt
	GroupMinFloat
	GroupMaxFloat
	GroupMinString
	GroupMaxString
	GroupMinBool
	GroupMaxBool
	// GroupSumDec is SUM (and AVG's sum) of a DECIMAL: an exact 192-bit
	// sum (AggPartial's Lo, Hi and Top words).
	GroupSumDec
	GroupMinDec
	GroupMaxDec
	// GroupVariance is the VAR/STDDEV family of a DOUBLE: per group the
	// count, mean and sum of squared deviations from it (AggPartial's
	// Count, Mean and M2), from which every variance and standard
	// deviation follows.
	GroupVariance
	// GroupQuantileCont and GroupQuantileDisc are MEDIAN and the
	// quantiles (GroupAgg's Quantile and Desc): the hash pass counts the
	// argument's values (AggPartial's Count) and a radix sort of the rows
	// by (group, value) gives the quantile (quantile.go): CONT of a DOUBLE
	// interpolated as the CPU does (AggPartial's Float), DISC the value
	// itself (AggPartial's Vals). They never reach the hash kernels.
	GroupQuantileCont
	GroupQuantileDisc
)

// varUnset is kernels/hash.cu's GSQL_VAR_UNSET: a GroupVariance shift not
// yet set.
const varUnset = 0x7ff4d1ce0000f00d

// GroupAgg is one aggregate of a GroupBy: its kind and argument column
// (ignored for COUNT(*)).
type GroupAgg struct {
	Kind GroupAggKind
	Arg  int
	// Quantile (in [0, 1]) and Desc (values ordered descending) apply to
	// the quantile kinds.
	Quantile float64
	Desc     bool
}

// GroupAggFor picks the device aggregate for a SQL aggregate ("count",
// "sum", "avg", "min", "max", "var" for any variance or standard
// deviation, "quantile_cont" or "quantile_disc") over an argument of type
// t, or reports that the device has none.
func GroupAggFor(name string, t coldata.Type) (GroupAggKind, bool) {
	switch name {
	case "count":
		return GroupCount, t != coldata.Null
	case "sum", "avg":
		switch t {
		case coldata.Int64, coldata.Bool:
			return GroupSumInt, true
		case coldata.Float64:
			return GroupSumFloat, true
		}
		if t.IsDecimal() {
			return GroupSumDec, true
		}
	case "var":
		// The binder casts the argument of every variance to DOUBLE.
		return GroupVariance, t == coldata.Float64
	case "quantile_cont":
		// Interpolated: the binder casts the argument to DOUBLE.
		return GroupQuantileCont, t == coldata.Float64
	case "quantile_disc":
		return GroupQuantileDisc, sortableType(t)
	case "min", "max":
		if t.IsDecimal() {
			if name == "max" {
				return GroupMaxDec, true
			}
			return GroupMinDec, true
		}
		k := map[coldata.Type]GroupAggKind{coldata.Int64: GroupMinInt, coldata.Float64: GroupMinFloat,
			coldata.String: GroupMinString, coldata.Bool: GroupMinBool}
		if base, ok := k[t.Physical()]; ok {
			if name == "max" {
				base++
			}
			return base, true
		}
	}
	return 0, false
}

// GroupPartial is one batch's groups, in order of first appearance: the
// key values and each aggregate's state.
type GroupPartial struct {
	Keys *coldata.Batch
	Aggs []AggPartial
	// Launches counts the kernels run.
	Launches int
}

// AggPartial is an aggregate's per-group state.
type AggPartial struct {
	Count []int64      // non-NULL values seen (rows, for COUNT(*))
	Lo    []uint64     // SUM: low word; MIN/MAX of BIGINT and BOOL: the value
	Hi    []int64      // SUM of BIGINT/BOOL: high word of the 128-bit sum
	Top   []int64      // SUM of DECIMAL: top word of the 192-bit sum (Lo, Hi below it)
	Float []float64    // SUM, MIN, MAX of DOUBLE
	Str   *coldata.Vec // MIN/MAX of VARCHAR (any value where Count is 0)
	Dec   *coldata.Vec // MIN/MAX of DECIMAL (likewise)
	// Mean and M2 are a GroupVariance's mean and sum of squared
	// deviations from it (0 where Count is 0).
	Mean []float64
	M2   []float64
	// Vals is a GroupQuantileDisc's value per group (any value where
	// Count is 0); a GroupQuantileCont's is in Float.
	Vals *coldata.Vec
}

// colDesc is a column's GCol record (kernels/hash.cu): type, validity
// bitmap, its bit offset, offsets, data.
func colDesc(v DeviceVec) [5]uint64 {
	return [5]uint64{uint64(v.Type.Physical()), uint64(v.Nulls), uint64(v.NullOffset), uint64(v.Offsets), uint64(v.Data)}
}

func groupableType(t coldata.Type) bool {
	t = t.Physical()
	return t == coldata.Bool || t == coldata.Int64 || t == coldata.Float64 || t == coldata.String || t == coldata.Decimal
}

// hashScratch tracks the buffers of one hash operation, released together.
type hashScratch struct {
	d    *Device
	bufs []*Buffer
}

func (s *hashScratch) alloc(size uint64) (*Buffer, error) {
	if size == 0 {
		size = 8
	}
	b, err := s.d.allocOn(size)
	if err != nil {
		return nil, err
	}
	s.bufs = append(s.bufs, b)
	return b, nil
}

// upload copies words to a new device buffer.
func (s *hashScratch) upload(words []uint64) (*Buffer, error) {
	b, err := s.alloc(uint64(8 * len(words)))
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return b, nil
	}
	raw := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(raw[8*i:], w)
	}
	return b, s.d.CopyToDevice(b.ptr, raw, nil)
}

func (s *hashScratch) release() {
	for _, b := range s.bufs {
		b.Release()
	}
	s.bufs = nil
}

// launchGrid runs a package kernel: grid-stride kernels get at most 32
// blocks per SM. Context thread only.
func (d *Device) launchGrid(name string, cfg LaunchConfig, args ...any) error {
	k, err := d.builtinOn(name)
	if err != nil {
		return err
	}
	vals := make([]uint64, len(args))
	sizes := make([]uint8, len(args))
	for i, a := range args {
		v, n, ok := kernelArg(a)
		if !ok {
			return invalidf("kernel %s: argument %d has unsupported type %T", name, i, a)
		}
		vals[i], sizes[i] = v, n
	}
	return d.launchOn(k, cfg, vals, sizes)
}

func (d *Device) strided(n int64) LaunchConfig {
	cfg := Grid1D(n, 256)
	if max := int(d.info.SMs) * 32; max > 0 && cfg.Grid.X > max {
		cfg.Grid.X = max
	}
	return cfg
}

// fillWords sets n 8-byte words at dst to v. Context thread only.
func (d *Device) fillWords(dst DevicePtr, v uint64, n int64) error {
	if n <= 0 {
		return nil
	}
	return d.launchGrid("gsql_fill_u64", d.strided(n), dst, v, n)
}

func nextPow2(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}

// groupTableStart is the first hash-table size tried: small enough to stay
// in L2 when there are few groups; a batch with more groups runs again
// with a table of twice its rows.
const groupTableStart = 1 << 16

// GroupBy aggregates one device batch by its key columns (none: one group
// over every row) on the device and brings the groups to the host: the
// keys and, per aggregate, its state, in order of each group's first row.
// NULL keys form a group; -0.0 and 0.0 are one key, as on the CPU. One
// host synchronisation reads the group count, then the results are
// downloaded.
func (d *Device) GroupBy(ctx context.Context, in *DeviceBatch, keys []int, aggs []GroupAgg) (*GroupPartial, error) {
	return d.GroupByTop(ctx, in, keys, aggs, nil)
}

// GroupByTop is GroupBy bringing to the host only the groups top selects,
// still in first-appearance order (all of them when top is nil or the
// groups are at most K): the groups are ranked on the device by their
// ordering words (GroupTop) and only the picked groups' numbers come
// back, so a GROUP BY with millions of groups under ORDER BY <aggregate or
// key> LIMIT moves a few rows instead of every group's keys and states.
// Sorting its result stably by the ordering term (and any further terms,
// under Ties) gives the LIMIT's rows, as over all groups.
func (d *Device) GroupByTop(ctx context.Context, in *DeviceBatch, keys []int, aggs []GroupAgg, top *GroupTop) (*GroupPartial, error) {
	if top != nil {
		if err := top.check(in, keys, aggs); err != nil {
			return nil, err
		}
		for _, a := range aggs {
			if isQuantile(a.Kind) {
				// The quantiles rank every used slot's rows; they run
				// over all groups.
				top = nil
				break
			}
		}
	}
	if err := d.own(in); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k < 0 || k >= len(in.Cols) || !groupableType(in.Cols[k].Type) {
			return nil, invalidf("group key column %d is not groupable", k)
		}
	}
	for _, a := range aggs {
		if a.Kind != GroupCountStar && (a.Arg < 0 || a.Arg >= len(in.Cols)) {
			return nil, invalidf("aggregate argument column %d out of range", a.Arg)
		}
		if isQuantile(a.Kind) {
			if t := in.Cols[a.Arg].Type; !sortableType(t) || (a.Kind == GroupQuantileCont && t != coldata.Float64) {
				return nil, invalidf("quantile of a column of type %s", t)
			}
			if !(a.Quantile >= 0 && a.Quantile <= 1) {
				return nil, invalidf("quantile fraction %v outside [0, 1]", a.Quantile)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *GroupPartial
	err := d.Do(func() error {
		var err error
		out, err = d.groupByOn(ctx, in, keys, aggs, top)
		return err
	})
	return out, err
}

// groupTableOn builds the hash table of in's groups by keys, folding aggs,
// and returns it with the number of groups: a first table small enough for
// L2, and when it overflows, one of twice the rows. Context thread only.
func (d *Device) groupTableOn(ctx context.Context, sc *hashScratch, in *DeviceBatch, keys []int, aggs []GroupAgg) (run *groupRun, groups int64, launches int, err error) {
	n := int64(in.Len)
	var words []uint64
	for _, k := range keys {
		c := colDesc(in.Cols[k])
		words = append(words, c[:]...)
	}
	keyDesc, err := sc.upload(words)
	if err != nil {
		return nil, 0, 0, err
	}
	rowhash, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, 0, 0, err
	}
	slotOf, err := sc.alloc(uint64(4 * n))
	if err != nil {
		return nil, 0, 0, err
	}
	cap := nextPow2(2 * n)
	if cap > groupTableStart {
		cap = groupTableStart
	}
	for {
		if run, err = d.groupPass(sc, in, keyDesc, int64(len(keys)), rowhash, slotOf, aggs, cap, n); err != nil {
			return nil, 0, launches, err
		}
		launches += 3 + 2*len(aggs)
		var c [12]byte
		if err := d.CopyToHost(c[:], run.counters.ptr, nil); err != nil {
			return nil, 0, launches, err
		}
		if binary.LittleEndian.Uint32(c[4:]) == 0 {
			run.slotOf = slotOf
			return run, int64(binary.LittleEndian.Uint32(c[8:])), launches, nil
		}
		if cap >= 2*n {
			return nil, 0, launches, fmt.Errorf("gpu: group table of %d slots overflowed with %d rows", cap, n)
		}
		if groupTrace != nil {
			groupTrace(fmt.Sprintf("table of %d slots overflowed", cap), 0)
		}
		cap = nextPow2(2 * n)
		if err := ctx.Err(); err != nil {
			return nil, 0, launches, err
		}
	}
}

// CountDistinct counts the distinct non-NULL values of column col of a
// batch on the device (COUNT(DISTINCT x) without GROUP BY): the groups of a
// hash table keyed by the column, less the NULL group. Only the count
// comes back: the values themselves never leave the device.
func (d *Device) CountDistinct(ctx context.Context, in *DeviceBatch, col int) (count int64, launches int, err error) {
	if err := d.own(in); err != nil {
		return 0, 0, err
	}
	if col < 0 || col >= len(in.Cols) || !groupableType(in.Cols[col].Type) {
		return 0, 0, invalidf("distinct column %d is not groupable", col)
	}
	if in.Len == 0 {
		return 0, 0, nil
	}
	err = d.Do(func() error {
		sc := &hashScratch{d: d}
		defer sc.release()
		_, groups, l, err := d.groupTableOn(ctx, sc, in, []int{col}, nil)
		launches += l
		if err != nil {
			return err
		}
		count = groups
		if in.Cols[col].Nulls == 0 {
			return nil
		}
		nulls, err := d.globalAggOn(ctx, in, []GroupAgg{{Kind: GroupCount, Arg: col}, {Kind: GroupCountStar}})
		if err != nil {
			return err
		}
		launches += nulls.Launches
		if nulls.Aggs[0].Count[0] < nulls.Aggs[1].Count[0] { // NULLs formed a group
			count--
		}
		return nil
	})
	return count, launches, err
}

// groupRun is one attempt's hash table: slots, each slot's first row, the
// counters (slots used, overflow flag, group count: uint32 each), the
// aggregate states and the list of used slots.
type groupRun struct {
	cap      int64
	slots    *Buffer
	first    *Buffer
	counters *Buffer
	states   [][4]*Buffer
	occ      *Buffer
	// slotOf is each row's slot (the quantiles find rows' groups by it).
	slotOf *Buffer
}

func (d *Device) groupByOn(ctx context.Context, in *DeviceBatch, keys []int, aggs []GroupAgg, top *GroupTop) (*GroupPartial, error) {
	n := int64(in.Len)
	res := &GroupPartial{Aggs: make([]AggPartial, len(aggs))}
	if n == 0 {
		kb := make([]*coldata.Vec, len(keys))
		for i, k := range keys {
			kb[i] = coldata.NewVec(in.Cols[k].Type, 0)
		}
		res.Keys = &coldata.Batch{Cols: kb}
		return res, nil
	}
	// Quantiles are counted by the hash pass and computed from a sort.
	counted, quantiles := tableAggs(aggs)
	sc := &hashScratch{d: d}
	defer sc.release()
	if len(keys) == 0 && globalAggFast {
		res, err := d.globalAggOn(ctx, in, counted)
		if err != nil || !quantiles {
			return res, err
		}
		if err := d.quantilesOn(ctx, sc, in, aggs, res, nil, nil, 0, 1); err != nil {
			return nil, err
		}
		return res, nil
	}
	phase := groupPhases()
	run, groups, launches, err := d.groupTableOn(ctx, sc, in, keys, counted)
	res.Launches += launches
	if err != nil {
		return nil, err
	}
	phase("table")
	firsts, occ, l, err := d.orderGroupsOn(sc, run, groups, n)
	res.Launches += l
	if err != nil {
		return nil, err
	}
	phase("order")
	if top != nil && len(keys) > 0 && int64(top.K) < groups && top.Agg < 0 {
		groups = int64(top.K) // the first K of the ordered groups
	} else if top != nil && len(keys) > 0 && int64(top.K) < groups {
		idx, kept, launches, err := d.topGroupsOn(ctx, sc, in, keys, counted, run, firsts, occ, groups, top)
		if err != nil {
			return nil, err
		}
		res.Launches += launches
		if idx != nil {
			groups = kept
			if firsts, occ, err = d.permuteGroupsOn(sc, firsts, occ, idx, groups); err != nil {
				return nil, err
			}
			res.Launches += 2
		}
		phase("top")
	}
	if len(keys) > 0 {
		cols := make([]DeviceVec, len(keys))
		types := make([]coldata.Type, len(keys))
		for i, k := range keys {
			cols[i], types[i] = in.Cols[k], in.Cols[k].Type
		}
		kb, err := d.gatherRows(ctx, cols, in, types, firsts.ptr, int(groups))
		if err != nil {
			return nil, err
		}
		phase("keys")
		res.Keys = kb
		res.Launches += 2
	} else {
		res.Keys = &coldata.Batch{Len: int(groups)}
	}
	gathered, err := sc.alloc(uint64(8 * groups))
	if err != nil {
		return nil, err
	}
	// fetch downloads a state array, in group order, straight into the
	// returned slice (the device and every host gsql runs on are
	// little-endian).
	fetch := func(src *Buffer) ([]uint64, error) {
		if err := d.launchGrid("gsql_gather_u64", d.strided(groups), gathered.ptr, src.ptr, occ.ptr, groups); err != nil {
			return nil, err
		}
		res.Launches++
		out := make([]uint64, groups)
		if groups == 0 {
			return out, nil
		}
		if err := d.CopyToHost(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 8*groups), gathered.ptr, nil); err != nil {
			return nil, err
		}
		return out, nil
	}
	for a, spec := range counted {
		st := run.states[a]
		p := &res.Aggs[a]
		cnt, err := fetch(st[2])
		if err != nil {
			return nil, err
		}
		p.Count = []int64{}
		if groups > 0 {
			p.Count = unsafe.Slice((*int64)(unsafe.Pointer(&cnt[0])), groups)
		}
		switch spec.Kind {
		case GroupCountStar, GroupCount:
		case GroupSumFloat, GroupMinFloat, GroupMaxFloat:
			w, err := fetch(st[0])
			if err != nil {
				return nil, err
			}
			p.Float = make([]float64, groups)
			for j, x := range w {
				p.Float[j] = math.Float64frombits(x)
			}
		case GroupVariance:
			// Shifted sums: the shift K, the sum of x-K and of (x-K)^2.
			var w [3][]uint64
			for i, b := range []*Buffer{st[0], st[1], st[3]} {
				if w[i], err = fetch(b); err != nil {
					return nil, err
				}
			}
			p.Mean, p.M2 = make([]float64, groups), make([]float64, groups)
			for j, c := range p.Count {
				p.Mean[j], p.M2[j] = shiftedMoments(c, w[0][j], math.Float64frombits(w[1][j]), math.Float64frombits(w[2][j]))
			}
		case GroupMinString, GroupMaxString, GroupMinDec, GroupMaxDec:
			// The winning rows, gathered from the argument column; a group
			// without a value points at row 0 (its Count is 0).
			rows, err := fetch(st[0])
			if err != nil {
				return nil, err
			}
			raw := make([]byte, 8*groups)
			for j, r := range rows {
				if int64(r) < 0 {
					r = 0
				}
				binary.LittleEndian.PutUint64(raw[8*j:], r)
			}
			if err := d.CopyToDevice(gathered.ptr, raw, nil); err != nil {
				return nil, err
			}
			arg := in.Cols[spec.Arg]
			sb, err := d.gatherRows(ctx, []DeviceVec{arg}, in, []coldata.Type{arg.Type}, gathered.ptr, int(groups))
			if err != nil {
				return nil, err
			}
			res.Launches += 2
			if arg.Type.IsDecimal() {
				p.Dec = sb.Cols[0]
			} else {
				p.Str = sb.Cols[0]
			}
		default:
			if p.Lo, err = fetch(st[0]); err != nil {
				return nil, err
			}
			if spec.Kind == GroupSumInt || spec.Kind == GroupSumDec {
				hi, err := fetch(st[1])
				if err != nil {
					return nil, err
				}
				p.Hi = make([]int64, groups)
				for j, h := range hi {
					p.Hi[j] = int64(h)
				}
				if spec.Kind == GroupSumDec {
					top, err := fetch(st[3])
					if err != nil {
						return nil, err
					}
					p.Top = make([]int64, groups)
					for j, w := range top {
						p.Top[j] = int64(w)
					}
				}
			}
		}
	}
	phase("states")
	if quantiles {
		if err := d.quantilesOn(ctx, sc, in, aggs, res, run.slotOf, occ, run.cap, groups); err != nil {
			return nil, err
		}
		phase("quantiles")
	}
	return res, nil
}

// orderGroupsOn lists a group table's used slots and each group's first
// row, both in order of the groups' first appearance among the n rows.
// Context thread only.
func (d *Device) orderGroupsOn(sc *hashScratch, run *groupRun, groups, n int64) (firsts, occ *Buffer, launches int, err error) {
	occ = run.occ
	if firsts, err = sc.alloc(uint64(8 * groups)); err != nil {
		return nil, nil, 0, err
	}
	if err := d.launchGrid("gsql_gather_u64", d.strided(groups), firsts.ptr, run.first.ptr, occ.ptr, groups); err != nil {
		return nil, nil, launches, err
	}
	launches++
	// Groups in order of first appearance: ranked on the device when
	// there are many (sorting them on the host, and reordering every
	// downloaded array, took most of a 1.5M-group GROUP BY:
	// TestCUDAGroupByPhases, docs/benchlog/2026-11-26-tpch-gpu.md).
	if groups > firstOrderOnHost {
		if firsts, occ, err = d.firstOrderOn(sc, firsts, occ, groups, n); err != nil {
			return nil, nil, launches, err
		}
		launches += 7
	} else {
		firstRows := make([]byte, 8*groups)
		if err := d.CopyToHost(firstRows, firsts.ptr, nil); err != nil {
			return nil, nil, launches, err
		}
		order := firstAppearance(firstRows, n)
		ordered := make([]byte, 4*groups)
		for j, o := range order {
			binary.LittleEndian.PutUint32(ordered[4*j:], uint32(o))
		}
		idx, err := sc.alloc(uint64(4 * groups))
		if err != nil {
			return nil, nil, launches, err
		}
		if err := d.CopyToDevice(idx.ptr, ordered, nil); err != nil {
			return nil, nil, launches, err
		}
		if firsts, occ, err = d.permuteGroupsOn(sc, firsts, occ, idx, groups); err != nil {
			return nil, nil, launches, err
		}
		launches += 2
	}
	return firsts, occ, launches, nil
}

// firstOrderOnHost is the most groups ordered on the host (a sort of
// their first rows); more are ranked on the device.
const firstOrderOnHost = 4096

// firstOrderOn returns the groups' first rows and slots in order of first
// appearance: each group marks its first row in an array of the n input
// rows, a scan ranks the marks, and the groups are gathered by rank.
// Context thread only.
func (d *Device) firstOrderOn(sc *hashScratch, firsts, occ *Buffer, groups, n int64) (*Buffer, *Buffer, error) {
	mark, err := sc.alloc(uint64(4 * n))
	if err != nil {
		return nil, nil, err
	}
	if err := d.drv.memset8(mark.ptr, 0, uint64(4*n), d.stream.h); err != nil {
		return nil, nil, err
	}
	if err := d.launchGrid("gsql_first_mark", d.strided(groups), firsts.ptr, groups, mark.ptr); err != nil {
		return nil, nil, err
	}
	flags, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, nil, err
	}
	if err := d.launchGrid("gsql_first_flags", d.strided(n), mark.ptr, n, flags.ptr); err != nil {
		return nil, nil, err
	}
	pos, err := d.windowScanOn(sc, winI64, winSum, n, flags.ptr, 0)
	if err != nil {
		return nil, nil, err
	}
	order, err := sc.alloc(uint64(4 * groups))
	if err != nil {
		return nil, nil, err
	}
	if err := d.launchGrid("gsql_first_order", d.strided(n), mark.ptr, pos, n, order.ptr); err != nil {
		return nil, nil, err
	}
	return d.permuteGroupsOn(sc, firsts, occ, order, groups)
}

// permuteGroupsOn returns firsts and occ (a group's first row and slot)
// reordered by idx (int32 group numbers). Context thread only.
func (d *Device) permuteGroupsOn(sc *hashScratch, firsts, occ, idx *Buffer, groups int64) (*Buffer, *Buffer, error) {
	f, err := sc.alloc(uint64(8 * groups))
	if err != nil {
		return nil, nil, err
	}
	o, err := sc.alloc(uint64(4 * groups))
	if err != nil {
		return nil, nil, err
	}
	if err := d.launchGrid("gsql_gather_u64", d.strided(groups), f.ptr, firsts.ptr, idx.ptr, groups); err != nil {
		return nil, nil, err
	}
	if err := d.launchGrid("gsql_gather_i32_idx", d.strided(groups), o.ptr, occ.ptr, idx.ptr, groups); err != nil {
		return nil, nil, err
	}
	return f, o, nil
}

// groupTrace, when set (tests), receives the time each phase of a GROUP
// BY took on the host's clock.
var groupTrace func(phase string, took time.Duration)

// groupPhases returns a function that reports the time since its last
// call under a phase name to groupTrace (nothing when unset).
func groupPhases() func(string) {
	if groupTrace == nil {
		return func(string) {}
	}
	last := time.Now()
	return func(name string) {
		now := time.Now()
		groupTrace(name, now.Sub(last))
		last = now
	}
}

// groupPass builds the hash table of one batch at the given capacity and
// folds every row into its group; occ lists the used slots. Context thread
// only.
func (d *Device) groupPass(sc *hashScratch, in *DeviceBatch, keyDesc *Buffer, nkeys int64, rowhash, slotOf *Buffer,
	aggs []GroupAgg, cap, n int64) (*groupRun, error) {
	run := &groupRun{cap: cap}
	var err error
	if run.slots, err = sc.alloc(uint64(4 * cap)); err != nil {
		return nil, err
	}
	if err := d.drv.memset8(run.slots.ptr, 0xff, uint64(4*cap), d.stream.h); err != nil {
		return nil, err
	}
	if run.first, err = sc.alloc(uint64(8 * cap)); err != nil {
		return nil, err
	}
	if err := d.fillWords(run.first.ptr, math.MaxInt64, cap); err != nil {
		return nil, err
	}
	if run.counters, err = sc.alloc(16); err != nil {
		return nil, err
	}
	if err := d.drv.memset8(run.counters.ptr, 0, 16, d.stream.h); err != nil {
		return nil, err
	}
	var words []uint64
	for _, a := range aggs {
		var st [4]*Buffer
		wide := a.Kind == GroupSumDec || a.Kind == GroupVariance
		need := [4]bool{a.Kind >= GroupSumInt, a.Kind == GroupSumInt || wide, true, wide}
		for i := range st {
			if !need[i] {
				continue
			}
			if st[i], err = sc.alloc(uint64(8 * cap)); err != nil {
				return nil, err
			}
			if err := d.drv.memset8(st[i].ptr, 0, uint64(8*cap), d.stream.h); err != nil {
				return nil, err
			}
		}
		if init, ok := stateInit(a.Kind); ok {
			if err := d.fillWords(st[0].ptr, init, cap); err != nil {
				return nil, err
			}
		}
		run.states = append(run.states, st)
		var arg [5]uint64
		if a.Kind != GroupCountStar {
			arg = colDesc(in.Cols[a.Arg])
		}
		ptr := func(b *Buffer) uint64 {
			if b == nil {
				return 0
			}
			return uint64(b.ptr)
		}
		words = append(words, uint64(a.Kind))
		words = append(words, arg[:]...)
		words = append(words, ptr(st[0]), ptr(st[1]), ptr(st[2]), ptr(st[3]))
	}
	aggDesc, err := sc.upload(words)
	if err != nil {
		return nil, err
	}
	limit := cap * 3 / 4
	if cap >= 2*n {
		limit = cap // every row fits: never give up
	}
	cfg := d.strided(n)
	if err := d.launchGrid("gsql_agg_insert", cfg, keyDesc.ptr, nkeys, n, run.slots.ptr, rowhash.ptr, cap-1,
		slotOf.ptr, run.first.ptr, run.counters.ptr, limit, run.counters.ptr+4); err != nil {
		return nil, err
	}
	if len(aggs) > 0 {
		if err := d.launchGrid("gsql_agg_update", cfg, aggDesc.ptr, int64(len(aggs)), slotOf.ptr, n); err != nil {
			return nil, err
		}
	}
	if run.occ, err = sc.alloc(uint64(4 * cap)); err != nil {
		return nil, err
	}
	if err := d.launchGrid("gsql_agg_compact", d.strided(cap), run.slots.ptr, cap, run.occ.ptr, run.counters.ptr+8); err != nil {
		return nil, err
	}
	return run, nil
}

// stateInit is the starting value of a MIN/MAX state.
func stateInit(k GroupAggKind) (uint64, bool) {
	switch k {
	case GroupMinInt:
		return math.MaxInt64, true
	case GroupMaxInt:
		return 1 << 63, true // MinInt64
	case GroupMinFloat:
		return math.Float64bits(math.Inf(1)), true
	case GroupMaxFloat:
		return math.Float64bits(math.Inf(-1)), true
	case GroupMinString, GroupMaxString, GroupMaxBool, GroupMinDec, GroupMaxDec:
		return math.MaxUint64, true // -1: no row yet / below FALSE
	case GroupMinBool:
		return 2, true
	case GroupVariance:
		return varUnset, true
	}
	return 0, false
}

// shiftedMoments turns a GroupVariance's device state (n values, shift
// bits k, s1 the sum of x-K, s2 the sum of (x-K)^2) into the mean and the
// sum of squared deviations from it. Rounding can leave the latter a hair
// below zero when every value is equal: it is then 0.
func shiftedMoments(n int64, k uint64, s1, s2 float64) (mean, m2 float64) {
	if n == 0 {
		return 0, 0
	}
	shift := math.Float64frombits(k)
	c := float64(n)
	mean = shift + s1/c
	m2 = s2 - s1*s1/c
	if m2 < 0 {
		m2 = 0
	}
	return mean, m2
}

// gatherRows gathers rows idx[0..n) (int64 row numbers) of cols and
// downloads them. Context thread only.
func (d *Device) gatherRows(ctx context.Context, cols []DeviceVec, owner *DeviceBatch, types []coldata.Type, idx DevicePtr, n int) (*coldata.Batch, error) {
	k, err := fuse.GenerateGather(types)
	if err != nil {
		return nil, err
	}
	src, err := Combine(cols, owner.Len, owner)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	g, err := d.gather(ctx, k, src, idx, n)
	if err != nil {
		return nil, err
	}
	defer g.Release()
	return d.Download(ctx, g)
}

// gather runs gather kernel set k over src: its fused kernels when they
// are compiled; else the interpreter, while they compile in the
// background (this runs on the context thread, where a compile would stall
// every query); a compile here only when neither is ready.
func (d *Device) gather(ctx context.Context, k *fuse.Kernel, src *DeviceBatch, idx DevicePtr, n int) (*DeviceBatch, error) {
	if fk, ok, err := d.prepareFused(k, true); err == nil && ok {
		defer fk.Release()
		return fk.run(src, idx, n)
	}
	if ready, _ := d.InterpreterReady(); ready {
		types := make([]coldata.Type, len(src.Cols))
		for i, c := range src.Cols {
			types[i] = c.Type
		}
		if s, err := fuse.Interpreter().LowerSplit(types, nil, fuse.GatherOutputs(types)); err == nil {
			d.CompileFusedAsync(k)
			return (&ProgramKernel{d: d, split: s}).run(src, idx, n)
		}
	}
	fk, err := d.PrepareFused(k)
	if err != nil {
		return nil, err
	}
	defer fk.Release()
	return fk.run(src, idx, n)
}

// JoinTable is a join's build side hashed on the device, grouped by key:
// one hash-table slot per distinct key (rows with a NULL key take none)
// and, unless the table is a semi join's, the build rows stably sorted by
// their key's slot with each slot's run (start, end) in ranges. Many
// duplicates of a key cost a probe one slot and one contiguous run, not a
// chain of slots walked row by row.
type JoinTable struct {
	d       *Device
	build   *DeviceBatch
	keys    []int
	types   []coldata.Type
	mask    int64
	scratch *hashScratch
	keyDesc *Buffer
	slots   *Buffer
	rowhash *Buffer
	// ranges holds two int32 per slot, rows the sorted build rows
	// (uint32): nil for a semi join's table.
	ranges, rows *Buffer
	// Launches counts the kernels the build ran.
	Launches int
	// PairLimit bounds the pairs one probe may produce (0: math.MaxInt32,
	// what a device batch holds); past it the probe is a *JoinSizeError
	// and produces nothing, so that its caller can probe fewer rows.
	PairLimit int64
	// Repeats reports that two build rows hold the same key (NULL keys
	// aside): set by BuildJoin and BuildKeyCheck, not BuildSemiJoin.
	Repeats bool
	// checkRepeats makes a table without rows read Repeats.
	checkRepeats bool
}

// JoinSizeError is a probe that would produce more pairs than its table's
// PairLimit (or a device batch) holds. Pairs is the exact count, from the
// probe's counting pass, so a caller knows how finely to cut its rows.
type JoinSizeError struct {
	Pairs, Limit int64
	Rows         int
}

func (e *JoinSizeError) Error() string {
	return fmt.Sprintf("gpu: join produces %d rows from %d probe rows, more than the %d one probe may hold", e.Pairs, e.Rows, e.Limit)
}

// BuildJoin hashes the build batch on its key columns. The table keeps a
// reference to build; Release frees both. One host synchronisation
// (whether a key repeats), two when one does (the sort's key range).
func (d *Device) BuildJoin(ctx context.Context, build *DeviceBatch, keys []int) (*JoinTable, error) {
	return d.buildJoin(ctx, build, keys, true)
}

// BuildSemiJoin is BuildJoin without the rows of each key: enough for
// ProbeRows, whose semi and anti joins ask only whether a key is there.
func (d *Device) BuildSemiJoin(ctx context.Context, build *DeviceBatch, keys []int) (*JoinTable, error) {
	return d.buildJoin(ctx, build, keys, false)
}

func (d *Device) buildJoin(ctx context.Context, build *DeviceBatch, keys []int, withRows bool) (*JoinTable, error) {
	return d.buildJoinTable(ctx, build, keys, withRows, false)
}

// buildJoinTable is buildJoin; with repeats a table without rows reads
// whether a key repeats (Repeats), which a table with rows always does.
func (d *Device) buildJoinTable(ctx context.Context, build *DeviceBatch, keys []int, withRows, repeats bool) (*JoinTable, error) {
	if err := d.own(build); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if int64(build.Len) > math.MaxInt32 {
		return nil, invalidf("join build side of %d rows (a device batch holds fewer than 2^31)", build.Len)
	}
	t := &JoinTable{d: d, keys: keys, scratch: &hashScratch{d: d}, checkRepeats: repeats}
	for _, k := range keys {
		if k < 0 || k >= len(build.Cols) || !groupableType(build.Cols[k].Type) {
			return nil, invalidf("join key column %d is not hashable", k)
		}
		t.types = append(t.types, build.Cols[k].Type)
	}
	err := d.Do(func() error { return d.buildJoinOn(ctx, t, build, withRows) })
	if err != nil {
		t.scratch.release()
		return nil, fmt.Errorf("join build: %w", err)
	}
	if t.build, err = build.Retain(); err != nil {
		t.scratch.release()
		return nil, err
	}
	return t, nil
}

// buildJoinOn fills t: insert the distinct keys, then (withRows) sort the
// rows by slot and mark each slot's run. Context thread only.
func (d *Device) buildJoinOn(ctx context.Context, t *JoinTable, build *DeviceBatch, withRows bool) error {
	n := int64(build.Len)
	cap := nextPow2(2 * n)
	if cap < 1024 {
		cap = 1024
	}
	t.mask = cap - 1
	var words []uint64
	for _, k := range t.keys {
		c := colDesc(build.Cols[k])
		words = append(words, c[:]...)
	}
	var err error
	if t.keyDesc, err = t.scratch.upload(words); err != nil {
		return err
	}
	if t.slots, err = t.scratch.alloc(uint64(4 * cap)); err != nil {
		return err
	}
	if err := d.drv.memset8(t.slots.ptr, 0xff, uint64(4*cap), d.stream.h); err != nil {
		return err
	}
	if t.rowhash, err = t.scratch.alloc(uint64(8 * n)); err != nil {
		return err
	}
	if withRows {
		if t.ranges, err = t.scratch.alloc(uint64(8 * cap)); err != nil {
			return err
		}
	}
	if n == 0 {
		if withRows {
			t.rows, err = t.scratch.alloc(4)
		}
		return err
	}
	tmp := &hashScratch{d: d}
	defer tmp.release()
	var slotKey DevicePtr
	if withRows {
		sk, err := tmp.alloc(uint64(8 * n))
		if err != nil {
			return err
		}
		slotKey = sk.ptr
	}
	dup, err := tmp.alloc(4)
	if err != nil {
		return err
	}
	if err := d.drv.memset8(dup.ptr, 0, 4, d.stream.h); err != nil {
		return err
	}
	if err := d.launchGrid("gsql_join_insert", d.strided(n), t.keyDesc.ptr, int64(len(t.keys)), n, t.slots.ptr,
		t.rowhash.ptr, t.mask, slotKey, dup.ptr); err != nil {
		return err
	}
	t.Launches++
	if !withRows && !t.checkRepeats {
		return nil
	}
	var flag [4]byte
	if err := d.CopyToHost(flag[:], dup.ptr, nil); err != nil {
		return err
	}
	t.Repeats = binary.LittleEndian.Uint32(flag[:]) != 0
	if !withRows {
		return nil
	}
	if !t.Repeats {
		// Every key once (a key column of the build side, the usual
		// case): each slot's run is its row, in identity order; no sort.
		if t.rows, err = t.scratch.alloc(uint64(4 * n)); err != nil {
			return err
		}
		if err := d.launchGrid("gsql_sort_iota", d.strided(n), t.rows.ptr, n); err != nil {
			return err
		}
		t.Launches += 2
		return d.launchGrid("gsql_join_unique_ranges", d.strided(cap), t.slots.ptr, cap, t.ranges.ptr)
	}
	// A stable sort keeps each key's rows in build-row order, the order
	// the probe's pairs promise.
	run, err := d.radixSortOn(ctx, tmp, slotKey, 0, n)
	if err != nil {
		return err
	}
	t.Launches += run.launches
	if err := d.launchGrid("gsql_join_ranges", d.strided(n), run.keys.ptr, n, t.mask, t.ranges.ptr); err != nil {
		return err
	}
	t.Launches++
	// The sorted rows outlive the sort's scratch; queued work on the one
	// stream orders any reuse of the rest after the kernels above.
	t.rows = run.rows.Retain()
	t.scratch.bufs = append(t.scratch.bufs, t.rows)
	return nil
}

func (t *JoinTable) pairLimit() int64 {
	if t.PairLimit > 0 && t.PairLimit < math.MaxInt32 {
		return t.PairLimit
	}
	return math.MaxInt32
}

// Release frees the table and its reference to the build batch.
func (t *JoinTable) Release() {
	if t.scratch != nil {
		t.scratch.release()
		t.scratch = nil
	}
	if t.build != nil {
		t.build.Release()
		t.build = nil
	}
}

// JoinPairs are the row pairs of a probe: Probe[i] and Build[i] are int64
// row numbers (Build: NullRow for an unmatched LEFT row), Len pairs.
type JoinPairs struct {
	Probe, Build *Buffer
	Len          int
	Launches     int
}

// Release frees the pair buffers.
func (p *JoinPairs) Release() {
	if p.Probe != nil {
		p.Probe.Release()
		p.Build.Release()
		p.Probe, p.Build = nil, nil
	}
}

// joinTile is GSQL_JOIN_TILE of kernels/hash.cu (the probe rows of one
// block), joinThreads its GSQL_JOIN_THREADS.
const (
	joinTile    = 2048
	joinThreads = 256
)

// Probe pairs each probe row with its matching build rows: matched pairs
// first, in probe-row order and each row's matches in build-row order;
// then, with left, every unmatched probe row paired with nullRow. NULL
// keys never match. Three launches (four when a row has more than 16
// matches) and one host synchronisation (the pair count) per call.
func (t *JoinTable) Probe(ctx context.Context, probe *DeviceBatch, keys []int, left bool, nullRow int64) (*JoinPairs, error) {
	mode := probeInner
	if left {
		mode = probeLeft
	}
	return t.probe(ctx, probe, keys, mode, nullRow)
}

// ProbeRows lists the probe rows a semi join keeps (those with a match) or,
// with anti, an anti join keeps (those without one, NULL keys included),
// once each and in probe-row order: the pairs' Probe side (Build holds 0).
func (t *JoinTable) ProbeRows(ctx context.Context, probe *DeviceBatch, keys []int, anti bool) (*JoinPairs, error) {
	mode := probeSemi
	if anti {
		mode = probeAnti
	}
	return t.probe(ctx, probe, keys, mode, 0)
}

// Probe modes: gsql_join_count's `left` argument.
const (
	probeInner int64 = iota
	probeLeft
	probeSemi
	probeAnti
)

func (t *JoinTable) probe(ctx context.Context, probe *DeviceBatch, keys []int, mode int64, nullRow int64) (*JoinPairs, error) {
	d := t.d
	if err := d.own(probe); err != nil {
		return nil, err
	}
	if len(keys) != len(t.keys) {
		return nil, invalidf("join probe with %d keys, built with %d", len(keys), len(t.keys))
	}
	for i, k := range keys {
		if k < 0 || k >= len(probe.Cols) || probe.Cols[k].Type != t.types[i] {
			return nil, invalidf("join probe key %d does not match the build key type %s", i, t.types[i])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *JoinPairs
	err := d.Do(func() error {
		sc := &hashScratch{d: d}
		defer sc.release()
		n := int64(probe.Len)
		var words []uint64
		for _, k := range keys {
			c := colDesc(probe.Cols[k])
			words = append(words, c[:]...)
		}
		desc, err := sc.upload(words)
		if err != nil {
			return err
		}
		blocks := (n + joinTile - 1) / joinTile
		cm, err := sc.alloc(uint64(4 * n))
		if err != nil {
			return err
		}
		cu, err := sc.alloc(uint64(4 * n))
		if err != nil {
			return err
		}
		start, err := sc.alloc(uint64(4 * n))
		if err != nil {
			return err
		}
		off, err := sc.alloc(uint64(8 * n))
		if err != nil {
			return err
		}
		sums, err := sc.alloc(uint64(16 * blocks))
		if err != nil {
			return err
		}
		// totals: matched pairs, unmatched rows, the heavy-row flag.
		totals, err := sc.alloc(24)
		if err != nil {
			return err
		}
		if err := d.drv.memset8(totals.ptr, 0, 24, d.stream.h); err != nil {
			return err
		}
		if mode < probeSemi && t.ranges == nil {
			return invalidf("join probe of a semi join's table")
		}
		flag := mode
		nk := int64(len(keys))
		if n > 0 {
			tiles := LaunchConfig{Grid: Dim3{int(blocks), 1, 1}, Block: Dim3{joinThreads, 1, 1}}
			if err := d.launchGrid("gsql_join_count", tiles, desc.ptr, t.keyDesc.ptr, nk, n, t.slots.ptr, t.rowhash.ptr,
				t.mask, bufPtr(t.ranges), flag, cm.ptr, cu.ptr, start.ptr, sums.ptr, totals.ptr+16); err != nil {
				return err
			}
			one := LaunchConfig{Grid: Dim3{1, 1, 1}, Block: Dim3{1024, 1, 1}}
			if err := d.launchGrid("gsql_scan_pairs", one, sums.ptr, blocks, totals.ptr); err != nil {
				return err
			}
		}
		var tb [24]byte
		if err := d.CopyToHost(tb[:], totals.ptr, nil); err != nil {
			return err
		}
		matched := int64(binary.LittleEndian.Uint64(tb[:]))
		total := matched + int64(binary.LittleEndian.Uint64(tb[8:]))
		heavy := binary.LittleEndian.Uint64(tb[16:]) != 0
		if limit := t.pairLimit(); total > limit {
			return &JoinSizeError{Pairs: total, Limit: limit, Rows: probe.Len}
		}
		pairs := &JoinPairs{Len: int(total), Launches: 2}
		if pairs.Probe, err = d.allocOn(uint64(8*total) + 8); err != nil {
			return err
		}
		if pairs.Build, err = d.allocOn(uint64(8*total) + 8); err != nil {
			pairs.Probe.Release()
			pairs.Probe = nil
			return err
		}
		if total > 0 {
			rows := bufPtr(t.rows)
			tiles := LaunchConfig{Grid: Dim3{int(blocks), 1, 1}, Block: Dim3{joinThreads, 1, 1}}
			if err := d.launchGrid("gsql_join_fill", tiles, n, cm.ptr, cu.ptr, start.ptr, rows, sums.ptr, totals.ptr,
				off.ptr, pairs.Probe.ptr, pairs.Build.ptr, nullRow); err != nil {
				pairs.Release()
				return err
			}
			pairs.Launches++
			if heavy && matched > 0 {
				// Rows with many matches: one thread per pair.
				if err := d.launchGrid("gsql_join_expand", d.strided(matched), n, matched, off.ptr, cm.ptr, start.ptr, rows,
					pairs.Probe.ptr, pairs.Build.ptr); err != nil {
					pairs.Release()
					return err
				}
				pairs.Launches++
			}
		}
		// The scratch buffers go back to the pool while the fill may still
		// read them: every later use of that memory is queued behind it on
		// the same stream.
		out = pairs
		return nil
	})
	return out, err
}

// firstAppearance orders groups by their first rows (little-endian int64
// row numbers below n): a dense pass over the rows when groups are many, a
// sort of packed (row, group) words when they are few.
func firstAppearance(firstRows []byte, n int64) []int {
	groups := len(firstRows) / 8
	order := make([]int, 0, groups)
	if int64(groups) > n/16 {
		at := make([]int32, n) // group+1 whose first row this is
		for j := 0; j < groups; j++ {
			at[binary.LittleEndian.Uint64(firstRows[8*j:])] = int32(j + 1)
		}
		for _, j := range at {
			if j != 0 {
				order = append(order, int(j-1))
			}
		}
		return order
	}
	packed := make([]uint64, groups)
	for j := range packed {
		packed[j] = binary.LittleEndian.Uint64(firstRows[8*j:])<<32 | uint64(j)
	}
	slices.Sort(packed)
	for _, w := range packed {
		order = append(order, int(uint32(w)))
	}
	return order
}

// MarkRows returns a BOOLEAN column of rows values, TRUE at row rows[k]
// for each k < n where flags (a BOOLEAN device column of n values) is TRUE
// and FALSE elsewhere: the rows a semi or anti join's residual condition
// holds for at some pair. The column owns its buffer.
func (d *Device) MarkRows(ctx context.Context, rowIdx DevicePtr, flags DeviceVec, n, rows int) (*DeviceBatch, error) {
	if flags.Type != coldata.Bool || flags.Len < n {
		return nil, invalidf("mark rows: flags of type %s and %d rows for %d pairs", flags.Type, flags.Len, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err := d.Do(func() error {
		mark, err := d.allocOn(uint64(max(rows, 1)))
		if err != nil {
			return err
		}
		if err := d.drv.memset8(mark.ptr, 0, uint64(max(rows, 1)), d.stream.h); err != nil {
			mark.Release()
			return err
		}
		if n > 0 {
			if err := d.launchGrid("gsql_mark_rows", d.strided(int64(n)), rowIdx, flags.Nulls, int64(flags.NullOffset), flags.Data, int64(n), mark.ptr); err != nil {
				mark.Release()
				return err
			}
		}
		out = &DeviceBatch{Cols: []DeviceVec{{Type: coldata.Bool, Len: rows, Data: mark.ptr}}, Len: rows, d: d, bufs: []*Buffer{mark}}
		return nil
	})
	return out, err
}

// DistinctRows returns, as a new device batch, one row of in's columns
// cols for each distinct combination of their values (NULLs equal, as
// GROUP BY keys), in no particular order: a GROUP BY's (keys, argument)
// tuples, grouped again on the device to count DISTINCT values per group
// without bringing the tuples to the host.
func (d *Device) DistinctRows(ctx context.Context, in *DeviceBatch, cols []int) (*DeviceBatch, error) {
	if err := d.own(in); err != nil {
		return nil, err
	}
	for _, c := range cols {
		if c < 0 || c >= len(in.Cols) || !groupableType(in.Cols[c].Type) {
			return nil, invalidf("distinct rows: column %d of %d cannot be grouped", c, len(in.Cols))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vecs := make([]DeviceVec, len(cols))
	types := make([]coldata.Type, len(cols))
	for i, c := range cols {
		vecs[i], types[i] = in.Cols[c], in.Cols[c].Type
	}
	k, err := fuse.GenerateGather(types)
	if err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err = d.Do(func() error {
		if in.Len == 0 {
			src, err := Combine(vecs, 0, in)
			if err != nil {
				return err
			}
			out = src
			return nil
		}
		sc := &hashScratch{d: d}
		defer func() {
			// The gather reads the scratch in flight.
			d.drv.syncStream(d.stream.h)
			sc.release()
		}()
		run, groups, _, err := d.groupTableOn(ctx, sc, in, cols, nil)
		if err != nil {
			return err
		}
		firsts, err := sc.alloc(uint64(8 * groups))
		if err != nil {
			return err
		}
		if err := d.launchGrid("gsql_gather_u64", d.strided(groups), firsts.ptr, run.first.ptr, run.occ.ptr, groups); err != nil {
			return err
		}
		src, err := Combine(vecs, in.Len, in)
		if err != nil {
			return err
		}
		defer src.Release()
		out, err = d.gather(ctx, k, src, firsts.ptr, int(groups))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("distinct rows: %w", err)
	}
	return out, nil
}
