package operators_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestHashJoinMatchesNestedLoop compares hash joins (inner and left, one
// and two key columns, with and without a residual condition) row for row,
// in order, against a reference nested loop: per left batch, the pairs in
// left row order and build order, then the unmatched left rows.
func TestHashJoinMatchesNestedLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	perm := rng.Perm(3000)
	randBatch := func(n, domain int, withVal, nulls bool) *coldata.Batch {
		k1, k2 := coldata.NewBuilder(tInt, n), coldata.NewBuilder(tStr, n)
		val := coldata.NewVec(tInt, n)
		for i := 0; i < n; i++ {
			if nulls && rng.Intn(8) == 0 {
				k1.AppendNull()
			} else if domain < 0 {
				// Unique build keys: the next value of a permutation.
				k1.AppendInt(int64(perm[0]))
				perm = perm[1:]
			} else {
				k1.AppendInt(int64(rng.Intn(domain)))
			}
			if nulls && rng.Intn(8) == 0 {
				k2.AppendNull()
			} else {
				k2.AppendString(fmt.Sprint("s", rng.Intn(3)))
			}
			val.Ints[i] = int64(rng.Intn(2 * max(domain, 300)))
		}
		cols := []*coldata.Vec{k1.Finish(), k2.Finish()}
		if withVal {
			cols = append(cols, val)
		}
		return coldata.NewBatch(cols, n)
	}
	type condFn func(l *coldata.Batch, lr int, r *coldata.Batch, rr int) bool
	// Domain -1: unique build keys without NULLs, probed with 0..2999.
	for _, domain := range []int{5, 200, -1} {
		leftDomain := domain
		if domain < 0 {
			leftDomain = 3000
		}
		var lbs, rbs []*coldata.Batch
		for i := 0; i < 3; i++ {
			lbs = append(lbs, randBatch(1+rng.Intn(700), leftDomain, false, true))
			rbs = append(rbs, randBatch(rng.Intn(400), domain, true, domain > 0))
		}
		build := coldata.Concat(rbs, 3)
		for _, nkeys := range []int{1, 2} {
			for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin} {
				for ci, cond := range []struct {
					e   func(t *testing.T) expr.Expr
					ref condFn
				}{
					{nil, func(*coldata.Batch, int, *coldata.Batch, int) bool { return true }},
					// right.val > left.k1
					{func(t *testing.T) expr.Expr { return fn(t, ">", colRef(4, tInt), colRef(0, tInt)) },
						func(l *coldata.Batch, lr int, r *coldata.Batch, rr int) bool {
							return !l.Cols[0].IsNull(lr) && r.Cols[2].Int(rr) > l.Cols[0].Int(lr)
						}},
					// Never true: whole slices of pairs fail.
					{func(t *testing.T) expr.Expr { return fn(t, "<", colRef(4, tInt), lit(-1, tInt)) },
						func(*coldata.Batch, int, *coldata.Batch, int) bool { return false }},
				} {
					name := fmt.Sprintf("domain %d keys %d kind %d cond %d", domain, nkeys, kind, ci)
					keys := []expr.Expr{colRef(0, tInt), colRef(1, tStr)}[:nkeys]
					j := &operators.HashJoin{
						Left: src(lbs...), Right: src(rbs...), LeftKeys: keys, RightKeys: keys,
						Kind: kind, LeftCols: 2, RightTypes: []coldata.Type{tInt, tStr, tInt},
					}
					if cond.e != nil {
						j.Cond = cond.e(t)
					}
					var want [][]any
					var lk, rk []byte
					for _, lb := range lbs {
						var unmatched [][]any
						for lr := 0; lr < lb.Len; lr++ {
							matched := false
							lk = opspec.AppendRowKey(lk[:0], lb.Cols[:nkeys], lr)
							nullKey := false
							for _, c := range lb.Cols[:nkeys] {
								nullKey = nullKey || c.IsNull(lr)
							}
							for rr := 0; rr < build.Len && !nullKey; rr++ {
								rk = opspec.AppendRowKey(rk[:0], build.Cols[:nkeys], rr)
								if string(lk) == string(rk) && cond.ref(lb, lr, build, rr) {
									matched = true
									want = append(want, r(lb.Cols[0].Value(lr), lb.Cols[1].Value(lr),
										build.Cols[0].Value(rr), build.Cols[1].Value(rr), build.Cols[2].Value(rr)))
								}
							}
							if !matched && kind == opspec.LeftJoin {
								unmatched = append(unmatched, r(lb.Cols[0].Value(lr), lb.Cols[1].Value(lr), nil, nil, nil))
							}
						}
						want = append(want, unmatched...)
					}
					checkRows(t, name, run(t, j), want)
				}
			}
		}
	}
}

// TestHashJoinNullTypedKeys: a key of the NULL type on either side matches
// nothing; LEFT JOIN keeps every probe row.
func TestHashJoinNullTypedKeys(t *testing.T) {
	tNull := coldata.Null
	nulls := func() *coldata.Vec { return coldata.NewConst(tNull, nil, 3) }
	ints := func() *coldata.Vec { return mkVec(tInt, 1, 2, 3) }
	for _, tc := range []struct {
		name        string
		left, right func() *coldata.Vec
		lt, rt      coldata.Type
	}{
		{"NULL probe keys", nulls, ints, tNull, tInt},
		{"NULL build keys", ints, nulls, tInt, tNull},
	} {
		for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin} {
			j := &operators.HashJoin{
				Left: src(mkBatch(tc.left())), Right: src(mkBatch(tc.right())),
				LeftKeys: []expr.Expr{colRef(0, tc.lt)}, RightKeys: []expr.Expr{colRef(0, tc.rt)},
				Kind: kind, LeftCols: 1, RightTypes: []coldata.Type{tc.rt},
			}
			got := run(t, j)
			if want := map[opspec.JoinKind]int{opspec.InnerJoin: 0, opspec.LeftJoin: 3}[kind]; len(got) != want {
				t.Errorf("%s, kind %d: %d rows, want %d", tc.name, kind, len(got), want)
			}
			for _, row := range got {
				if row[1] != nil {
					t.Errorf("%s: matched %v", tc.name, row)
				}
			}
		}
	}
}
