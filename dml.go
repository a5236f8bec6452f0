package gsql

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// UPDATE and DELETE compute the table's new rows with a query over the
// snapshot they read (every row kept or rewritten, in order) and publish
// them with one atomic catalog replace: a statement that fails changes
// nothing, readers see the old or the new rows, and a table changed by
// another statement meanwhile makes the statement fail (catalog.ErrConflict)
// instead of losing that change.

// isTrue is cond <=> TRUE: the rows a WHERE keeps (NULL is not TRUE).
func isTrue(cond sqlparser.Expr) sqlparser.Expr {
	return &sqlparser.ComparisonExpr{Operator: sqlparser.NullSafeEqualStr, Left: &sqlparser.ParenExpr{Expr: cond}, Right: sqlparser.BoolVal(true)}
}

func tableFrom(name string) sqlparser.TableExprs {
	return sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(name)}}}
}

func (db *DB) update(ctx context.Context, s *sql.Update, args []any) (int64, error) {
	t, err := db.cat.Get(s.Table)
	if err != nil {
		return 0, err
	}
	stages, err := updateStages(t, s.Set)
	if err != nil {
		return 0, err
	}
	// set holds every assigned column's last expression, for the
	// placeholder scan below.
	set := map[int]sqlparser.Expr{}
	for _, st := range stages {
		for ci, e := range st {
			set[ci] = e
		}
	}
	// The rows with whether each is updated, and the new values of the
	// updated rows only (so a SET expression never runs on a row the WHERE
	// leaves alone), both in table order; then merged.
	var hit sqlparser.Expr = sqlparser.BoolVal(true)
	if s.Where != nil {
		hit = isTrue(s.Where)
	}
	all := &sqlparser.Select{From: tableFrom(t.Name), SelectExprs: sqlparser.SelectExprs{&sqlparser.StarExpr{}, &sqlparser.AliasedExpr{Expr: hit}}}
	// The SET expressions' placeholders, so that this query takes the
	// statement's arguments too (as constants it only tests).
	for _, e := range set {
		sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			if v, ok := node.(*sqlparser.SQLVal); ok && v.Type == sqlparser.ValArg {
				all.SelectExprs = append(all.SelectExprs, &sqlparser.AliasedExpr{Expr: &sqlparser.IsExpr{Operator: sqlparser.IsNullStr, Expr: v}})
			}
			return true, nil
		}, e)
	}
	allCols, allBatches, err := db.collect(ctx, all, args)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", t.Name, err)
	}
	vals := &sqlparser.Select{From: tableFrom(t.Name)}
	if s.Where != nil {
		vals.Where = sqlparser.NewWhere(sqlparser.WhereStr, hit)
	}
	// Each stage but the last computes every column, over the one before,
	// in a derived table named as the table.
	for _, st := range stages[:len(stages)-1] {
		for ci, c := range t.Columns {
			var e sqlparser.Expr = &sqlparser.ColName{Name: sqlparser.NewColIdent(c.Name)}
			if x, ok := st[ci]; ok {
				e = x
			}
			vals.SelectExprs = append(vals.SelectExprs, &sqlparser.AliasedExpr{Expr: e, As: sqlparser.NewColIdent(c.Name)})
		}
		vals = &sqlparser.Select{From: sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: &sqlparser.Subquery{Select: vals}, As: sqlparser.NewTableIdent(t.Name)}}}
	}
	last := stages[len(stages)-1]
	var setCols []int
	for ci, c := range t.Columns {
		if _, ok := set[ci]; ok {
			var e sqlparser.Expr = &sqlparser.ColName{Name: sqlparser.NewColIdent(c.Name)}
			if x, ok := last[ci]; ok {
				e = x
			}
			vals.SelectExprs = append(vals.SelectExprs, &sqlparser.AliasedExpr{Expr: e})
			setCols = append(setCols, ci)
		}
	}
	valCols, valBatches, err := db.collect(ctx, vals, args)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", t.Name, err)
	}
	targets := make([]catalog.Column, len(setCols))
	for k, ci := range setCols {
		targets[k] = t.Columns[ci]
	}
	newVals, err := convertVecs(valBatches, valCols, targets)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", t.Name, err)
	}
	n := len(t.Columns)
	var rows, affected int64
	var merged []*coldata.Batch
	pos := 0 // next row of newVals
	for _, b := range allBatches {
		flag := b.Cols[n]
		cols := make([]*coldata.Vec, n)
		copy(cols, b.Cols[:n])
		builders := make([]*coldata.Builder, len(setCols))
		for k, ci := range setCols {
			builders[k] = coldata.NewBuilder(t.Columns[ci].Type, b.Len)
		}
		for r := 0; r < b.Len; r++ {
			upd := !flag.IsNull(r) && flag.Bool(r)
			for k, ci := range setCols {
				if upd {
					builders[k].AppendFrom(newVals[k], pos)
				} else {
					builders[k].AppendFrom(b.Cols[ci], r)
				}
			}
			if upd {
				pos++
				affected++
			}
		}
		for k, ci := range setCols {
			cols[ci] = builders[k].Finish()
		}
		merged = append(merged, &coldata.Batch{Cols: cols, Len: b.Len})
		rows += int64(b.Len)
	}
	if int64(pos) != affected || (len(newVals) > 0 && pos != newVals[0].Len) {
		return 0, fmt.Errorf("UPDATE %s: internal error: %d updated rows, %d new values", t.Name, affected, pos)
	}
	recs, rows, err := convertBatches(merged, allCols[:n], t.Columns)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", t.Name, err)
	}
	if keys := db.cat.UniqueKeys(t); len(keys) > 0 && affected > 0 {
		if err := checkUpdatedKeys(t, keys, allBatches, recs); err != nil {
			return 0, err
		}
	}
	if err := db.cat.Replace(t.Name, t.Version, recs, rows); err != nil {
		return 0, err
	}
	return affected, nil
}

