package gsql

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// Unique keys on INSERT (MySQL's semantics): the new rows are checked, in
// order, against one hash set per key (catalog.KeySet) built once over
// the table's snapshot, and against the rows before them. A plain INSERT
// fails whole on the first duplicate (error 1062); INSERT IGNORE skips the
// row with a warning; REPLACE deletes the rows it collides with; ON
// DUPLICATE KEY UPDATE updates the first row it collides with instead.
// Rows that only add go through catalog.AppendAt, a rewrite through
// catalog.Replace, both at the snapshot's version: a table changed
// meanwhile fails the statement (ErrConflict) and nothing changes. Large
// inserts on a GPU database ask the device first (keycheck.go).

// Warning is a note about a statement that succeeded (MySQL's SHOW
// WARNINGS): INSERT IGNORE's skipped rows, a SELECT's invalid dates,
// divisions by zero and truncated numbers.
type Warning = expr.Warning

// onDup is ON DUPLICATE KEY UPDATE bound: assignment k sets column
// cols[k] to exprs[k], evaluated over the current row's columns then the
// new row's twice (VALUES(col), then the row alias).
type onDup struct {
	cols  []int
	exprs []expr.Expr
}

// rowLoc is where a row of the rewritten table is: row r of b.
type rowLoc struct {
	b *coldata.Batch
	r int
}

// insertKeyed writes rows into t under its unique keys; it returns the
// affected-row count as MySQL counts it (1 per row inserted or deleted, 2
// per row updated, 0 for an update that changes nothing) and warnings.
func (db *DB) insertKeyed(ctx context.Context, t *catalog.Table, keys []catalog.Key, s *sql.Insert, rows *coldata.Batch, dup *onDup) (int64, []Warning, error) {
	// Many rows on a GPU database: the device says whether any key
	// collides. When none does, every mode (IGNORE, REPLACE, ON
	// DUPLICATE KEY UPDATE) only adds the rows; otherwise the host's sets
	// below find the rows and name them in errors and warnings.
	if clean, err := db.keysCleanOnDevice(ctx, t, keys, rows); err != nil {
		return 0, nil, err
	} else if clean {
		if err := db.appendRows(t, rows); err != nil {
			return 0, nil, err
		}
		return int64(rows.Len), nil, nil
	}
	sets := db.keySets.take(t, keys)
	if sets == nil {
		var err error
		if sets, err = catalog.KeySets(t, keys); err != nil {
			return 0, nil, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
		}
	}
	if !s.Replace && dup == nil {
		n, warnings, version, err := db.insertChecked(t, sets, s.Ignore, rows)
		if err != nil {
			return 0, nil, err
		}
		db.keySets.put(t.Name, version, keys, sets)
		return n, warnings, nil
	}
	base, err := t.Batches()
	if err != nil {
		return 0, nil, err
	}
	// locs[id] is row id of the table being written: the snapshot's rows
	// (in order, as KeySets numbers them), then the new rows kept.
	locs := make([]rowLoc, 0, int(t.Rows)+rows.Len)
	for _, b := range base {
		for r := 0; r < b.Len; r++ {
			locs = append(locs, rowLoc{b, r})
		}
	}
	live := make([]bool, len(locs), cap(locs))
	for i := range live {
		live[i] = true
	}
	forget := func(id int) {
		for _, set := range sets {
			set.Remove(locs[id].b, locs[id].r)
		}
	}
	var affected int64
	var warnings []Warning
	rewrite := false // a row of the snapshot was deleted or changed
	for r := 0; r < rows.Len; r++ {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		if s.Replace {
			// Every row sharing a key with the new one goes, then it is
			// inserted.
			for _, set := range sets {
				if id, ok := set.Find(rows, r); ok {
					forget(id)
					live[id] = false
					affected++
					rewrite = rewrite || id < int(t.Rows)
				}
			}
		} else if id, hit := firstHit(sets, rows, r); hit {
			changed, err := db.updateOnDup(t, sets, locs, id, rows, r, dup)
			if err != nil {
				if s.Ignore {
					if dk, ok := err.(*catalog.DuplicateKeyError); ok {
						warnings = append(warnings, Warning{Level: "Warning", Code: 1062, Msg: dk.Error()})
						continue
					}
				}
				return 0, nil, err
			}
			if changed {
				affected += 2
				rewrite = rewrite || id < int(t.Rows)
			}
			continue
		}
		id := len(locs)
		locs = append(locs, rowLoc{rows, r})
		live = append(live, true)
		for _, set := range sets {
			set.Put(rows, r, id)
		}
		affected++
	}
	if !rewrite {
		// Only additions: append the new rows still live.
		var idx []int
		for id := int(t.Rows); id < len(locs); id++ {
			if live[id] {
				idx = append(idx, id)
			}
		}
		return affected, warnings, db.appendRows(t, gatherRows(locs, idx, t.Columns))
	}
	var idx []int
	for id := range locs {
		if live[id] {
			idx = append(idx, id)
		}
	}
	out := gatherRows(locs, idx, t.Columns)
	var recs []arrow.Record
	if out.Len > 0 {
		recs = []arrow.Record{coldata.BatchToRecord(t.Schema(), out)}
	}
	if err := db.cat.Replace(t.Name, t.Version, recs, int64(out.Len)); err != nil {
		return 0, nil, err
	}
	return affected, warnings, nil
}

