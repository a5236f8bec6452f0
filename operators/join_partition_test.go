package operators_test

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// joinTestBatch returns n rows of (k1 BIGINT, k2 VARCHAR, k3 DOUBLE, k4
// BOOLEAN, val BIGINT) with keys drawn from [0, domain): from perm in turn
// (unique keys) when perm is not nil, and NULL keys one time in eight with
// nulls. DOUBLE keys include -0 besides 0.
func joinTestBatch(rng *rand.Rand, n, domain int, perm *[]int, nulls bool) *coldata.Batch {
	k1, k2 := coldata.NewBuilder(tInt, n), coldata.NewBuilder(tStr, n)
	k3, k4 := coldata.NewBuilder(tFloat, n), coldata.NewBuilder(tBool, n)
	val := coldata.NewVec(tInt, n)
	null := func() bool { return nulls && rng.Intn(8) == 0 }
	for i := 0; i < n; i++ {
		k := rng.Intn(domain)
		if perm != nil {
			k, *perm = (*perm)[0], (*perm)[1:]
		}
		if null() {
			k1.AppendNull()
		} else {
			k1.AppendInt(int64(k))
		}
		if null() {
			k2.AppendNull()
		} else {
			k2.AppendString(fmt.Sprintf("s%d", rng.Intn(domain)))
		}
		switch f := float64(rng.Intn(domain)) / 2; {
		case null():
			k3.AppendNull()
		case f == 0 && rng.Intn(2) == 0:
			k3.AppendFloat(math.Copysign(0, -1))
		default:
			k3.AppendFloat(f)
		}
		if null() {
			k4.AppendNull()
		} else {
			k4.AppendBool(rng.Intn(2) == 0)
		}
		val.Ints[i] = int64(rng.Intn(2 * domain))
	}
	return coldata.NewBatch([]*coldata.Vec{k1.Finish(), k2.Finish(), k3.Finish(), k4.Finish(), val}, n)
}

// nestedJoinRef is the reference output of a join of the left batches
// with the build rows on key columns keys (the same on both sides): per
// left batch, for inner and left joins the matching pairs in left row
// order and build order, then (left join) the unmatched left rows; for
// semi and anti joins the left rows kept, in order. cond filters pairs.
func nestedJoinRef(lbs []*coldata.Batch, build *coldata.Batch, keys []int, kind opspec.JoinKind, cond func(l *coldata.Batch, lr, rr int) bool) [][]any {
	keyCols := func(b *coldata.Batch) []*coldata.Vec {
		var cs []*coldata.Vec
		for _, k := range keys {
			cs = append(cs, b.Cols[k])
		}
		return cs
	}
	nullKey := func(b *coldata.Batch, r int) bool {
		for _, k := range keys {
			if b.Cols[k].IsNull(r) {
				return true
			}
		}
		return false
	}
	// Build rows by key, in build order (a nested loop over the build
	// rows, indexed).
	byKey := map[string][]int{}
	bcols := keyCols(build)
	for rr := 0; rr < build.Len; rr++ {
		if !nullKey(build, rr) {
			k := string(opspec.AppendRowKey(nil, bcols, rr))
			byKey[k] = append(byKey[k], rr)
		}
	}
	row := func(b *coldata.Batch, r int) []any {
		out := []any{}
		for _, c := range b.Cols {
			if r < 0 {
				out = append(out, nil)
			} else {
				out = append(out, c.Value(r))
			}
		}
		return out
	}
	var want [][]any
	for _, lb := range lbs {
		var unmatched [][]any
		lcols := keyCols(lb)
		for lr := 0; lr < lb.Len; lr++ {
			matched := false
			if !nullKey(lb, lr) {
				for _, rr := range byKey[string(opspec.AppendRowKey(nil, lcols, lr))] {
					if !cond(lb, lr, rr) {
						continue
					}
					matched = true
					if kind == opspec.InnerJoin || kind == opspec.LeftJoin {
						want = append(want, append(row(lb, lr), row(build, rr)...))
					}
				}
			}
			switch {
			case kind == opspec.LeftJoin && !matched:
				unmatched = append(unmatched, append(row(lb, lr), row(build, -1)...))
			case kind == opspec.SemiJoin && matched, kind == opspec.AntiJoin && !matched:
				want = append(want, row(lb, lr))
			}
		}
		want = append(want, unmatched...)
	}
	return want
}

