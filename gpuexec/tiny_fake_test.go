package gpuexec_test

// Device sorts and joins over tiny inputs run on the host (operators'
// device_tiny.go): the input downloaded, the CPU operator's code, the
// output uploaded, and no kernel launched. The fake driver runs no
// generated kernels, so these paths run here end to end (the device
// paths they replace need the gather kernels: TestCUDATinyOnHost in
// operators compares both on a GPU).

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// tinyDevice opens a fake device whose background compiles (the
// interpreter, the gathers the operators prepare) end before its cache
// folder is removed.
func tinyDevice(t *testing.T) (*gpuexec.Device, *operators.DeviceRuntime) {
	devs, _ := gpuexec.FakeDevices(t, 1, nil)
	dev := devs[0]
	t.Cleanup(func() {
		<-dev.InterpreterDone()
		for end := time.Now().Add(10 * time.Second); dev.CompilesQueued() > 0 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
	})
	return dev, &operators.DeviceRuntime{Dev: dev}
}

// tinyColumns builds n rows of columns from gen(col, row) (nil: NULL).
func tinyColumns(types []coldata.Type, n int, gen func(c, r int) any) *coldata.Batch {
	cols := make([]*coldata.Vec, len(types))
	for c, t := range types {
		b := coldata.NewBuilder(t, n)
		for r := 0; r < n; r++ {
			if v := gen(c, r); v == nil {
				b.AppendNull()
			} else {
				b.AppendValue(v)
			}
		}
		cols[c] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

// runDevice opens op, reads its device batches to the end, downloads them
// and returns their rows in order.
func runDevice(t *testing.T, dev *gpuexec.Device, op operators.DeviceOperator) []string {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b, err := op.NextDevice(ctx)
		if err != nil {
			op.Close()
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		hb, err := dev.Download(ctx, b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rowKeys(hb)...)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// hostRows returns every row of the CPU operator op, in order.
func hostRows(t *testing.T, op operators.Operator) []string {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var rows []string
	for {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		rows = append(rows, rowKeys(b)...)
	}
}

func TestFakeTinySortOnHost(t *testing.T) {
	dev, rt := tinyDevice(t)
	rng := rand.New(rand.NewSource(7))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.Int64}
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2}
	const n = 23
	all := tinyColumns(types, n, func(c, r int) any {
		if c == 3 {
			return int64(r) // the row's number, so that ties show their order
		}
		if rng.Intn(5) == 0 {
			return nil
		}
		switch c {
		case 0:
			return int64(rng.Intn(6) - 2)
		case 1:
			return []string{"", "a", "ab", "b", "B", "ä"}[rng.Intn(6)]
		}
		return floats[rng.Intn(len(floats))]
	})
	halves := []*coldata.Batch{coldata.SliceBatch(all, 0, 9), coldata.SliceBatch(all, 9, n)}
	key := func(col int, desc bool, nulls opspec.NullOrder) opspec.SortKey {
		return opspec.SortKey{Col: col, Desc: desc, Nulls: nulls}
	}
	for _, keys := range [][]opspec.SortKey{
		{key(0, false, opspec.NullsDefault)},
		{key(0, true, opspec.NullsDefault)},
		{key(0, true, opspec.NullsFirst)},
		{key(0, false, opspec.NullsLast)},
		{key(1, false, opspec.NullsDefault), key(0, true, opspec.NullsDefault)},
		{key(1, true, opspec.NullsDefault)},
		{key(2, false, opspec.NullsDefault)},
		{key(2, true, opspec.NullsLast), key(1, false, opspec.NullsDefault)},
	} {
		for _, limit := range []int64{0, 3, 11, 100} {
			for _, parts := range [][]*coldata.Batch{{all}, halves} {
				name := fmt.Sprintf("%v limit %d, %d batches", keys, limit, len(parts))
				want := hostRows(t, &operators.Sort{Input: &operators.Materialized{Batches: parts}, Keys: keys, NCols: len(types), Limit: limit})
				if limit > 0 && int64(len(want)) > limit {
					want = want[:limit]
				}
				st := &operators.Stats{}
				before := gpuexec.FakeLaunches(dev)
				got := runDevice(t, dev, &operators.DeviceSort{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: parts}, RT: rt},
					RT: rt, Keys: keys, Types: types, Stats: st, Limit: limit})
				if !slices.Equal(got, want) {
					t.Fatalf("%s:\ngot  %q\nwant %q", name, got, want)
				}
				if l := gpuexec.FakeLaunches(dev) - before; l != 0 || st.Launches.Load() != 0 {
					t.Errorf("%s: %d launches (%d counted), want none", name, l, st.Launches.Load())
				}
				if st.HostOrders.Load() != 1 || st.HostOrderRows.Load() != n {
					t.Errorf("%s: %d host orders of %d rows, want 1 of %d", name, st.HostOrders.Load(), st.HostOrderRows.Load(), n)
				}
			}
		}
	}
}

