package gpuexec

import (
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// GroupTop asks a GROUP BY for only the groups that an ORDER BY ... LIMIT
// K reads. The ordering term is aggregate Agg (with Avg, an AVG: that
// aggregate's sum over its count) or, with Key, group key Agg (its place
// in keys); Agg -1 asks for the first K groups in first-appearance order
// (a LIMIT without ORDER BY).
//
// Each group's value maps to an ordering word (TopWords on the host, the
// kernel gsql_top_word on the device): an unsigned 64-bit word whose order
// is the term's (Desc: reversed; NULLs at 0 when NullsFirst, else at the
// top). The words are exact except at the clamped extremes of a wide sum
// or a BIGINT's end values, where several values may share a word
// (TopLossy). The first K groups
// of a stable sort by word (groups in first-appearance order) are the
// answer when the K-th word is exact and no further ORDER BY term follows;
// otherwise (Ties, or a clamped K-th word) every group whose word equals
// the K-th one is kept as well, so that the host's sort over the survivors
// still orders them as over all groups.
type GroupTop struct {
	Agg int
	Key bool
	Avg bool
	// AvgScale is, for an AVG of a DECIMAL, the power of ten its sum is
	// scaled by before the division rounds it (the result's scale less
	// the argument's), as the host computes it.
	AvgScale   int
	Desc       bool
	NullsFirst bool
	Ties       bool
	K          int
}

// TopOrderable reports whether the device can order groups by an
// aggregate of kind k (avg: an AVG over kind k's sum).
func TopOrderable(k GroupAggKind, avg bool) bool {
	switch k {
	case GroupCountStar, GroupCount:
		return !avg
	case GroupSumInt, GroupSumFloat, GroupSumDec:
		return true
	case GroupMinInt, GroupMaxInt, GroupMinFloat, GroupMaxFloat, GroupMinBool, GroupMaxBool:
		return !avg
	}
	return false
}

// TopKeyOrderable reports whether the device can order groups by a key
// of type t: the fixed-width types its sort orders (gsql_order_key).
func TopKeyOrderable(t coldata.Type) bool { return sortableType(t) }

// check validates top against a GroupByTop's input, keys and aggregates.
func (top *GroupTop) check(in *DeviceBatch, keys []int, aggs []GroupAgg) error {
	if top.K < 1 {
		return invalidf("top groups: K %d", top.K)
	}
	if top.Agg == -1 && !top.Key {
		return nil
	}
	if top.Key {
		if top.Agg < 0 || top.Agg >= len(keys) || keys[top.Agg] < 0 || keys[top.Agg] >= len(in.Cols) {
			return invalidf("top groups by key %d: out of range", top.Agg)
		}
		if t := in.Cols[keys[top.Agg]].Type; !TopKeyOrderable(t) {
			return invalidf("top groups by a key of type %s", t)
		}
		return nil
	}
	if top.Agg < 0 || top.Agg >= len(aggs) || !TopOrderable(aggs[top.Agg].Kind, top.Avg) {
		return invalidf("top groups by aggregate %d: the device does not order by it", top.Agg)
	}
	if top.AvgScale < 0 || top.AvgScale > 4 {
		// The result's scale is the argument's plus at most 4.
		return invalidf("top groups by an AVG scaled by 10^%d", top.AvgScale)
	}
	return nil
}

// Words at the ends of the range.
const (
	topWordMin = uint64(0)
	topWordMax = uint64(math.MaxUint64)
)

// TopPlace turns a value's ascending word v into its ordering word:
// reversed when desc, NULL at one end and values clamped off it.
func TopPlace(v uint64, null, desc, nullsFirst bool) uint64 {
	if desc {
		v = ^v
	}
	switch {
	case null && nullsFirst:
		return topWordMin
	case null:
		return topWordMax
	case nullsFirst:
		return max(v, topWordMin+1)
	}
	return min(v, topWordMax-1)
}

// TopLossy reports whether several values may share ordering word w: the
// clamped extreme words beside the NULL end and at the other end.
func TopLossy(w uint64, nullsFirst bool) bool {
	if nullsFirst {
		return w == topWordMin+1 || w == topWordMax
	}
	return w == topWordMin || w == topWordMax-1
}

// FloatWord is a DOUBLE's ascending word (OrderKey's), or false for a NaN,
// which the host's sort does not order (every comparison with it is
// false): no cut then.
func FloatWord(f float64) (uint64, bool) {
	if f != f {
		return 0, false
	}
	return OrderKey(coldata.Float64, math.Float64bits(f), false), true
}

// SmallWord is the ascending word of a count or a BOOL (0 or 1): two
// words off the bottom, so that no NULL placement clamps it and the cut
// never takes it for a clamped word (TopLossy).
func SmallWord(v uint64) uint64 { return v + 2 }

// IntWord is a BIGINT's ascending word.
func IntWord(v int64) uint64 { return uint64(v) ^ 1<<63 }

// ClampWord is the ascending word of a wide integer whose top words say
// whether it fits an int64 (low word lo): its value, or an end.
func ClampWord(lo uint64, fits, neg bool) uint64 {
	switch {
	case fits:
		return IntWord(int64(lo))
	case neg:
		return topWordMin
	}
	return topWordMax
}

// topValueWord is group g's ascending word under aggregate kind k of
// partial p (avg: its sum over its count, a DECIMAL's sum scaled by
// 10^avgScale first), whether it is NULL, and false where it has none: a
// NaN, or a sum the host may refuse (a BIGINT SUM past int64, a DECIMAL
// one past 38 digits) or that the device does not divide (a sum past
// int64 under AVG). Every group then comes to the host, which raises the
// same errors as without the cut.
func topValueWord(k GroupAggKind, avg bool, avgScale int, p *AggPartial, g int) (w uint64, null, ok bool) {
	c := p.Count[g]
	if k == GroupCountStar || k == GroupCount {
		return SmallWord(uint64(c)), false, true
	}
	if c == 0 {
		return 0, true, true
	}
	switch k {
	case GroupSumInt:
		lo, hi := p.Lo[g], p.Hi[g]
		if hi != int64(lo)>>63 {
			return 0, false, false
		}
		if avg {
			w, ok := FloatWord(float64(int64(lo)) / float64(c))
			return w, false, ok
		}
		return IntWord(int64(lo)), false, true
	case GroupSumDec:
		lo, hi, top := p.Lo[g], p.Hi[g], p.Top[g]
		sum := decimal.Int128{Lo: lo, Hi: hi}
		if top != hi>>63 || !sum.Fits(decimal.MaxPrecision) {
			return 0, false, false
		}
		if !avg {
			return ClampWord(lo, hi == int64(lo)>>63, hi < 0), false, true
		}
		if hi != int64(lo)>>63 {
			return 0, false, false
		}
		// The host's decimalAvg: exact, as |sum| * 10^4 fits 128 bits.
		scaled, _ := sum.Mul(decimal.FromInt64(int64(math.Pow10(avgScale))))
		q, _ := scaled.DivRound(decimal.FromInt64(c))
		v, fits := q.Int64()
		return ClampWord(uint64(v), fits, q.IsNeg()), false, true
	case GroupSumFloat, GroupMinFloat, GroupMaxFloat:
		f := p.Float[g]
		if avg {
			f /= float64(c)
		}
		w, ok := FloatWord(f)
		return w, false, ok
	case GroupMinInt, GroupMaxInt:
		return IntWord(int64(p.Lo[g])), false, true
	case GroupMinBool, GroupMaxBool:
		return SmallWord(p.Lo[g] & 0xff), false, true
	}
	return 0, false, false
}

// topKeyWord is row g of key column v's ascending word (OrderKey's),
// whether it is NULL, and false for a NaN.
func topKeyWord(v *coldata.Vec, g int) (w uint64, null, ok bool) {
	if v.IsNull(g) {
		return 0, true, true
	}
	switch v.Type.Physical() {
	case coldata.Bool:
		if v.Bool(g) {
			return SmallWord(1), false, true
		}
		return SmallWord(0), false, true
	case coldata.Float64:
		w, ok := FloatWord(v.Float(g))
		return w, false, ok
	case coldata.Decimal:
		return IntWord(int64(v.Dec(g).Lo)), false, true
	}
	return IntWord(v.Int(g)), false, true
}

// TopWords returns the ordering words of p's groups (aggregates aggs)
// under top, as the device computes them, or false when some group has none (a NaN):
// the groups then cannot be cut by word.
func TopWords(top *GroupTop, aggs []GroupAgg, p *GroupPartial) ([]uint64, bool) {
	n := p.Keys.Len
	out := make([]uint64, n)
	for g := range out {
		var w uint64
		var null, ok bool
		if top.Key {
			w, null, ok = topKeyWord(p.Keys.Cols[top.Agg], g)
		} else {
			w, null, ok = topValueWord(aggs[top.Agg].Kind, top.Avg, top.AvgScale, &p.Aggs[top.Agg], g)
		}
		if !ok {
			return nil, false
		}
		out[g] = TopPlace(w, null, top.Desc, top.NullsFirst)
	}
	return out, true
}

// TopKeep returns how many of n groups ranked by ascending words (sorted)
// top keeps: the first K, and past them every group tied with the K-th
// when top asks for ties or the K-th word is a clamped one.
func TopKeep(top *GroupTop, sorted []uint64) int {
	if len(sorted) <= top.K {
		return len(sorted)
	}
	kth := sorted[top.K-1]
	if !top.Ties && !TopLossy(kth, top.NullsFirst) {
		return top.K
	}
	m := top.K
	for m < len(sorted) && sorted[m] == kth {
		m++
	}
	return m
}

// devPtr is b's address, 0 for no buffer.
func devPtr(b *Buffer) DevicePtr {
	if b == nil {
		return 0
	}
	return b.ptr
}

// topGroupsOn returns, on the device, the group numbers top selects,
// ascending, and how many: each group's ordering word (gsql_top_word; run
// holds the states by slot, occ the slots and firsts the first rows in
// group order) is stably radix-sorted on the device, gsql_top_tie reads
// the K-th word and where its ties end, and only the kept group numbers
// come to the host, to be put back in group order. A stable sort keeps
// ties in group order, as the sort above the aggregate does. idx is nil
// when some group has no word (a NaN): every group is kept. Context
// thread only.
func (d *Device) topGroupsOn(ctx context.Context, sc *hashScratch, in *DeviceBatch, keys []int, aggs []GroupAgg, run *groupRun,
	firsts, occ *Buffer, groups int64, top *GroupTop) (idx *Buffer, kept int64, launches int, err error) {
	words, err := sc.alloc(uint64(8 * groups))
	if err != nil {
		return nil, 0, 0, err
	}
	// info: a NaN seen, the K-th word, the end of its ties.
	info, err := sc.upload([]uint64{0, 0, 0})
	if err != nil {
		return nil, 0, 0, err
	}
	kind := int64(-1)
	var st [4]*Buffer
	var kcol DeviceVec
	if top.Key {
		kcol = in.Cols[keys[top.Agg]]
	} else {
		kind, st = int64(aggs[top.Agg].Kind), run.states[top.Agg]
	}
	if err := d.launchGrid("gsql_top_word", d.strided(groups), kind, boolArg(top.Avg), int64(top.AvgScale), devPtr(st[0]), devPtr(st[1]),
		devPtr(st[3]), devPtr(st[2]), devPtr(occ), int64(kcol.Type.Physical()), kcol.Nulls, int64(kcol.NullOffset),
		kcol.Data, devPtr(firsts), groups, boolArg(top.Desc), boolArg(top.NullsFirst), words.ptr, info.ptr); err != nil {
		return nil, 0, 0, err
	}
	srt, err := d.radixSortOn(ctx, sc, words.ptr, 0, groups)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := d.launchGrid("gsql_top_tie", LaunchConfig{Grid: Dim3{1, 1, 1}, Block: Dim3{1, 1, 1}},
		srt.keys.ptr, groups, int64(top.K), info.ptr); err != nil {
		return nil, 0, 0, err
	}
	launches = 2 + srt.launches
	var raw [24]byte
	if err := d.CopyToHost(raw[:], info.ptr, nil); err != nil {
		return nil, 0, launches, err
	}
	if binary.LittleEndian.Uint64(raw[:]) != 0 {
		return nil, groups, launches, nil
	}
	kept = int64(top.K)
	if kth := binary.LittleEndian.Uint64(raw[8:]); top.Ties || TopLossy(kth, top.NullsFirst) {
		kept = int64(binary.LittleEndian.Uint64(raw[16:]))
	}
	rows := make([]byte, 4*kept)
	if err := d.CopyToHost(rows, srt.rows.ptr, nil); err != nil {
		return nil, 0, launches, err
	}
	picked := make([]uint32, kept)
	for j := range picked {
		picked[j] = binary.LittleEndian.Uint32(rows[4*j:])
	}
	slices.Sort(picked)
	for j, g := range picked {
		binary.LittleEndian.PutUint32(rows[4*j:], g)
	}
	if idx, err = sc.alloc(uint64(len(rows))); err != nil {
		return nil, 0, launches, err
	}
	if err := d.CopyToDevice(idx.ptr, rows, nil); err != nil {
		return nil, 0, launches, err
	}
	return idx, kept, launches, nil
}

func boolArg(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
