package gpuexec_test

// The distributed GROUP BY (operators.DistributedAggregate) over three
// fake devices: placement round-robin, repartition by key (and the merge
// plan), per-device grouping, the host's combine and finish, checked row
// for row against the CPU's HashAggregate. The fake driver runs no
// generated kernels, so the per-device grouping is hostGroupBy, a Go twin
// of Device.GroupBy for the aggregates used here; TestCUDADistributedAggregate
// runs the same with the device's own GroupBy.

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// hostGroupBy groups b's rows on the host into a GroupPartial shaped as
// the device's: keys in first-appearance order, COUNT(*), COUNT, the
// 128-bit BIGINT SUM and BIGINT MIN/MAX states.
func hostGroupBy(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg) (*gpuexec.GroupPartial, error) {
	hb, err := d.Download(ctx, b)
	if err != nil {
		return nil, err
	}
	defer hb.ReleaseOwner()
	keyCols := make([]*coldata.Vec, len(keys))
	kb := make([]*coldata.Builder, len(keys))
	for i, k := range keys {
		keyCols[i] = hb.Cols[k]
		kb[i] = coldata.NewBuilder(hb.Cols[k].Type, 0)
	}
	out := &gpuexec.GroupPartial{Aggs: make([]gpuexec.AggPartial, len(aggs))}
	groups := map[string]int{}
	var key []byte
	for r := 0; r < hb.Len; r++ {
		key = opspec.AppendRowKey(key[:0], keyCols, r)
		g, ok := groups[string(key)]
		if !ok {
			g = len(groups)
			groups[string(key)] = g
			for i, c := range keyCols {
				kb[i].AppendFrom(c, r)
			}
			for a, ag := range aggs {
				st := &out.Aggs[a]
				st.Count, st.Lo, st.Hi = append(st.Count, 0), append(st.Lo, 0), append(st.Hi, 0)
				if isFloatAgg(ag.Kind) {
					st.Float = append(st.Float, 0)
				}
			}
		}
		for a, ag := range aggs {
			st := &out.Aggs[a]
			if ag.Kind == gpuexec.GroupCountStar {
				st.Count[g]++
				continue
			}
			arg := hb.Cols[ag.Arg]
			if arg.IsNull(r) {
				continue
			}
			if isFloatAgg(ag.Kind) {
				f, first := arg.Float(r), st.Count[g] == 0
				switch {
				case ag.Kind == gpuexec.GroupSumFloat:
					st.Float[g] += f
				case first || (ag.Kind == gpuexec.GroupMinFloat) == (f < st.Float[g]) && f != st.Float[g]:
					st.Float[g] = f
				}
				st.Count[g]++
				continue
			}
			v := arg.Int(r)
			switch ag.Kind {
			case gpuexec.GroupCount:
			case gpuexec.GroupSumInt:
				lo, carry := bits.Add64(st.Lo[g], uint64(v), 0)
				st.Lo[g], st.Hi[g] = lo, st.Hi[g]+int64(carry)+(v>>63)
			case gpuexec.GroupMinInt, gpuexec.GroupMaxInt:
				if st.Count[g] == 0 || (ag.Kind == gpuexec.GroupMinInt) == (v < int64(st.Lo[g])) && v != int64(st.Lo[g]) {
					st.Lo[g] = uint64(v)
				}
			default:
				return nil, fmt.Errorf("hostGroupBy: no twin for aggregate kind %d", ag.Kind)
			}
			st.Count[g]++
		}
	}
	cols := make([]*coldata.Vec, len(kb))
	for i, b := range kb {
		cols[i] = b.Finish()
	}
	n := len(groups)
	if len(keys) == 0 && hb.Len == 0 {
		n = 0
	}
	out.Keys = coldata.NewBatch(cols, n)
	return out, nil
}

func isFloatAgg(k gpuexec.GroupAggKind) bool {
	return k == gpuexec.GroupSumFloat || k == gpuexec.GroupMinFloat || k == gpuexec.GroupMaxFloat
}

