package operators

import (
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// The cut again over the groups every partition's cut kept: the K first
// by the term (a key or an aggregate), NULLs where the term puts them,
// the K-th's ties where further terms need them; a term without ordering
// words (text) keeps every group.
func TestCutTopGroups(t *testing.T) {
	key := coldata.NewBuilder(coldata.Int64, 0)
	val := coldata.NewBuilder(coldata.Int64, 0)
	txt := coldata.NewBuilder(coldata.String, 0)
	for i, v := range []any{int64(5), nil, int64(9), int64(7), int64(9), int64(1), int64(7)} {
		key.AppendInt(int64(i))
		if v == nil {
			val.AppendNull()
		} else {
			val.AppendInt(v.(int64))
		}
		txt.AppendString(fmt.Sprint(i))
	}
	b := coldata.NewBatch([]*coldata.Vec{key.Finish(), val.Finish(), txt.Finish()}, 7)
	keys := func(b *coldata.Batch) string { return fmt.Sprint(b.Cols[0].Ints[:b.Len]) }
	for _, c := range []struct {
		top  opspec.TopGroups
		want string
	}{
		{opspec.TopGroups{Agg: 0, Desc: true, Limit: 2}, "[2 4]"},                 // 9, 9 (DESC puts NULLs last)
		{opspec.TopGroups{Agg: 0, Desc: true, Limit: 3}, "[2 3 4]"},               // 9, 9, the first 7
		{opspec.TopGroups{Agg: 0, Desc: true, Limit: 3, Ties: true}, "[2 3 4 6]"}, // both 7s
		{opspec.TopGroups{Agg: 0, Limit: 2}, "[1 5]"},                             // ASC: NULL first, then 1
		{opspec.TopGroups{Agg: 0, Limit: 2, Nulls: opspec.NullsLast}, "[0 5]"},
		{opspec.TopGroups{Agg: 0, Key: true, Desc: true, Limit: 2}, "[5 6]"},
		{opspec.TopGroups{Agg: -1, Limit: 2}, "[0 1]"},
		{opspec.TopGroups{Agg: 1, Limit: 2}, "[0 1 2 3 4 5 6]"},
		{opspec.TopGroups{Agg: 0, Limit: 9}, "[0 1 2 3 4 5 6]"},
	} {
		if got := keys(cutTopGroups(&c.top, 1, b)); got != c.want {
			t.Errorf("%+v: groups %s, want %s", c.top, got, c.want)
		}
	}
}