// updateStages splits an UPDATE's assignments, left to right, into
// stages: a column assigned again, or read after its assignment, starts a
// new stage, computed over the one before. So SET a = a + 1, b = a reads
// the new a, and SET x = 3, x = 5 sets 5, as MySQL's single-table UPDATE
// does.
func updateStages(t *catalog.Table, set []sql.SetExpr) ([]map[int]sqlparser.Expr, error) {
	stages := []map[int]sqlparser.Expr{{}}
	for _, a := range set {
		ci := t.ColumnIndex(a.Column)
		if ci < 0 {
			return nil, &planner.Error{Kind: planner.UnknownColumn, Object: a.Column, Msg: fmt.Sprintf("unknown column %q in table %s", a.Column, t.Name)}
		}
		cur := stages[len(stages)-1]
		_, again := cur[ci]
		if again || readsAny(a.Expr, t, cur) {
			cur = map[int]sqlparser.Expr{}
			stages = append(stages, cur)
		}
		cur[ci] = a.Expr
	}
	return stages, nil
}

// readsAny reports whether e names one of cols of t (perhaps in a
// subquery: then a stage more than needed, never a wrong value).
func readsAny(e sqlparser.Expr, t *catalog.Table, cols map[int]sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if c, ok := node.(*sqlparser.ColName); ok {
			q := c.Qualifier.Name.String()
			if q == "" || strings.EqualFold(q, t.Name) {
				if _, ok := cols[t.ColumnIndex(c.Name.String())]; ok {
					found = true
				}
			}
		}
		return !found, nil
	}, e)
	return found
}

// checkUpdatedKeys checks an UPDATE's rows against the table's unique
// keys as MySQL does, row by row in table order: each updated row leaves
// its old key and takes its new one, which no other row may hold then
// (so SET a = a + 1 over a = 1, 2 fails on the first row, as in MySQL).
// old are the rows read (table columns first), recs the new ones.
func checkUpdatedKeys(t *catalog.Table, keys []catalog.Key, old []*coldata.Batch, recs []arrow.Record) error {
	sets, err := catalog.KeySets(t, keys)
	if err != nil {
		return fmt.Errorf("UPDATE %s: %w", t.Name, err)
	}
	var newRows []*coldata.Batch
	for _, r := range recs {
		b, err := coldata.RecordToBatch(r)
		if err != nil {
			return err
		}
		newRows = append(newRows, b)
	}
	n := len(t.Columns)
	nb, nr := 0, 0 // position in newRows
	id := 0
	for _, b := range old {
		flag := b.Cols[n]
		for r := 0; r < b.Len; r++ {
			for nb < len(newRows) && nr >= newRows[nb].Len {
				nb, nr = nb+1, 0
			}
			if !flag.IsNull(r) && flag.Bool(r) {
				for _, set := range sets {
					set.Remove(b, r)
				}
				for _, set := range sets {
					if _, ok := set.Find(newRows[nb], nr); ok {
						return set.Duplicate(newRows[nb], nr)
					}
					set.Put(newRows[nb], nr, id)
				}
			}
			nr++
			id++
		}
	}
	return nil
}