// cpuAggregate is the CPU's answer: HashAggregate over the host batches.
func cpuAggregate(t *testing.T, batches []*coldata.Batch, keys []int, aggs []opspec.AggSpec) *coldata.Batch {
	t.Helper()
	var kexprs []expr.Expr
	for _, k := range keys {
		kexprs = append(kexprs, &expr.ColumnRef{Index: k, Name: fmt.Sprint("k", k), T: batches[0].Cols[k].Type})
	}
	h := &operators.HashAggregate{Input: &operators.Materialized{Batches: batches}, Keys: kexprs, Aggs: aggs}
	ctx := context.Background()
	if err := h.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out []*coldata.Batch
	for {
		b, err := h.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return &coldata.Batch{}
	}
	return coldata.Concat(out, len(out[0].Cols))
}

// distAggCase is a GROUP BY of the test: keys and aggregates over
// exchangeBatch's columns (0 BIGINT, 1 VARCHAR, 5 the BIGINT payload).
type distAggCase struct {
	keys []int
	aggs []opspec.AggSpec
}

func distAggCases() []distAggCase {
	ref := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, Name: fmt.Sprint("c", i), T: coldata.Int64} }
	all := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: ref(0), Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: ref(5), Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: ref(0), Type: coldata.Int64},
		{Kind: opspec.AggMax, Arg: ref(5), Type: coldata.Int64},
	}
	return []distAggCase{
		{[]int{0}, all},
		{[]int{1}, all},
		{[]int{1, 0}, all[:3]},
		{nil, all},
	}
}

func TestFakeDistributedAggregate(t *testing.T) {
	ctx := context.Background()
	devs, _ := gpuexec.FakeDevices(t, 3, func(from, to int) bool { return from != 2 && to != 2 })
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	group := &exchange.Group{Devices: devs, Transport: local, Split: exchange.HostSplit}
	r := rand.New(rand.NewSource(99))
	var batches []*coldata.Batch
	base := 0
	for _, n := range []int{700, 0, 1500, 33, 900, 1} {
		batches = append(batches, exchangeBatch(r, n, base))
		base += n
	}
	in, err := operators.SpreadRoundRobin(ctx, devs, batches)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	for _, c := range distAggCases() {
		want := cpuAggregate(t, batches, c.keys, c.aggs)
		for _, merge := range []bool{false, true} {
			name := fmt.Sprintf("keys %v merge %v", c.keys, merge)
			keyTypes := make([]coldata.Type, len(c.keys))
			for i, k := range c.keys {
				keyTypes[i] = batches[0].Cols[k].Type
			}
			da := &operators.DistributedAggregate{Group: group, Keys: c.keys, KeyTypes: keyTypes, Aggs: c.aggs, Merge: merge, GroupOn: hostGroupBy}
			got, err := da.Run(ctx, in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if w, g := rowKeys(want), rowKeys(got); !slices.Equal(w, g) {
				t.Fatalf("%s: %d groups, want %d\ngot  %.5q\nwant %.5q", name, len(g), len(w), g, w)
			}
		}
	}
	// No rows at all: one row without keys, none with.
	empty := make(exchange.Parts, 3)
	for _, c := range []struct {
		keys []int
		rows int
	}{{nil, 1}, {[]int{0}, 0}} {
		da := &operators.DistributedAggregate{Group: group, Keys: c.keys, KeyTypes: []coldata.Type{coldata.Int64}[:len(c.keys)],
			Aggs: distAggCases()[0].aggs, GroupOn: hostGroupBy}
		got, err := da.Run(ctx, empty)
		if err != nil || got.Len != c.rows {
			t.Fatalf("no rows, keys %v: %v rows, %v", c.keys, got, err)
		}
	}
	// DISTINCT has no partial state to distribute.
	distinct := &operators.DistributedAggregate{Group: group, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64},
		Aggs: []opspec.AggSpec{{Kind: opspec.AggCount, Arg: &expr.ColumnRef{Index: 5, T: coldata.Int64}, Distinct: true, Type: coldata.Int64}}}
	if _, err := distinct.Run(ctx, in); err == nil {
		t.Fatal("DISTINCT accepted")
	}
	// A failing device's error comes back, wrapped.
	boom := errors.New("boom")
	failing := &operators.DistributedAggregate{Group: group, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: distAggCases()[0].aggs,
		GroupOn: func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, []gpuexec.GroupAgg) (*gpuexec.GroupPartial, error) {
			return nil, boom
		}}
	if _, err := failing.Run(ctx, in); !errors.Is(err, boom) {
		t.Fatalf("failing device: %v", err)
	}
}
