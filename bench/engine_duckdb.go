//go:build cgo && !noduckdb

package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	arrow17 "github.com/apache/arrow/go/v17/arrow"
	"github.com/marcboeker/go-duckdb"

	"github.com/gsqlengine/gsql/bench/internal/duckrows"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
)

// duckdbAvailable tells whether this build includes DuckDB.
const duckdbAvailable = true

// duckMacros define the MySQL functions of the suite that DuckDB lacks, so
// that the suite's SQL runs unchanged. SUBSTRING_INDEX(s, d, n): the part
// of s before the n-th occurrence of d (n > 0), or after the n-th from the
// end (n < 0). n = 1 and n = -1 (all the suite uses) map to DuckDB's native
// SPLIT_PART, with an explicit NULL test because DuckDB 1.1.3's SPLIT_PART
// returns an empty string for a NULL string; other counts go through a list
// of parts.
var duckMacros = []string{
	`CREATE OR REPLACE MACRO substring_index(s, d, n) AS
	   CASE WHEN s IS NULL OR d IS NULL OR n IS NULL THEN NULL
	        WHEN d = '' OR n = 0 THEN ''
	        WHEN n = 1 THEN split_part(s, d, 1)
	        WHEN n = -1 THEN split_part(s, d, -1)
	        WHEN n > 0 THEN list_reduce(string_split(s, d)[1:n], (x, y) -> x || d || y)
	        ELSE list_reduce(string_split(s, d)[n:], (x, y) -> x || d || y) END`,
}

// duckEngine runs the suite on DuckDB (go-duckdb, in process). Results are
// fetched through DuckDB's Arrow interface, so that both engines deliver
// columnar Arrow records to the caller.
type duckEngine struct {
	db    *sql.DB
	conn  *sql.Conn
	arrow *duckdb.Arrow
}

func openDuckDB() (*duckEngine, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("duckdb: open: %w", err)
	}
	db := sql.OpenDB(connector)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("duckdb: connect: %w", err)
	}
	e := &duckEngine{db: db, conn: conn}
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		e.arrow = a
		return err
	})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("duckdb: arrow interface: %w", err)
	}
	settings := duckMacros
	if duckdbMemoryLimit > 0 {
		settings = append([]string{fmt.Sprintf("SET memory_limit = '%dMiB'", duckdbMemoryLimit>>20)}, settings...)
	}
	for _, m := range settings {
		if _, err := conn.ExecContext(ctx, m); err != nil {
			e.Close()
			return nil, fmt.Errorf("duckdb: %s: %w", strings.Fields(m)[0], err)
		}
	}
	return e, nil
}

func (e *duckEngine) Name() string { return "duckdb" }

// Version returns DuckDB's version string and its thread count.
func (e *duckEngine) Version(ctx context.Context) string {
	var v, threads string
	if err := e.conn.QueryRowContext(ctx, "SELECT version(), current_setting('threads')::VARCHAR").Scan(&v, &threads); err != nil {
		return "unknown"
	}
	return v + ", " + threads + " threads"
}

// Load copies the records into a DuckDB table: the Arrow buffers are shared
// with DuckDB's Arrow scan (no per-row conversion) and CREATE TABLE AS
// materialises them in DuckDB's own storage.
func (e *duckEngine) Load(ctx context.Context, table string, schema *arrow17.Schema, recs []arrow17.Record) error {
	sc18, err := schemaToV18(schema)
	if err != nil {
		return fmt.Errorf("duckdb: load %s: %w", table, err)
	}
	recs18 := make([]arrow.Record, 0, len(recs))
	defer func() {
		for _, r := range recs18 {
			r.Release()
		}
	}()
	for _, r := range recs {
		r18, err := recordToV18(sc18, r)
		if err != nil {
			return fmt.Errorf("duckdb: load %s: %w", table, err)
		}
		recs18 = append(recs18, r18)
	}
	rdr, err := array.NewRecordReader(sc18, recs18)
	if err != nil {
		return fmt.Errorf("duckdb: load %s: %w", table, err)
	}
	defer rdr.Release()
	view := "gsql_bench_src_" + table
	release, err := e.arrow.RegisterView(rdr, view)
	if err != nil {
		return fmt.Errorf("duckdb: load %s: register arrow view: %w", table, err)
	}
	defer release()
	_, err = e.conn.ExecContext(ctx, fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS SELECT * FROM %s`, table, view))
	if err != nil {
		return fmt.Errorf("duckdb: load %s: %w", table, err)
	}
	if _, err := e.conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+view); err != nil {
		return fmt.Errorf("duckdb: load %s: drop view: %w", table, err)
	}
	return nil
}

// LoadParquet copies a Parquet file into a DuckDB table through
// read_parquet.
func (e *duckEngine) LoadParquet(ctx context.Context, table, path string) error {
	q := fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS SELECT * FROM read_parquet('%s')`, table, strings.ReplaceAll(path, "'", "''"))
	if _, err := e.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("duckdb: load %s from %s: %w", table, path, err)
	}
	return nil
}

