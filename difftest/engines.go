package difftest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/gsqlengine/gsql"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// engines holds one dataset loaded into both engines.
type engines struct {
	g *gsql.DB
	s *sql.DB
}

// load builds d in a fresh in-memory gsql database (CPU device) and a
// fresh in-memory SQLite database.
func load(ctx context.Context, d *dataset) (*engines, error) {
	g, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		return nil, fmt.Errorf("open gsql: %w", err)
	}
	s, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	// One connection: every pooled connection to ":memory:" would be a
	// database of its own.
	s.SetMaxOpenConns(1)
	e := &engines{g: g, s: s}
	// LIKE is case-sensitive in gsql (a binary collation, like
	// utf8mb4_0900_bin); SQLite folds ASCII case unless told not to.
	if _, err := s.ExecContext(ctx, "PRAGMA case_sensitive_like = ON"); err != nil {
		e.close()
		return nil, fmt.Errorf("sqlite pragma: %w", err)
	}
	for _, st := range d.statements(dGSQL) {
		if _, err := g.Exec(ctx, st); err != nil {
			e.close()
			return nil, fmt.Errorf("gsql: %s: %w", st, err)
		}
	}
	for _, st := range d.statements(dSQLite) {
		if _, err := s.ExecContext(ctx, st); err != nil {
			e.close()
			return nil, fmt.Errorf("sqlite: %s: %w", st, err)
		}
	}
	return e, nil
}

func (e *engines) close() {
	e.g.Close()
	e.s.Close()
}

// cell is one normalised result value. Numbers of every representation
// (integers, doubles, decimals, booleans) become a float64 with the
// tolerance their representation implies; text stays text.
type cell struct {
	null bool
	num  bool
	f    float64
	tol  float64 // absolute tolerance beyond the relative one (decimals)
	s    string
}

// result is a query's normalised rows, or the error it gave.
type result struct {
	rows [][]cell
	err  error
}

func (c cell) String() string {
	switch {
	case c.null:
		return "NULL"
	case c.num:
		return strconv.FormatFloat(c.f, 'g', -1, 64)
	default:
		return strconv.Quote(c.s)
	}
}

// queryGSQL runs q on gsql through its Go API and normalises the cells
// from their Arrow types.
func (e *engines) queryGSQL(ctx context.Context, q string) result {
	rr, err := e.g.Query(ctx, q)
	if err != nil {
		return result{err: err}
	}
	defer rr.Release()
	var rows [][]cell
	for rr.Next() {
		rec := rr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]cell, rec.NumCols())
			for j := range row {
				row[j] = arrowCell(rec.Column(j), i)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		return result{err: err}
	}
	return result{rows: rows}
}

func arrowCell(col arrow.Array, i int) cell {
	if col.IsNull(i) {
		return cell{null: true}
	}
	switch a := col.(type) {
	case *array.Int64:
		return cell{num: true, f: float64(a.Value(i))}
	case *array.Float64:
		return cell{num: true, f: a.Value(i)}
	case *array.Boolean:
		// MySQL's booleans are the integers 1 and 0, as SQLite's are.
		if a.Value(i) {
			return cell{num: true, f: 1}
		}
		return cell{num: true, f: 0}
	case *array.String:
		return cell{s: a.Value(i)}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		f, err := strconv.ParseFloat(a.ValueStr(i), 64)
		if err != nil {
			return cell{s: a.ValueStr(i)}
		}
		// A decimal is rounded to its scale; SQLite's double is not.
		return cell{num: true, f: f, tol: 0.5 * math.Pow(10, -float64(scale))}
	}
	return cell{s: col.ValueStr(i)}
}

// querySQLite runs q on SQLite and normalises what database/sql returns.
func (e *engines) querySQLite(ctx context.Context, q string) result {
	rs, err := e.s.QueryContext(ctx, q)
	if err != nil {
		return result{err: err}
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return result{err: err}
	}
	var rows [][]cell
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return result{err: err}
		}
		row := make([]cell, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				row[i] = cell{null: true}
			case int64:
				row[i] = cell{num: true, f: float64(v)}
			case float64:
				row[i] = cell{num: true, f: v}
			case string:
				row[i] = cell{s: v}
			case []byte:
				row[i] = cell{s: string(v)}
			case bool:
				if v {
					row[i] = cell{num: true, f: 1}
				} else {
					row[i] = cell{num: true, f: 0}
				}
			default:
				row[i] = cell{s: fmt.Sprint(v)}
			}
		}
		rows = append(rows, row)
	}
	if err := rs.Err(); err != nil {
		return result{err: err}
	}
	return result{rows: rows}
}