// insertChecked is a plain INSERT or INSERT IGNORE into a keyed table;
// it returns the table's version after the append, which sets then
// describe (row ids are positions in the table, as KeySets numbers them).
// On an error sets may hold rows that were not appended.
func (db *DB) insertChecked(t *catalog.Table, sets []*catalog.KeySet, ignore bool, rows *coldata.Batch) (int64, []Warning, uint64, error) {
	var keep []int
	var warnings []Warning
	for r := 0; r < rows.Len; r++ {
		dup := false
		for _, set := range sets {
			if _, ok := set.Find(rows, r); ok {
				if !ignore {
					return 0, nil, 0, set.Duplicate(rows, r)
				}
				warnings = append(warnings, Warning{Level: "Warning", Code: 1062, Msg: set.Duplicate(rows, r).Error()})
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		for _, set := range sets {
			set.Put(rows, r, int(t.Rows)+len(keep))
		}
		keep = append(keep, r)
	}
	if len(keep) < rows.Len {
		rows = coldata.GatherBatch(rows, keep)
	}
	version, err := db.cat.AppendVersion(t.Name, t.Version, rows)
	if err != nil {
		return 0, nil, 0, err
	}
	return int64(len(keep)), warnings, version, nil
}

// appendRows appends rows to snapshot t, provided the table is still at
// its version (the rows were checked against its keys).
func (db *DB) appendRows(t *catalog.Table, rows *coldata.Batch) error {
	if rows.Len == 0 {
		return nil
	}
	return db.cat.AppendAt(t.Name, t.Version, rows)
}

// firstHit is the row that row r collides with in the first key it
// collides in (MySQL updates the row of the first such key).
func firstHit(sets []*catalog.KeySet, b *coldata.Batch, r int) (int, bool) {
	for _, set := range sets {
		if id, ok := set.Find(b, r); ok {
			return id, true
		}
	}
	return 0, false
}

// updateOnDup applies ON DUPLICATE KEY UPDATE to row id for new row r,
// assignments left to right, each seeing the ones before: it reports
// whether the row changed; a changed row whose key another row has is
// error 1062.
func (db *DB) updateOnDup(t *catalog.Table, sets []*catalog.KeySet, locs []rowLoc, id int, rows *coldata.Batch, r int, dup *onDup) (bool, error) {
	n := len(t.Columns)
	old := locs[id]
	cur := make([]*coldata.Vec, n)
	newRow := make([]*coldata.Vec, n)
	for c := 0; c < n; c++ {
		cur[c] = coldata.Gather(old.b.Cols[c], []int{old.r})
		newRow[c] = coldata.Gather(rows.Cols[c], []int{r})
	}
	in := &coldata.Batch{Cols: make([]*coldata.Vec, 3*n), Len: 1}
	copy(in.Cols[n:], newRow)
	copy(in.Cols[2*n:], newRow)
	for k, e := range dup.exprs {
		copy(in.Cols, cur)
		v, err := expr.Eval(e, in)
		if err != nil {
			return false, fmt.Errorf("ON DUPLICATE KEY UPDATE: %w", err)
		}
		c := dup.cols[k]
		if cur[c], err = convertColumn(v, t.Columns[c], 0); err != nil {
			return false, fmt.Errorf("ON DUPLICATE KEY UPDATE: %w", err)
		}
	}
	updated := &coldata.Batch{Cols: cur, Len: 1}
	same := true
	for c := 0; c < n && same; c++ {
		same = sameValue(cur[c], 0, old.b.Cols[c], old.r)
	}
	if same {
		return false, nil
	}
	for _, set := range sets {
		set.Remove(old.b, old.r)
	}
	for _, set := range sets {
		if _, ok := set.Find(updated, 0); ok {
			// Put the old row's keys back: the statement goes on under
			// INSERT IGNORE.
			for _, s := range sets {
				s.Put(old.b, old.r, id)
			}
			return false, set.Duplicate(updated, 0)
		}
	}
	for _, set := range sets {
		set.Put(updated, 0, id)
	}
	locs[id] = rowLoc{updated, 0}
	return true, nil
}

// sameValue reports whether a[i] and b[j] hold the same value (NULL is
// the same as NULL), as MySQL decides whether an update changed a row.
func sameValue(a *coldata.Vec, i int, b *coldata.Vec, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an == bn
	}
	return a.Value(i) == b.Value(j)
}

// gatherRows builds one batch of the rows locs[idx...], in that order.
func gatherRows(locs []rowLoc, idx []int, cols []catalog.Column) *coldata.Batch {
	out := &coldata.Batch{Cols: make([]*coldata.Vec, len(cols)), Len: len(idx)}
	for c, col := range cols {
		bld := coldata.NewBuilder(col.Type, len(idx))
		for _, id := range idx {
			bld.AppendFrom(locs[id].b.Cols[c], locs[id].r)
		}
		out.Cols[c] = bld.Finish()
	}
	return out
}

// bindInsert binds INSERT ... VALUES's rows (nil for INSERT ... SELECT)
// and ON DUPLICATE KEY UPDATE's assignments over the current row's
// columns, the new row's (VALUES(col)) and the row alias's.
func (db *DB) bindInsert(ctx context.Context, t *catalog.Table, s *sql.Insert, target []int, args []any) ([][]expr.Expr, *onDup, error) {
	var set []sqlparser.Expr
	var dup *onDup
	if len(s.OnDup) > 0 {
		dup = &onDup{}
		for _, a := range s.OnDup {
			ci := t.ColumnIndex(a.Column)
			if ci < 0 {
				return nil, nil, &planner.Error{Kind: planner.UnknownColumn, Object: a.Column, Msg: fmt.Sprintf("unknown column %q in table %s", a.Column, t.Name)}
			}
			dup.cols = append(dup.cols, ci)
			set = append(set, a.Expr)
		}
	}
	if s.AliasColumns != nil && len(s.AliasColumns) != len(t.Columns) {
		return nil, nil, errkind.Errorf(errkind.OperandColumns, "row alias %s names %d columns for %d", s.Alias, len(s.AliasColumns), len(t.Columns))
	}
	var cols []planner.ScopeColumn
	for _, c := range t.Columns {
		cols = append(cols, planner.ScopeColumn{Table: t.Name, Name: c.Name, Type: c.Type})
	}
	for _, c := range t.Columns {
		cols = append(cols, planner.ScopeColumn{Table: planner.ValuesTable, Name: c.Name, Type: c.Type, Hidden: true})
	}
	for i, c := range t.Columns {
		if s.Alias == "" {
			break
		}
		sc := planner.ScopeColumn{Table: s.Alias, Name: c.Name, Type: c.Type, Hidden: true}
		if s.AliasColumns != nil {
			sc.Name, sc.Hidden = s.AliasColumns[i], false
		}
		cols = append(cols, sc)
	}
	var rows [][]sqlparser.Expr
	if s.Select == nil {
		var err error
		if rows, err = withDefaults(t, target, s.Rows); err != nil {
			return nil, nil, err
		}
	}
	bound, exprs, err := db.planner.BindInsert(ctx, rows, len(target), set, cols, args)
	if err != nil {
		return nil, nil, err
	}
	if dup != nil {
		dup.exprs = exprs
	}
	return bound, dup, nil
}
