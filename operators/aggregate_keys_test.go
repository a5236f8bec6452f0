package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// keyPieces are string key values whose concatenations collide ("ab"+"c"
// is "a"+"bc"), with the empty string beside NULL (nil).
var keyPieces = []any{nil, "", "a", "b", "c", "ab", "bc", "abc", "a\x00", "\x00a", "ab\x00c"}

// collidingKeyBatches builds batches of nStr string key columns, then a
// BIGINT (0, and NULL in odd batches) and a DOUBLE (0, -0, NULL) key,
// every batch opening with tuples that differ only in where one string
// ends and the next begins, or in NULL against the empty string. The first
// two string columns draw from keyPieces; the others from "", "a" and "b",
// with NULLs in odd batches when nullsAfter, else never: a column without
// NULLs hashes and compares by loops of its own, which must agree with
// those for columns with NULLs.
func collidingKeyBatches(rng *rand.Rand, nb, rows, nStr int, nullsAfter bool) []*coldata.Batch {
	var out []*coldata.Batch
	for b := 0; b < nb; b++ {
		n := 8 + rows/2 + rng.Intn(rows/2)
		bs := make([]*coldata.Builder, nStr+2)
		for c := 0; c < nStr; c++ {
			bs[c] = coldata.NewBuilder(coldata.String, n)
		}
		bs[nStr], bs[nStr+1] = coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n)
		for r := 0; r < n; r++ {
			for c := 0; c < nStr; c++ {
				var v any
				switch {
				case r < 8 && c < 2:
					// ('ab','c') ('a','bc') ('abc','') ('','abc') (NULL,'')
					// ('',NULL) (NULL,NULL) ('','').
					v = [8][2]any{{"ab", "c"}, {"a", "bc"}, {"abc", ""}, {"", "abc"}, {nil, ""}, {"", nil}, {nil, nil}, {"", ""}}[r][c]
				case r < 8:
					v = ""
				case c < 2:
					v = keyPieces[rng.Intn(len(keyPieces))]
				case nullsAfter && b%2 == 1:
					v = keyPieces[rng.Intn(4)]
				default:
					v = keyPieces[1+rng.Intn(3)]
				}
				if v == nil {
					bs[c].AppendNull()
				} else {
					bs[c].AppendString(v.(string))
				}
			}
			if r >= 8 && b%2 == 1 && rng.Intn(3) == 0 {
				bs[nStr].AppendNull()
			} else {
				bs[nStr].AppendInt(0)
			}
			switch x := rng.Intn(3); {
			case r < 8 || x == 0:
				bs[nStr+1].AppendFloat(0)
			case x == 1:
				bs[nStr+1].AppendFloat(math.Copysign(0, -1))
			default:
				bs[nStr+1].AppendNull()
			}
		}
		cols := make([]*coldata.Vec, len(bs))
		for i, bl := range bs {
			cols[i] = bl.Finish()
		}
		out = append(out, coldata.NewBatch(cols, n))
	}
	return out
}

// TestGroupByKeysColumnAtATime groups by many keys, hashed, compared and
// stored a column at a time, against groups defined by AppendRowKey (each
// value apart, NULL apart from the empty string): rows with equal keys
// share a group, rows whose keys only concatenate alike do not, and the
// groups come out in order of first appearance with their row counts. Each
// way a batch reaches the table runs: one table, ranges of rows probing in
// parallel, and the partitioned path, each also with colliding hashes
// (every probe meets other tuples' tags, and new tuples guessed equal by
// their tag are checked and placed again).
func TestGroupByKeysColumnAtATime(t *testing.T) {
	for i, cfg := range []struct {
		nStr, rows int
		nullsAfter bool
	}{{2, 3000, false}, {3, 3000, true}, {3, 40000, false}, {9, 3000, true}} {
		// (Batches of up to 40K rows take scratch from the pools, whose
		// slices are longer than asked for.)
		nStr := cfg.nStr
		rng := rand.New(rand.NewSource(int64(i)))
		batches := collidingKeyBatches(rng, 6, cfg.rows, nStr, cfg.nullsAfter)
		var keys []expr.Expr
		types := make([]coldata.Type, 0, nStr+2)
		for c := 0; c < nStr; c++ {
			types = append(types, coldata.String)
		}
		types = append(types, coldata.Int64, coldata.Float64)
		for c, ty := range types {
			keys = append(keys, partCol(c, ty))
		}
		// The reference: groups by AppendRowKey, in first appearance.
		index := map[string]int{}
		var order []string
		var counts []int64
		var key []byte
		for _, b := range batches {
			for r := 0; r < b.Len; r++ {
				key = opspec.AppendRowKey(key[:0], b.Cols, r)
				g, ok := index[string(key)]
				if !ok {
					g = len(order)
					index[string(key)] = g
					order = append(order, string(key))
					counts = append(counts, 0)
				}
				counts[g]++
			}
		}
		for r := 0; r < 8; r++ {
			// The opening tuples are eight groups.
			if index[string(opspec.AppendRowKey(key[:0], batches[0].Cols, r))] != r {
				t.Fatalf("%d keys: the reference puts row %d in another group", nStr, r)
			}
		}
		for _, path := range []string{"table", "ranges", "parts"} {
			for _, weak := range []bool{false, true} {
				name := fmt.Sprintf("%d keys, %s, weak hash %v", nStr+2, path, weak)
				h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}}}
				// Batches as they come: with and without NULLs.
				h.weakHashHook, h.coalesceHook = weak, -1
				h.partState.threshold, h.rangeRowsHook = math.MaxInt, -1
				switch path {
				case "ranges":
					h.rangeRowsHook, h.rangeGroupsHook = 64, 1<<20
				case "parts":
					h.partState.threshold, h.partState.segGroups = 1000, 64
				}
				out, err := Drain(context.Background(), h)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if path == "ranges" && !h.rangesRan || path == "parts" && !h.merged && runtime.GOMAXPROCS(0) > 1 {
					t.Fatalf("%s: the path did not run", name)
				}
				got := 0
				for _, b := range out {
					for r := 0; r < b.Len; r++ {
						g := got
						got++
						if g >= len(order) {
							continue
						}
						if k := opspec.AppendRowKey(key[:0], b.Cols[:len(keys)], r); string(k) != order[g] {
							t.Fatalf("%s: group %d has another group's keys", name, g)
						}
						if c := b.Cols[len(keys)].Ints[r]; c != counts[g] {
							t.Fatalf("%s: group %d counts %d rows, want %d", name, g, c, counts[g])
						}
					}
				}
				if got != len(order) {
					t.Fatalf("%s: %d groups, want %d", name, got, len(order))
				}
			}
		}
	}
}