// MemoryBytes is the memory DuckDB's buffer manager holds (its tables
// among it).
func (e *duckEngine) MemoryBytes(ctx context.Context) (int64, error) {
	var b int64
	err := e.conn.QueryRowContext(ctx, "SELECT CAST(SUM(memory_usage_bytes) AS BIGINT) FROM duckdb_memory()").Scan(&b)
	return b, err
}

// Exec runs a statement that returns no rows.
func (e *duckEngine) Exec(ctx context.Context, stmt string) error {
	_, err := e.conn.ExecContext(ctx, stmt)
	return err
}

func (e *duckEngine) Run(ctx context.Context, query string, c *Checksum) (result, error) {
	rdr, err := e.arrow.QueryContext(ctx, query)
	if err != nil {
		return result{}, err
	}
	defer rdr.Release()
	var res result
	var scratch []byte
	for rdr.Next() {
		rec := rdr.Record()
		res.Rows += rec.NumRows()
		res.OutBytes += recordBytesV18(rec)
		if c != nil {
			if scratch, err = addRecordV18(c, rec, scratch); err != nil {
				return res, err
			}
		}
	}
	if err := rdr.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// Answer runs a query through database/sql and renders its rows as the
// answer files do (bench/internal/duckrows), so that DuckDB's answers here
// are those gsql's ClickBench test is checked against. OutBytes is not
// known on this path (the suite takes output sizes from gsql).
func (e *duckEngine) Answer(ctx context.Context, query string) (answers.Answer, result, error) {
	lines, err := duckrows.Query(ctx, e.conn, query)
	if err != nil {
		return answers.Answer{}, result{}, err
	}
	a := answers.Answer{Columns: lines[0], Rows: lines[1:]}
	return a, result{Rows: int64(len(a.Rows))}, nil
}

func (e *duckEngine) Close() error {
	var errs []error
	if e.conn != nil {
		errs = append(errs, e.conn.Close())
	}
	errs = append(errs, e.db.Close())
	return errors.Join(errs...)
}

// schemaToV18 maps the generated tables' schema (strings, int64s, doubles,
// dates, timestamps and decimals) to arrow-go v18.
func schemaToV18(s *arrow17.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(s.Fields()))
	for i, f := range s.Fields() {
		var t arrow.DataType
		switch f.Type.ID() {
		case arrow17.STRING:
			t = arrow.BinaryTypes.String
		case arrow17.INT64:
			t = arrow.PrimitiveTypes.Int64
		case arrow17.FLOAT64:
			t = arrow.PrimitiveTypes.Float64
		case arrow17.DATE32:
			t = arrow.FixedWidthTypes.Date32
		case arrow17.TIMESTAMP:
			ts := f.Type.(*arrow17.TimestampType)
			t = &arrow.TimestampType{Unit: arrow.TimeUnit(ts.Unit), TimeZone: ts.TimeZone}
		case arrow17.DECIMAL128:
			d := f.Type.(*arrow17.Decimal128Type)
			t = &arrow.Decimal128Type{Precision: d.Precision, Scale: d.Scale}
		default:
			return nil, fmt.Errorf("column %s: type %s not supported by the loader", f.Name, f.Type)
		}
		fields[i] = arrow.Field{Name: f.Name, Type: t, Nullable: f.Nullable}
	}
	return arrow.NewSchema(fields, nil), nil
}

// recordToV18 wraps a v17 record's buffers as a v18 record without copying:
// the two modules share Arrow's memory layout.
func recordToV18(sc *arrow.Schema, r arrow17.Record) (arrow.Record, error) {
	if int(r.NumCols()) != sc.NumFields() {
		return nil, fmt.Errorf("record has %d columns, schema %d", r.NumCols(), sc.NumFields())
	}
	cols := make([]arrow.Array, r.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j := range cols {
		d := r.Column(j).Data()
		if len(d.Children()) > 0 || d.DataType().ID() == arrow17.DICTIONARY {
			return nil, fmt.Errorf("column %d: nested or dictionary data not supported", j)
		}
		bufs := make([]*memory.Buffer, len(d.Buffers()))
		for k, b := range d.Buffers() {
			if b != nil {
				bufs[k] = memory.NewBufferBytes(b.Bytes())
			}
		}
		data := array.NewData(sc.Field(j).Type, d.Len(), bufs, nil, d.NullN(), d.Offset())
		cols[j] = array.MakeFromData(data)
		data.Release()
	}
	return array.NewRecord(sc, cols, r.NumRows()), nil
}
