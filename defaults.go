package gsql

import (
	"context"
	"fmt"
	"regexp"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/sql"
)

// clockDefault is a clock function with its fractional digits, as MySQL
// writes DEFAULT CURRENT_TIMESTAMP(3).
var clockDefault = regexp.MustCompile(`(?i)^\s*(current_timestamp|now|localtimestamp|localtime)\s*\(\s*[0-6]?\s*\)\s*$`)

// defaultExpr parses column c's DEFAULT text into the expression an INSERT
// binds in its place.
func defaultExpr(c catalog.Column) (sqlparser.Expr, error) {
	text := c.Default
	if clockDefault.MatchString(text) {
		// CURRENT_TIMESTAMP(3): the column's DATETIME(n) rounds the
		// statement's time to its digits.
		text = "CURRENT_TIMESTAMP"
	}
	st, err := sql.ParseOne("SELECT " + text)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return nil, fmt.Errorf("not an expression")
	}
	s, ok := sel.Stmt.(*sqlparser.Select)
	if !ok || len(s.SelectExprs) != 1 || s.From != nil && len(s.From) > 1 || s.Where != nil {
		return nil, fmt.Errorf("not an expression")
	}
	ae, ok := s.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, fmt.Errorf("not an expression")
	}
	return ae.Expr, nil
}

// defaultValue is column c's DEFAULT evaluated for an INSERT
// (CURRENT_TIMESTAMP at the statement's time), converted to c's type.
func (db *DB) defaultValue(ctx context.Context, c catalog.Column) (any, error) {
	e, err := defaultExpr(c)
	if err != nil {
		return nil, &catalog.InvalidDefaultError{Column: c.Name, Err: err}
	}
	rows, _, err := db.planner.BindInsert(ctx, [][]sqlparser.Expr{{e}}, 1, nil, nil, nil)
	if err != nil {
		return nil, &catalog.InvalidDefaultError{Column: c.Name, Err: err}
	}
	b, err := valuesBatch(rows, 1, []coldata.Type{c.Type})
	if err != nil {
		return nil, &catalog.InvalidDefaultError{Column: c.Name, Err: err}
	}
	v, err := convertColumn(b.Cols[0], c, 0)
	if err != nil {
		return nil, &catalog.InvalidDefaultError{Column: c.Name, Err: err}
	}
	return v.Value(0), nil
}

// checkDefaults evaluates every DEFAULT of a new table's columns once, so
// that CREATE TABLE refuses one that is not a value of its column (MySQL's
// 1067: DEFAULT NULL on a NOT NULL column, a string that is no date).
func (db *DB) checkDefaults(ctx context.Context, cols []catalog.Column) error {
	for _, c := range cols {
		if c.Default == "" {
			continue
		}
		if _, err := db.defaultValue(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// withDefaults returns rows with each DEFAULT keyword replaced by its
// target column's DEFAULT expression (target[i] is the table column of
// value i); a column without one keeps the keyword, which binds as NULL.
func withDefaults(t *catalog.Table, target []int, rows [][]sqlparser.Expr) ([][]sqlparser.Expr, error) {
	out := rows
	for r, row := range rows {
		copied := false
		for i, e := range row {
			if _, ok := e.(*sqlparser.Default); !ok || i >= len(target) || t.Columns[target[i]].Default == "" {
				continue
			}
			de, err := defaultExpr(t.Columns[target[i]])
			if err != nil {
				return nil, &catalog.InvalidDefaultError{Column: t.Columns[target[i]].Name, Err: err}
			}
			if !copied {
				// The statement's rows stay as parsed (a cached plan's).
				if &out[0] == &rows[0] {
					out = append([][]sqlparser.Expr(nil), rows...)
				}
				out[r], copied = append([]sqlparser.Expr(nil), row...), true
			}
			out[r][i] = de
		}
	}
	return out, nil
}