// TestHashJoinPartitioned runs every join kind with the build side radix
// partitioned at small sizes (one row per partition up to one partition,
// probed on one to four goroutines) and compares the rows, in order, with
// a nested-loop reference: one and two key columns of every key type, NULL
// keys, duplicate and unique build keys, with and without a residual
// condition, and semi/anti joins that hash their left side.
func TestHashJoinPartitioned(t *testing.T) {
	type partCfg struct{ minRows, perPart, probeRows, gatherRows, procs int }
	cfgs := []partCfg{
		{1 << 40, 1 << 15, 1 << 12, 1 << 13, 2}, // the one-table path, for reference
		{1, 1, 1, 8, 4},                         // a partition per row, many goroutines
		{1, 16, 64, 24, 2},
		{0, 1 << 15, 1 << 12, 1 << 13, 1},  // one partition, empty build sides too
		{1 << 40, 1 << 15, 1 << 12, 16, 3}, // one table, parallel gathers
	}
	keySets := [][]int{{0}, {1}, {2}, {0, 1}, {2, 3}}
	kinds := []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin}
	rng := rand.New(rand.NewSource(7))
	type dataset struct {
		name     string
		lbs, rbs []*coldata.Batch
	}
	var sets []dataset
	for _, d := range []struct {
		name           string
		domain         int
		unique, nulls  bool
		lsizes, rsizes []int
		lnulls         bool // NULL keys on the left side only
	}{
		{"dups", 300, false, true, []int{900, 1, 700}, []int{400, 0, 600}, false},
		{"unique", 1500, true, false, []int{1000, 800}, []int{700, 500}, false},
		{"unique left nulls", 1500, true, false, []int{1000, 800}, []int{700, 500}, true},
		{"many dups", 40, false, true, []int{300, 200}, []int{150, 100}, false},
		// Scratch from the buffer pools has spare capacity: a larger
		// batch after a smaller one must not read its stale length.
		{"growing batches", 3000, false, false, []int{8300, 8600}, []int{1500, 500}, true},
		{"empty build", 40, false, true, []int{50}, nil, false},
		// Semi and anti joins hash the small left side.
		{"small left", 200, false, true, []int{30, 20}, []int{200, 300, 200}, false},
	} {
		var perm []int
		if d.unique {
			perm = rng.Perm(d.domain)
		}
		ds := dataset{name: d.name}
		for _, n := range d.lsizes {
			ds.lbs = append(ds.lbs, joinTestBatch(rng, n, d.domain*5/4, nil, d.nulls || d.lnulls))
		}
		for _, n := range d.rsizes {
			var p *[]int
			if d.unique {
				p = &perm
			}
			ds.rbs = append(ds.rbs, joinTestBatch(rng, n, d.domain, p, d.nulls))
		}
		sets = append(sets, ds)
	}
	types := []coldata.Type{tInt, tStr, tFloat, tBool, tInt}
	for _, cfg := range cfgs {
		t.Run(fmt.Sprintf("min%d/per%d/probe%d/gather%d/procs%d", cfg.minRows, cfg.perPart, cfg.probeRows, cfg.gatherRows, cfg.procs), func(t *testing.T) {
			defer operators.SetJoinPartitioning(cfg.minRows, cfg.perPart, cfg.probeRows)()
			defer operators.SetJoinGatherRows(cfg.gatherRows)()
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cfg.procs))
			for _, ds := range sets {
				build := coldata.Concat(ds.rbs, len(types))
				if len(ds.rbs) == 0 {
					build = coldata.NewBatch([]*coldata.Vec{coldata.NewVec(tInt, 0), coldata.NewVec(tStr, 0),
						coldata.NewVec(tFloat, 0), coldata.NewVec(tBool, 0), coldata.NewVec(tInt, 0)}, 0)
				}
				for _, keys := range keySets {
					for _, kind := range kinds {
						for ci := 0; ci < 2; ci++ {
							var lk, rk []expr.Expr
							for _, k := range keys {
								lk = append(lk, colRef(k, types[k]))
								rk = append(rk, colRef(k, types[k]))
							}
							j := &operators.HashJoin{
								Left: src(ds.lbs...), Right: src(ds.rbs...), LeftKeys: lk, RightKeys: rk,
								Kind: kind, LeftCols: len(types), RightTypes: types, Parallel: true,
							}
							cond := func(*coldata.Batch, int, int) bool { return true }
							if ci == 1 {
								// right.val > left.val
								j.Cond = fn(t, ">", colRef(len(types)+4, tInt), colRef(4, tInt))
								cond = func(l *coldata.Batch, lr, rr int) bool {
									return build.Cols[4].Int(rr) > l.Cols[4].Int(lr)
								}
							}
							name := fmt.Sprintf("%s keys %v kind %d cond %d", ds.name, keys, kind, ci)
							checkRows(t, name, run(t, j), nestedJoinRef(ds.lbs, build, keys, kind, cond))
						}
					}
				}
			}
		})
	}
}