func (db *DB) delete(ctx context.Context, s *sql.Delete, args []any) (int64, error) {
	t, err := db.cat.Get(s.Table)
	if err != nil {
		return 0, err
	}
	sel := &sqlparser.Select{From: tableFrom(t.Name), SelectExprs: sqlparser.SelectExprs{&sqlparser.StarExpr{}}}
	if s.Where == nil {
		sel.Where = sqlparser.NewWhere(sqlparser.WhereStr, sqlparser.BoolVal(false))
	} else {
		sel.Where = sqlparser.NewWhere(sqlparser.WhereStr, &sqlparser.NotExpr{Expr: isTrue(s.Where)})
	}
	cols, batches, err := db.collect(ctx, sel, args)
	if err != nil {
		return 0, fmt.Errorf("DELETE FROM %s: %w", t.Name, err)
	}
	recs, rows, err := convertBatches(batches, cols, t.Columns)
	if err != nil {
		return 0, fmt.Errorf("DELETE FROM %s: %w", t.Name, err)
	}
	if err := db.cat.Replace(t.Name, t.Version, recs, rows); err != nil {
		return 0, err
	}
	return t.Rows - rows, nil
}

// convertVecs concatenates query output and converts each column to its
// target column's type, strictly (as an INSERT does).
func convertVecs(batches []*coldata.Batch, from []planner.Column, to []catalog.Column) ([]*coldata.Vec, error) {
	out := make([]*coldata.Vec, len(to))
	if len(batches) == 0 {
		for k, c := range to {
			out[k] = coldata.NewBuilder(c.Type, 0).Finish()
		}
		return out, nil
	}
	all := coldata.Concat(batches, len(from))
	for k := range to {
		v, err := convertColumn(all.Cols[k], to[k], 0)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// createView checks that the view's query plans now (unknown tables and
// columns are reported at CREATE VIEW, as MySQL does) and records it.
func (db *DB) createView(ctx context.Context, s *sql.CreateView) error {
	st, err := sql.ParseOne(s.Query)
	if err != nil {
		return err
	}
	// The query is checked, not run: its warnings (text read as a date)
	// come when the view is read, as in MySQL, and so does error 1525 for
	// constant text compared with a date that is none (planner.CheckingView).
	if _, err := db.plan(planner.CheckingView(expr.WithWarnings(ctx, nil)), st.(*sql.Select).Stmt, nil); err != nil {
		return fmt.Errorf("CREATE VIEW %s: %w", s.Name, err)
	}
	return db.cat.CreateView(s.Name, s.Query, s.OrReplace)
}

// describeTarget is a table's snapshot, or for a view a table-shaped
// description of its query's columns.
func (db *DB) describeTarget(ctx context.Context, name string) (*catalog.Table, error) {
	vname, query, ok := db.cat.View(name)
	if !ok {
		return db.cat.Get(name)
	}
	st, err := sql.ParseOne(query)
	if err != nil {
		return nil, err
	}
	// A description reads no rows: like CREATE VIEW, it does not fail on
	// constant text compared with a date (planner.CheckingView).
	n, err := db.plan(planner.CheckingView(expr.WithWarnings(ctx, nil)), st.(*sql.Select).Stmt, nil)
	if err != nil {
		return nil, fmt.Errorf("view %s: %w", vname, err)
	}
	t := &catalog.Table{Name: vname}
	for _, c := range n.Columns() {
		t.Columns = append(t.Columns, catalog.Column{Name: c.Name, Type: c.Type})
	}
	return t, nil
}