// tinyJoinCase is a device join's keys: columns of the left and right
// batches.
type tinyJoinCase struct {
	name        string
	left, right []int
}

func TestFakeTinyJoinOnHost(t *testing.T) {
	dev, rt := tinyDevice(t)
	rng := rand.New(rand.NewSource(11))
	// Left batches: k, s, v (the output columns), then e, a key column
	// the join reads but does not output. Right: k, s (output), w, x.
	ltypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.Int64}
	rtypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64}
	floats := []float64{math.Copysign(0, -1), 0, 1, 2.5}
	val := func(t coldata.Type) any {
		if rng.Intn(6) == 0 {
			return nil
		}
		switch t {
		case coldata.Int64:
			return int64(rng.Intn(8))
		case coldata.String:
			return []string{"", "a", "b", "ab"}[rng.Intn(4)]
		}
		return floats[rng.Intn(len(floats))]
	}
	left := tinyColumns(ltypes, 25, func(c, r int) any { return val(ltypes[c]) })
	right := tinyColumns(rtypes, 25, func(c, r int) any { return val(rtypes[c]) })
	lparts := []*coldata.Batch{coldata.SliceBatch(left, 0, 10), coldata.SliceBatch(left, 10, 25)}
	rparts := []*coldata.Batch{coldata.SliceBatch(right, 0, 17), coldata.SliceBatch(right, 17, 25)}
	const nlOut, nrOut = 3, 2
	cond, condHolds := kBelowW(t, left, right, nlOut)
	for _, kc := range []tinyJoinCase{
		{"bigint", []int{0}, []int{0}},
		{"text", []int{1}, []int{1}},
		{"two keys", []int{0, 1}, []int{0, 1}},
		{"key not output", []int{3}, []int{2}},
		{"double", []int{2}, []int{3}},
	} {
		for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
			for _, withCond := range []bool{false, true} {
				semi := kind == opspec.SemiJoin || kind == opspec.AntiJoin
				if withCond && !semi {
					continue // the device join takes a residual on semi and anti joins only
				}
				name := fmt.Sprintf("%s kind %d cond %v", kc.name, kind, withCond)
				want := nestedJoin(left, right, kc, kind, nlOut, nrOut, func(l, r int) bool { return !withCond || condHolds(l, r) })
				j := &operators.DeviceHashJoin{
					Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
					Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
					RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: kind,
					LeftTypes: ltypes[:nlOut], RightTypes: rtypes[:nrOut], RightInTypes: rtypes, Stats: &operators.Stats{},
				}
				if semi {
					j.RightTypes = nil
				}
				if withCond {
					j.Cond = cond
				}
				before := gpuexec.FakeLaunches(dev)
				got := runDevice(t, dev, j)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d rows, want %d\ngot  %q\nwant %q", name, len(got), len(want), got, want)
				}
				if l := gpuexec.FakeLaunches(dev) - before; l != 0 || j.Stats.Launches.Load() != 0 {
					t.Errorf("%s: %d launches (%d counted), want none", name, l, j.Stats.Launches.Load())
				}
				if j.Stats.HostJoins.Load() != 1 || j.Stats.HostJoinRows.Load() != 50 {
					t.Errorf("%s: %d host joins of %d rows, want 1 of 50", name, j.Stats.HostJoins.Load(), j.Stats.HostJoinRows.Load())
				}
			}
		}
	}
}

