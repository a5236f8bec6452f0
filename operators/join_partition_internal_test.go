package operators

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// TestPartIndexMatchesGroupKeys checks that a partitioned build groups the
// rows exactly as one table does (the same ids, row order and starts) and
// that its probe finds the same ids, for partition counts from one to a
// partition per row and key columns of every kind.
func TestPartIndexMatchesGroupKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	vec := func(ty coldata.Type, n, domain int, nulls bool) *coldata.Vec {
		b := coldata.NewBuilder(ty, n)
		for i := 0; i < n; i++ {
			k := rng.Intn(domain)
			switch {
			case nulls && rng.Intn(10) == 0:
				b.AppendNull()
			case ty == coldata.Int64:
				b.AppendInt(int64(k) * 1_000_003)
			case ty == coldata.String:
				b.AppendString(fmt.Sprintf("key-%d", k))
			case ty == coldata.Float64:
				b.AppendFloat(float64(k) / 4)
			case ty == coldata.Bool:
				b.AppendBool(k%2 == 0)
			}
		}
		return b.Finish()
	}
	type keyCase struct {
		name   string
		types  []coldata.Type
		nulls  bool
		pnulls bool // NULL keys in the probe only
	}
	for _, kc := range []keyCase{
		{"int", []coldata.Type{coldata.Int64}, false, false},
		{"int probe nulls", []coldata.Type{coldata.Int64}, false, true},
		{"int nulls", []coldata.Type{coldata.Int64}, true, true},
		{"string", []coldata.Type{coldata.String}, false, false},
		{"string probe nulls", []coldata.Type{coldata.String}, false, true},
		{"double", []coldata.Type{coldata.Float64}, true, true},
		{"int string", []coldata.Type{coldata.Int64, coldata.String}, true, true},
		{"bool int", []coldata.Type{coldata.Bool, coldata.Int64}, false, false},
	} {
		// 1<<40: unique keys but for NULLs (in place; Q3's orders).
		for _, domain := range []int{7, 500, 1 << 20, 1 << 40} {
			for _, perPart := range []int{1, 13, 1 << 20} {
				name := fmt.Sprintf("%s domain %d per %d", kc.name, domain, perPart)
				n := 3000
				var build, probe []*coldata.Vec
				for _, ty := range kc.types {
					build = append(build, vec(ty, n, domain, kc.nulls))
					probe = append(probe, vec(ty, 2*n, domain, kc.pnulls))
				}
				restore := SetJoinPartitioning(0, perPart, 16)
				procs := runtime.GOMAXPROCS(4)
				x, start, order, unique, err := buildPartIndex(context.Background(), build, n)
				if err != nil {
					t.Fatal(err)
				}
				table, wstart, worder, err := groupKeys(context.Background(), build, n)
				if err != nil {
					t.Fatal(err)
				}
				// groupKeys keeps ids for NULL keys (with no rows): drop them.
				var kept []int32
				for g := 0; g < table.n; g++ {
					if wstart[g+1] > wstart[g] {
						kept = append(kept, wstart[g])
					}
				}
				kept = append(kept, wstart[table.n])
				if !slices.Equal(start, kept) || !slices.Equal(order, worder) {
					t.Errorf("%s: start/order differ from one table's", name)
				}
				wunique := len(kept)-1 == len(worder)
				if unique != wunique {
					t.Errorf("%s: unique %v, want %v", name, unique, wunique)
				}
				// Probe: the same key must find the same group.
				kvs := make([]keyVec, len(probe))
				for i, v := range probe {
					kvs[i].prepare(v, 2*n)
				}
				ids := make([]uint32, 2*n)
				var scratch indexScratch
				x.find(&scratch, kvs, 2*n, ids, runtime.GOMAXPROCS(0))
				defer scratch.release()
				wids := make([]uint32, 2*n)
				table.find(kvs, 0, 2*n, wids)
				null := nullRows(kvs, 2*n)
				for r := range ids {
					if null != nil && null[r] {
						continue
					}
					want := noID
					if g := wids[r]; g != noID {
						want = uint32(slices.Index(kept, wstart[g]))
					}
					if ids[r] != want {
						t.Errorf("%s: probe row %d: id %d, want %d", name, r, ids[r], want)
						break
					}
				}
				x.release()
				runtime.GOMAXPROCS(procs)
				restore()
			}
		}
	}
}

// TestGatherVecs compares the join's parallel gather with coldata.Gather
// for every physical type, with and without NULLs, and constants.
func TestGatherVecs(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n := 1000
	var srcs []*coldata.Vec
	for _, ty := range []coldata.Type{coldata.Int64, coldata.Float64, coldata.Bool, coldata.String, coldata.DecimalOf(12, 2)} {
		for _, nulls := range []bool{false, true} {
			b := coldata.NewBuilder(ty, n)
			for i := 0; i < n; i++ {
				if nulls && rng.Intn(5) == 0 {
					b.AppendNull()
					continue
				}
				switch ty.Physical() {
				case coldata.Int64:
					b.AppendInt(rng.Int63())
				case coldata.Float64:
					b.AppendFloat(rng.Float64())
				case coldata.Bool:
					b.AppendBool(rng.Intn(2) == 0)
				case coldata.String:
					b.AppendString(fmt.Sprint(rng.Intn(1 << 30))[:1+rng.Intn(5)])
				case coldata.Decimal:
					b.AppendDec(decimal.Int128{Lo: rng.Uint64(), Hi: int64(rng.Intn(3)) - 1})
				}
			}
			srcs = append(srcs, b.Finish())
		}
		srcs = append(srcs, coldata.NewConst(ty, nil, n))
	}
	srcs = append(srcs, coldata.NewConst(coldata.Int64, int64(7), n))
	for _, rows := range []int{8, 64, 1 << 13} {
		defer SetJoinGatherRows(rows)()
		procs := runtime.GOMAXPROCS(4)
		for _, m := range []int{0, 5, 777, 3000} {
			idx := make([]int, m)
			for i := range idx {
				idx[i] = rng.Intn(n)
			}
			var jobs []gatherJob
			for _, s := range srcs {
				jobs = append(jobs, gatherJob{s, idx})
			}
			got := gatherVecs(jobs, m, runtime.GOMAXPROCS(0))
			for i, s := range srcs {
				want := coldata.Gather(s, idx)
				for r := 0; r < m; r++ {
					if g, w := fmt.Sprint(got[i].Value(r)), fmt.Sprint(want.Value(r)); g != w {
						t.Fatalf("rows %d, %d indexes, column %d (%s) row %d: %s, want %s", rows, m, i, s.Type, r, g, w)
					}
				}
				if got[i].Len != m {
					t.Fatalf("column %d: %d rows, want %d", i, got[i].Len, m)
				}
			}
		}
		runtime.GOMAXPROCS(procs)
	}
}
