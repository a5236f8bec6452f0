package gsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"github.com/gsqlengine/gsql/fileio"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// The database/sql driver: sql.Open("gsql", dsn). The DSN is
// "name?device=cpu&pool_limit=1073741824"; every sql.DB opened with the same
// name shares one in-memory database for the life of the process, so that
// all pooled connections see the same tables. A name "file:PATH" opens the
// on-disk database at PATH instead (Options.Path; "&mode=ro": ReadOnly);
// sql.DBs open on one path share it, and the last one's Close closes it and
// releases its lock.
// OpenDB wraps an existing *DB.
func init() { sql.Register("gsql", &sqlDriver{}) }

type sqlDriver struct{}

var (
	namedMu  sync.Mutex
	namedDBs = map[string]*DB{}
	// fileDBs are the on-disk databases open through the driver, by path.
	fileDBs = map[string]*fileDB{}
)

type fileDB struct {
	db   *DB
	refs int
}

// Open implements driver.Driver.
func (d *sqlDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext.
func (d *sqlDriver) OpenConnector(dsn string) (driver.Connector, error) {
	name, query, _ := strings.Cut(dsn, "?")
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("gsql dsn %q: %w", dsn, err)
	}
	opts := Options{Device: vals.Get("device"), Devices: vals.Get("devices")}
	if pl := vals.Get("pool_limit"); pl != "" {
		if opts.PoolLimit, err = strconv.ParseUint(pl, 10, 64); err != nil {
			return nil, fmt.Errorf("gsql dsn %q: pool_limit: %w", dsn, err)
		}
	}
	namedMu.Lock()
	defer namedMu.Unlock()
	if path, ok := strings.CutPrefix(name, "file:"); ok {
		if path == "" {
			return nil, fmt.Errorf("gsql dsn %q: file: needs a path", dsn)
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		switch vals.Get("mode") {
		case "", "rw", "rwc":
		case "ro":
			opts.ReadOnly = true
		default:
			return nil, fmt.Errorf("gsql dsn %q: mode must be ro or rw", dsn)
		}
		key := path // read-only and writing handles are separate DBs
		if opts.ReadOnly {
			key += "?mode=ro"
		}
		f, ok := fileDBs[key]
		if !ok {
			opts.Path = path
			db, err := Open(opts)
			if err != nil {
				return nil, err
			}
			f = &fileDB{db: db}
			fileDBs[key] = f
		}
		f.refs++
		return &connector{db: f.db, drv: d, path: key}, nil
	}
	db, ok := namedDBs[name]
	if !ok || db.closed.Load() {
		if db, err = Open(opts); err != nil {
			return nil, err
		}
		namedDBs[name] = db
	}
	return &connector{db: db, drv: d}, nil
}

// OpenDB returns a database/sql handle over db.
func OpenDB(db *DB) *sql.DB { return sql.OpenDB(&connector{db: db, drv: &sqlDriver{}}) }

type connector struct {
	db   *DB
	drv  *sqlDriver
	path string // on-disk databases: the key in fileDBs
	once sync.Once
}

// Close is called by sql.DB.Close: the last handle on a file closes it.
func (c *connector) Close() error {
	if c.path == "" {
		return nil
	}
	var err error
	c.once.Do(func() {
		namedMu.Lock()
		defer namedMu.Unlock()
		f := fileDBs[c.path]
		if f == nil || f.db != c.db {
			return
		}
		if f.refs--; f.refs == 0 {
			delete(fileDBs, c.path)
			err = f.db.Close()
		}
	})
	return err
}

// Connect opens a connection: a session of its own, so that a SET on one
// pooled connection leaves the others alone.
func (c *connector) Connect(context.Context) (driver.Conn, error) {
	return &conn{db: c.db, sess: c.db.Session()}, nil
}
func (c *connector) Driver() driver.Driver { return c.drv }

type conn struct {
	db   *DB
	sess *Session
}

var errNoTx = errors.New("gsql: transactions are not supported; every statement is atomic on its own")

func (c *conn) Prepare(query string) (driver.Stmt, error) { return &stmt{c: c, query: query}, nil }
func (c *conn) Close() error                              { return nil }
func (c *conn) Begin() (driver.Tx, error)                 { return nil, errNoTx }

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.sess.Exec(ctx, query, namedArgs(args)...)
	if err != nil {
		return nil, err
	}
	return execResult{res}, nil
}

// execResult is a statement's driver.Result: rows affected and the first
// AUTO_INCREMENT number an INSERT gave.
type execResult struct{ r Result }

func (e execResult) LastInsertId() (int64, error) { return e.r.LastInsertID, nil }
func (e execResult) RowsAffected() (int64, error) { return e.r.RowsAffected, nil }

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rdr, err := c.sess.Query(ctx, query, namedArgs(args)...)
	if err != nil {
		return nil, err
	}
	return &rows{r: rdr}, nil
}

func namedArgs(args []driver.NamedValue) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

type stmt struct {
	c     *conn
	query string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.query, valuesToNamed(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.query, valuesToNamed(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.c.ExecContext(ctx, s.query, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.QueryContext(ctx, s.query, args)
}

func valuesToNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// rows adapts a record reader to driver.Rows.
type rows struct {
	r   array.RecordReader
	rec arrow.Record
	row int
}

func (r *rows) Columns() []string {
	fields := r.r.Schema().Fields()
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

func (r *rows) Close() error {
	r.r.Release()
	return nil
}

func (r *rows) Next(dest []driver.Value) error {
	for r.rec == nil || r.row >= int(r.rec.NumRows()) {
		if !r.r.Next() {
			if err := r.r.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		r.rec = r.r.Record()
		r.row = 0
	}
	for i := range dest {
		dest[i] = cellValue(r.rec.Column(i), r.row)
	}
	r.row++
	return nil
}

// cellValue converts one Arrow cell to a driver.Value.
func cellValue(col arrow.Array, i int) driver.Value {
	if col.IsNull(i) {
		return nil
	}
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		// database/sql keeps the value past the next record, and the
		// record's memory may be reused (page-locked result memory).
		return strings.Clone(a.Value(i))
	case *array.Decimal128:
		// Exact text, as MySQL drivers return DECIMAL.
		return fileio.FormatValue(col, i)
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC()
	case *array.Timestamp:
		us := int64(a.Value(i))
		return time.UnixMicro(us).UTC()
	}
	return col.ValueStr(i)
}