// kBelowW is the tiny joins' residual l.k < r.w (left column 0, right
// column 2) over the left output's nl columns then the right batch's, and
// the same test over rows of left and right.
func kBelowW(t *testing.T, left, right *coldata.Batch, nl int) (expr.Expr, func(l, r int) bool) {
	t.Helper()
	fn, _ := expr.Lookup("<")
	cond, err := expr.NewCall(fn, []expr.Expr{&expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}, &expr.ColumnRef{Index: nl + 2, Name: "w", T: coldata.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	return cond, func(l, r int) bool {
		a, b := left.Cols[0], right.Cols[2]
		return !a.IsNull(l) && !b.IsNull(r) && a.Int(l) < b.Int(r)
	}
}

// nestedJoin is the join of left and right by every pair (keys equal and
// not NULL, and cond), as sorted rows of the first nl left and nr right
// columns (left only for a semi or anti join).
func nestedJoin(left, right *coldata.Batch, kc tinyJoinCase, kind opspec.JoinKind, nl, nr int, cond func(l, r int) bool) []string {
	match := func(l, r int) bool {
		for i, lk := range kc.left {
			a, b := left.Cols[lk], right.Cols[kc.right[i]]
			if a.IsNull(l) || b.IsNull(r) || opspec.CompareValues(a, l, b, r) != 0 {
				return false
			}
		}
		return cond(l, r)
	}
	out := &coldata.Batch{}
	var bs []*coldata.Builder
	for c := 0; c < nl; c++ {
		bs = append(bs, coldata.NewBuilder(left.Cols[c].Type, 0))
	}
	if kind == opspec.InnerJoin || kind == opspec.LeftJoin {
		for c := 0; c < nr; c++ {
			bs = append(bs, coldata.NewBuilder(right.Cols[c].Type, 0))
		}
	}
	emit := func(l, r int) {
		for c := 0; c < nl; c++ {
			bs[c].AppendFrom(left.Cols[c], l)
		}
		for c := nl; c < len(bs); c++ {
			if r < 0 {
				bs[c].AppendNull()
			} else {
				bs[c].AppendFrom(right.Cols[c-nl], r)
			}
		}
		out.Len++
	}
	for l := 0; l < left.Len; l++ {
		matched := false
		for r := 0; r < right.Len; r++ {
			if match(l, r) {
				matched = true
				if kind == opspec.InnerJoin || kind == opspec.LeftJoin {
					emit(l, r)
				}
			}
		}
		if (kind == opspec.SemiJoin && matched) || (!matched && (kind == opspec.AntiJoin || kind == opspec.LeftJoin)) {
			emit(l, -1)
		}
	}
	for _, b := range bs {
		out.Cols = append(out.Cols, b.Finish())
	}
	rows := rowKeys(out)
	slices.Sort(rows)
	return rows
}

func TestFakeTinyGroupOnHost(t *testing.T) {
	dev, rt := tinyDevice(t)
	rng := rand.New(rand.NewSource(5))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64}
	in := tinyColumns(types, 30, func(c, r int) any {
		if rng.Intn(6) == 0 {
			return nil
		}
		switch c {
		case 0:
			return int64(rng.Intn(5))
		case 1:
			return []string{"", "a", "b", "ab"}[rng.Intn(4)]
		case 2:
			return int64(rng.Intn(100) - 50)
		}
		return rng.NormFloat64()
	})
	parts := []*coldata.Batch{coldata.SliceBatch(in, 0, 12), coldata.SliceBatch(in, 12, 30)}
	ref := func(i int, t coldata.Type) *expr.ColumnRef {
		return &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
	}
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: ref(2, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: ref(1, coldata.String), Type: coldata.String},
		{Kind: opspec.AggMax, Arg: ref(3, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggCount, Arg: ref(2, coldata.Int64), Type: coldata.Int64, Distinct: true},
	}
	for _, c := range []struct {
		name  string
		keys  []int
		parts []*coldata.Batch
	}{
		{"one key", []int{0}, parts},
		{"two keys", []int{1, 0}, parts},
		{"no key", nil, parts},
		{"no key, no rows", nil, nil},
		{"no rows", []int{0}, nil},
	} {
		keyTypes := make([]coldata.Type, len(c.keys))
		keys := make([]expr.Expr, len(c.keys))
		for i, k := range c.keys {
			keyTypes[i], keys[i] = types[k], ref(k, types[k])
		}
		want := hostRows(t, &operators.HashAggregate{Input: &operators.Materialized{Batches: c.parts}, Keys: keys, Aggs: aggs})
		if c.name == "one key" {
			// COUNT(*) per key, counted here too.
			counts := map[string]int{}
			for r := 0; r < in.Len; r++ {
				k := "NULL"
				if !in.Cols[0].IsNull(r) {
					k = fmt.Sprint(in.Cols[0].Int(r))
				}
				counts[k]++
			}
			total := 0
			for _, row := range want {
				var k string
				var n int
				fmt.Sscanf(strings.ReplaceAll(row[1:], "|", " "), "%s %d", &k, &n)
				if counts[k] != n {
					t.Errorf("HashAggregate counts %d rows of key %s, want %d", n, k, counts[k])
				}
				total += n
			}
			if total != in.Len || len(want) != len(counts) {
				t.Errorf("HashAggregate: %d groups of %d rows, want %d of %d", len(want), total, len(counts), in.Len)
			}
		}
		for _, device := range []bool{false, true} {
			name := fmt.Sprintf("%s device %v", c.name, device)
			st := &operators.Stats{}
			h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: c.parts}, RT: rt},
				RT: rt, Keys: c.keys, KeyTypes: keyTypes, Aggs: aggs, Stats: st}
			before := gpuexec.FakeLaunches(dev)
			var got []string
			if device {
				got = runDevice(t, dev, h)
			} else {
				got = hostRows(t, h)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s:\ngot  %q\nwant %q", name, got, want)
			}
			if l := gpuexec.FakeLaunches(dev) - before; l != 0 || st.Launches.Load() != 0 {
				t.Errorf("%s: %d launches (%d counted), want none", name, l, st.Launches.Load())
			}
			if st.HostAggs.Load() != 1 || st.HostAggRows.Load() != int64(len(c.parts)/2*in.Len) || st.HostGroups.Load() != 0 {
				t.Errorf("%s: %d host groupings of %d rows, %d groups finished on the host", name, st.HostAggs.Load(), st.HostAggRows.Load(), st.HostGroups.Load())
			}
		}
	}
}
