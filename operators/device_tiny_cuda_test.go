//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// tinyRowsOf renders every row of bs as text, in order.
func tinyRowsOf(bs []*coldata.Batch) []string {
	var out []string
	for _, b := range bs {
		for i := 0; i < b.Len; i++ {
			row := ""
			for _, c := range b.Cols {
				if c.IsNull(i) {
					row += "NULL|"
				} else {
					row += fmt.Sprintf("%v|", c.Value(i))
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// drainDevice runs op to its end and returns its batches on the host.
func drainDevice(t *testing.T, rt *operators.DeviceRuntime, op operators.DeviceOperator) []*coldata.Batch {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []*coldata.Batch
	for {
		b, err := op.NextDevice(ctx)
		if err != nil {
			op.Close()
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		h, err := rt.Dev.Download(ctx, b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tinyJoinBatch makes n rows of k BIGINT (keys below domain, every
// seventh NULL; domain 1: every key 0), s VARCHAR and v BIGINT.
func tinyJoinBatch(r *rand.Rand, n, domain int) *coldata.Batch {
	k, s, v := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		if domain > 1 && r.Intn(7) == 0 {
			k.AppendNull()
		} else {
			k.AppendInt(int64(r.Intn(domain)))
		}
		s.AppendString([]string{"", "a", "b", "ab"}[r.Intn(4)])
		v.AppendInt(int64(r.Intn(100)))
	}
	return coldata.NewBatch([]*coldata.Vec{k.Finish(), s.Finish(), v.Finish()}, n)
}

// TestCUDATinyOnHost compares device joins and sorts whose inputs are
// tiny, run on the host, with the same operators on the device (the bound
// at 0) and with the CPU operators; and checks the fallbacks: a tiny join
// whose output is large, a join with one side not tiny, and a LIMIT whose
// candidates alone are tiny.
func TestCUDATinyOnHost(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	upload := func(hs ...*coldata.Batch) []*gpuexec.DeviceBatch {
		var out []*gpuexec.DeviceBatch
		for _, h := range hs {
			d, err := rt.Dev.Upload(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Release() })
			out = append(out, d)
		}
		return out
	}
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	lt, _ := expr.Lookup("<")
	cond, err := expr.NewCall(lt, []expr.Expr{&expr.ColumnRef{Index: 2, Name: "lv", T: coldata.Int64}, &expr.ColumnRef{Index: 5, Name: "rv", T: coldata.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		lrows, rrows  int
		domain        int
		host          bool // joined on the host
		kinds         []opspec.JoinKind
		keyL, keyR    []int
		withResiduals bool
	}{
		{"tiny", 25, 25, 10, true, []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin}, []int{0}, []int{0}, true},
		{"tiny text keys", 30, 20, 10, true, []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin}, []int{1, 0}, []int{1, 0}, false},
		// 300 x 300 rows of one key: 90,000 pairs, past the host's bound.
		{"large output", 300, 300, 1, false, []opspec.JoinKind{opspec.InnerJoin}, []int{0}, []int{0}, false},
		{"left not tiny", 5000, 25, 10, false, []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.AntiJoin}, []int{0}, []int{0}, false},
	} {
		lh, rh := tinyJoinBatch(r, c.lrows, c.domain), tinyJoinBatch(r, c.rrows, c.domain)
		// Two left batches, so that the read-ahead keeps both.
		lds := upload(coldata.SliceBatch(lh, 0, c.lrows/3), coldata.SliceBatch(lh, c.lrows/3, c.lrows))
		rds := upload(rh)
		for _, kind := range c.kinds {
			semi := kind == opspec.SemiJoin || kind == opspec.AntiJoin
			for _, residual := range []bool{false, true} {
				if residual && (!semi || !c.withResiduals) {
					continue
				}
				name := fmt.Sprintf("%s kind %d residual %v", c.name, kind, residual)
				lk := make([]expr.Expr, len(c.keyL))
				rk := make([]expr.Expr, len(c.keyR))
				for i := range c.keyL {
					lk[i] = &expr.ColumnRef{Index: c.keyL[i], T: types[c.keyL[i]]}
					rk[i] = &expr.ColumnRef{Index: c.keyR[i], T: types[c.keyR[i]]}
				}
				cpu := &operators.HashJoin{Left: &operators.Materialized{Batches: []*coldata.Batch{lh}}, Right: &operators.Materialized{Batches: []*coldata.Batch{rh}},
					LeftKeys: lk, RightKeys: rk, Kind: kind, LeftCols: 3, RightTypes: types}
				if residual {
					cpu.Cond = cond
				}
				all, err := operators.Drain(ctx, cpu)
				if err != nil {
					t.Fatal(err)
				}
				want := tinyRowsOf(all)
				slices.Sort(want)
				for _, bound := range []int{-1, 0} {
					restore := func() {}
					if bound == 0 {
						restore = operators.SetTinyRows(0)
					}
					st := &operators.Stats{}
					j := &operators.DeviceHashJoin{Left: &batchesSource{bs: lds}, Right: &batchesSource{bs: rds}, RT: rt,
						LeftKeys: c.keyL, RightKeys: c.keyR, Kind: kind, LeftTypes: types, RightTypes: types, RightInTypes: types, Stats: st}
					if semi {
						j.RightTypes = nil
					}
					if residual {
						j.Cond = cond
					}
					got := tinyRowsOf(drainDevice(t, rt, j))
					restore()
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("%s bound %d: %d rows, want %d", name, bound, len(got), len(want))
					}
					host := bound < 0 && c.host
					if n := st.HostJoins.Load(); (n > 0) != host {
						t.Errorf("%s bound %d: %d host joins, want host %v", name, bound, n, host)
					}
					if l := st.Launches.Load(); (l == 0) != host {
						t.Errorf("%s bound %d: %d launches, host %v", name, bound, l, host)
					}
				}
			}
		}
	}

	// Sorts: a tiny input whole, and a LIMIT over 200K rows whose
	// candidates are tiny.
	small := sortBatches([]int{15, 25}, 21)
	large := sortBatches([]int{120_000, 80_000}, 22)
	stypes := make([]coldata.Type, len(small[0].Cols))
	for i, c := range small[0].Cols {
		stypes[i] = c.Type
	}
	for _, s := range []struct {
		name  string
		hosts []*coldata.Batch
		keys  []opspec.SortKey
		limit int64
	}{
		{"tiny", small, []opspec.SortKey{{Col: 0}, {Col: 1, Desc: true}}, 0},
		{"tiny text", small, []opspec.SortKey{{Col: 5, Desc: true, Nulls: opspec.NullsFirst}, {Col: 6}}, 0},
		{"tiny limit", small, []opspec.SortKey{{Col: 1, Nulls: opspec.NullsLast}, {Col: 0, Desc: true}}, 4},
		{"tiny long text", small, []opspec.SortKey{{Col: 7}, {Col: 6}}, 0},
		{"candidates", large, []opspec.SortKey{{Col: 6, Desc: true}}, 5},
		{"candidates, several batches", large, []opspec.SortKey{{Col: 6}, {Col: 0}}, 9},
	} {
		all, err := operators.Drain(ctx, &operators.Sort{Input: &operators.Materialized{Batches: s.hosts}, Keys: s.keys, NCols: len(stypes), Limit: s.limit})
		if err != nil {
			t.Fatal(err)
		}
		want := tinyRowsOf(all)
		if s.limit > 0 && int64(len(want)) > s.limit {
			want = want[:s.limit]
		}
		for _, batches := range []int{1, len(s.hosts)} {
			var in []*gpuexec.DeviceBatch
			if batches == 1 {
				in = upload(coldata.Concat(s.hosts, len(stypes)))
			} else {
				in = upload(s.hosts...)
			}
			for _, bound := range []int{-1, 0} {
				restore := func() {}
				if bound == 0 {
					restore = operators.SetTinyRows(0)
				}
				st := &operators.Stats{}
				got := tinyRowsOf(drainDevice(t, rt, &operators.DeviceSort{Input: &batchesSource{bs: in}, RT: rt, Keys: s.keys, Types: stypes, Limit: s.limit, Stats: st}))
				restore()
				if s.limit > 0 && int64(len(got)) > s.limit {
					got = got[:s.limit]
				}
				name := fmt.Sprintf("sort %s, %d batches, bound %d", s.name, batches, bound)
				if !slices.Equal(got, want) {
					t.Fatalf("%s:\ngot  %q\nwant %q", name, got, want)
				}
				if n := st.HostOrders.Load(); (n > 0) != (bound < 0) {
					t.Errorf("%s: %d host orders of %d rows", name, n, st.HostOrderRows.Load())
				}
				if bound < 0 && strings.HasPrefix(s.name, "tiny") && st.Launches.Load() != 0 {
					t.Errorf("%s: %d launches", name, st.Launches.Load())
				}
				t.Logf("%s: %d launches, %d host orders of %d rows", name, st.Launches.Load(), st.HostOrders.Load(), st.HostOrderRows.Load())
			}
		}
	}
}
