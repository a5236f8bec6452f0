package sortkey

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/opspec"
)

// TestSortMatchesComparator sorts random rows of every encoded type, with
// NULLs, both directions and explicit NULL placement, and checks the order
// against a stable sort by opspec.CompareValues; large inputs encode and
// sort in parallel ranges.
func TestSortMatchesComparator(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	words := []string{"", "a", "ab", "abc", "b", "MIDDLE EAST", "AFRICA", "x\x00y", "x"}
	col := func(typ coldata.Type, n int) *coldata.Vec {
		b := coldata.NewBuilder(typ, n)
		for i := 0; i < n; i++ {
			if r.Intn(9) == 0 {
				b.AppendNull()
				continue
			}
			switch typ.Physical() {
			case coldata.Int64:
				b.AppendInt(int64(r.Intn(50)) - 25)
			case coldata.Float64:
				b.AppendFloat(float64(r.Intn(40)) / 4)
			case coldata.String:
				b.AppendString(words[r.Intn(len(words))])
			case coldata.Decimal:
				b.AppendDec(decimal.FromInt64(int64(r.Intn(3000)) - 1500))
			case coldata.Bool:
				b.AppendBool(r.Intn(2) == 0)
			}
		}
		return b.Finish()
	}
	types := []coldata.Type{coldata.String, coldata.DecimalOf(15, 2), coldata.Int64, coldata.Float64, coldata.Bool}
	for _, n := range []int{0, 1, 7, 1000, 70_000} {
		for trial := 0; trial < 3; trial++ {
			var keys []Key
			for k := 0; k < 1+r.Intn(3); k++ {
				keys = append(keys, Key{Vec: col(types[r.Intn(len(types))], n), Desc: r.Intn(2) == 0, Nulls: opspec.NullOrder(r.Intn(3))})
			}
			rows := r.Perm(n)
			want := slices.Clone(rows)
			slices.SortStableFunc(want, func(a, b int) int {
				for _, k := range keys {
					an, bn := k.Vec.IsNull(a), k.Vec.IsNull(b)
					if an != bn && k.Nulls != opspec.NullsDefault {
						if an == (k.Nulls == opspec.NullsFirst) {
							return -1
						}
						return 1
					}
					c := opspec.CompareValues(k.Vec, a, k.Vec, b)
					if k.Desc {
						c = -c
					}
					if c != 0 {
						return c
					}
				}
				return 0
			})
			ok, err := Sort(context.Background(), keys, rows)
			if err != nil || !ok {
				t.Fatalf("n=%d: Sort: %v %v", n, ok, err)
			}
			if !slices.Equal(rows, want) {
				i := 0
				for i < n && rows[i] == want[i] {
					i++
				}
				t.Fatalf("n=%d trial %d: first difference at position %d: %s", n, trial, i, fmt.Sprint(keys[0].Desc, keys[0].Nulls))
			}
		}
	}
}

// TestSortCancelled: a cancelled context stops the sort with its error.
func TestSortCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := coldata.NewBuilder(coldata.Int64, 100_000)
	for i := 0; i < 100_000; i++ {
		b.AppendInt(int64(i * 7 % 1000))
	}
	rows := make([]int, 100_000)
	for i := range rows {
		rows[i] = i
	}
	if _, err := Sort(ctx, []Key{{Vec: b.Finish()}}, rows); err == nil {
		t.Fatal("no error from a cancelled sort")
	}
}
