package execbuild

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// runPlan builds and drains n, returning its rows as sorted strings.
func runPlan(t *testing.T, n planner.Node) []string {
	t.Helper()
	b, err := Build(n, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := b.Root.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Root.Close()
	var out []string
	for {
		bt, err := b.Root.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if bt == nil {
			break
		}
		for i := 0; i < bt.Len; i++ {
			var vals []string
			for _, c := range bt.Cols {
				vals = append(vals, fmt.Sprint(c.Value(i)))
			}
			out = append(out, strings.Join(vals, " "))
		}
	}
	sort.Strings(out)
	return out
}

// TestReorderJoinsDifferential plans random inner-join queries (comma
// lists and JOIN ... ON, equalities, one-table, three-table and constant
// predicates, an outer join among them) with and without ReorderJoins and
// checks that both plans return the same rows.
func TestReorderJoinsDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	cat := catalog.New()
	const ntab = 6
	for i := 0; i < ntab; i++ {
		name := fmt.Sprintf("t%d", i)
		cols := []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "v", Type: coldata.Int64}}
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
		n := 3 + r.Intn(8)
		k, v := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		for j := 0; j < n; j++ {
			for _, bld := range []*coldata.Builder{k, v} {
				if r.Intn(8) == 0 {
					bld.AppendNull()
				} else {
					bld.AppendValue(int64(r.Intn(5)))
				}
			}
		}
		if err := cat.Append(name, coldata.NewBatch([]*coldata.Vec{k.Finish(), v.Finish()}, n)); err != nil {
			t.Fatal(err)
		}
	}
	col := func(aliases []string) string {
		return aliases[r.Intn(len(aliases))] + "." + []string{"k", "v"}[r.Intn(2)]
	}
	for q := 0; q < 300; q++ {
		nt := 3 + r.Intn(4)
		var aliases, from []string
		for i := 0; i < nt; i++ {
			a := fmt.Sprintf("a%d", i)
			aliases = append(aliases, a)
			from = append(from, fmt.Sprintf("t%d %s", r.Intn(ntab), a))
		}
		var preds []string
		for i := 1; i < nt; i++ {
			if r.Intn(5) > 0 { // sometimes disconnected: a cross product
				preds = append(preds, fmt.Sprintf("%s = %s", col(aliases[:i]), col(aliases[i:i+1])))
			}
		}
		switch r.Intn(5) {
		case 0:
			preds = append(preds, fmt.Sprintf("%s > 1", col(aliases)))
		case 1:
			preds = append(preds, fmt.Sprintf("%s + %s >= %s", col(aliases), col(aliases), col(aliases)))
		case 2:
			preds = append(preds, "1 = 1", fmt.Sprintf("(%s = 2 OR %s < 3)", col(aliases), col(aliases)))
		}
		fromText := strings.Join(from, ", ")
		if r.Intn(3) == 0 {
			// An outer join: a barrier, with a JOIN ... ON tree beside it.
			// (Comma binds looser than JOIN: ON sees the last table only.)
			last := aliases[nt-1:]
			fromText = fmt.Sprintf("%s LEFT JOIN t%d lj ON lj.k = %s JOIN t%d jj ON jj.v = %s", fromText, r.Intn(ntab), col(last), r.Intn(ntab), col(append(last, "lj")))
		}
		text := "SELECT * FROM " + fromText
		if len(preds) > 0 {
			text += " WHERE " + strings.Join(preds, " AND ")
		}
		st, err := sql.ParseOne(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		n, err := (&planner.Planner{Catalog: cat, Run: Run}).BindSelect(context.Background(), st.(*sql.Select).Stmt, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if n, err = planner.FoldConstants(n); err != nil {
			t.Fatal(err)
		}
		plain := runPlan(t, planner.PruneColumns(planner.PushFilters(n)))
		reordered := runPlan(t, planner.PruneColumns(planner.PushFilters(planner.ReorderJoins(planner.PushFilters(n)))))
		if again := runPlan(t, planner.PruneColumns(planner.PushFilters(planner.ReorderJoins(n)))); strings.Join(again, "\n") != strings.Join(reordered, "\n") {
			t.Fatalf("%s: reordering before and after PushFilters disagree", text)
		}
		if strings.Join(plain, "\n") != strings.Join(reordered, "\n") {
			t.Fatalf("%s:\nFROM order (%d rows):\n%s\nreordered (%d rows):\n%s\nplan:\n%s", text, len(plain), strings.Join(plain, "\n"),
				len(reordered), strings.Join(reordered, "\n"), strings.Join(planner.Explain(planner.PruneColumns(planner.PushFilters(planner.ReorderJoins(n)))), "\n"))
		}
	}
}
