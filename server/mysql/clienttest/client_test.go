package clienttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	driver "github.com/go-sql-driver/mysql"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/mysql"
	"github.com/gsqlengine/gsql/server/mysql/wire"
)

// testDevice is the server's device: GSQL_TEST_DEVICE (gpu on a GPU
// machine with a cuda-tagged test binary), else cpu.
func testDevice() string {
	if d := os.Getenv("GSQL_TEST_DEVICE"); d != "" {
		return d
	}
	return "cpu"
}

// server is a gsql MySQL server on loopback for one test.
type server struct {
	srv  *wire.Server
	addr string
	db   *gsql.DB
}

func start(t *testing.T, cfg mysql.Config) *server {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: testDevice()})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := mysql.NewServer(db, cfg)
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		db.Close()
	})
	return &server{srv: srv, addr: l.Addr().String(), db: db}
}

// open connects with go-sql-driver/mysql; params are extra DSN options.
func (s *server) open(t *testing.T, userPass, params string) *sql.DB {
	t.Helper()
	dsn := fmt.Sprintf("%s@tcp(%s)/gsql?parseTime=true&loc=UTC%s", userPass, s.addr, params)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, stmt string, args ...any) sql.Result {
	t.Helper()
	res, err := db.Exec(stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return res
}

// row is one scanned row of the types table.
type row struct {
	id   int64
	name sql.NullString
	f    sql.NullFloat64
	d    sql.NullTime
	ts   sql.NullTime
	b    sql.NullBool
}

func scanRows(t *testing.T, rows *sql.Rows) []row {
	t.Helper()
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.name, &r.f, &r.d, &r.ts, &r.b); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestColumnTypes creates a table of every gsql column type, inserts
// values and NULLs, and reads them back through the text protocol
// (a query without arguments) and the binary one (a prepared statement).
func TestColumnTypes(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	mustExec(t, db, `CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR, f DOUBLE, d DATE, ts TIMESTAMP, b BOOLEAN)`)
	res := mustExec(t, db, `INSERT INTO t VALUES
		(1, 'Ünïcode ✓', 1.5, '2024-02-29', '2024-02-29 13:14:15.123456', TRUE),
		(2, '', -2.5e-20, '0001-01-01', '9999-12-31 23:59:59', FALSE),
		(3, NULL, NULL, NULL, NULL, NULL)`)
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("rows affected %d, want 3", n)
	}
	want := []row{
		{1, sql.NullString{String: "Ünïcode ✓", Valid: true}, sql.NullFloat64{Float64: 1.5, Valid: true},
			sql.NullTime{Time: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), Valid: true},
			sql.NullTime{Time: time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC), Valid: true}, sql.NullBool{Bool: true, Valid: true}},
		{2, sql.NullString{String: "", Valid: true}, sql.NullFloat64{Float64: -2.5e-20, Valid: true},
			sql.NullTime{Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true},
			sql.NullTime{Time: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), Valid: true}, sql.NullBool{Bool: false, Valid: true}},
		{id: 3},
	}
	check := func(name string, got []row) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.id != w.id || g.name != w.name || g.f != w.f || g.b != w.b || g.d.Valid != w.d.Valid || !g.d.Time.Equal(w.d.Time) || g.ts.Valid != w.ts.Valid || !g.ts.Time.Equal(w.ts.Time) {
				t.Errorf("%s row %d:\n got %+v\nwant %+v", name, i, g, w)
			}
		}
	}
	rows, err := db.Query(`SELECT id, name, f, d, ts, b FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	check("text protocol", scanRows(t, rows))
	rows, err = db.Query(`SELECT id, name, f, d, ts, b FROM t WHERE id >= ? ORDER BY id`, 0)
	if err != nil {
		t.Fatal(err)
	}
	check("binary protocol", scanRows(t, rows))

	// Column metadata: MySQL types and nullability.
	rows, err = db.Query(`SELECT id, name, f, d, ts, b FROM t LIMIT 0`)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"BIGINT", "VARCHAR", "DOUBLE", "DATE", "DATETIME", "TINYINT"}
	for i, ct := range cts {
		if ct.DatabaseTypeName() != wantTypes[i] {
			t.Errorf("column %s: type %s, want %s", ct.Name(), ct.DatabaseTypeName(), wantTypes[i])
		}
	}
}

// TestDecimalColumns reads DECIMAL values through both protocols: exact
// text with every digit of the scale, typed DECIMAL in the metadata.
func TestDecimalColumns(t *testing.T) {
	if testDevice() == "gpu" {
		t.Skip("DECIMAL expressions run on the CPU only for now: strict gpu refuses them")
	}
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	mustExec(t, db, `CREATE TABLE m (id BIGINT, amt DECIMAL(12,2), big DECIMAL(38,10))`)
	mustExec(t, db, `INSERT INTO m VALUES (1, 12.5, '1234567890123456789012345678.0123456789'), (2, -0.01, -1), (3, NULL, NULL)`)
	want := []string{"1 12.50 1234567890123456789012345678.0123456789", "2 -0.01 -1.0000000000", "3 NULL NULL"}
	for _, q := range []struct {
		name string
		args []any
		sql  string
	}{{"text", nil, `SELECT id, amt, big FROM m ORDER BY id`}, {"binary", []any{0}, `SELECT id, amt, big FROM m WHERE id > ? ORDER BY id`}} {
		rows, err := db.Query(q.sql, q.args...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var amt, big sql.NullString
			if err := rows.Scan(&id, &amt, &big); err != nil {
				t.Fatal(err)
			}
			str := func(v sql.NullString) string {
				if !v.Valid {
					return "NULL"
				}
				return v.String
			}
			got = append(got, fmt.Sprintf("%d %s %s", id, str(amt), str(big)))
		}
		rows.Close()
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s protocol: %q, want %q", q.name, got, want)
		}
	}
	rows, err := db.Query(`SELECT amt FROM m LIMIT 0`)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	if cts[0].DatabaseTypeName() != "DECIMAL" {
		t.Errorf("DECIMAL column typed %s", cts[0].DatabaseTypeName())
	}
	if p, s, ok := cts[0].DecimalSize(); !ok || s != 2 || p < 12 {
		t.Errorf("DECIMAL(12,2) column size %d,%d,%v", p, s, ok)
	}
}

func TestPreparedStatements(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	mustExec(t, db, `CREATE TABLE p (k BIGINT, v VARCHAR, x DOUBLE, ts TIMESTAMP)`)
	ins, err := db.Prepare(`INSERT INTO p VALUES (?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < 10; i++ {
		var v any = fmt.Sprintf("v'%d?", i) // quotes and '?' inside a value are data
		if i == 9 {
			v = nil
		}
		if _, err := ins.Exec(int64(i), v, float64(i)/4, base.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	cases := []struct {
		name  string
		query string
		args  []any
		want  int64
	}{
		{"int", `SELECT COUNT(*) FROM p WHERE k > ?`, []any{int64(4)}, 5},
		{"string", `SELECT COUNT(*) FROM p WHERE v = ?`, []any{"v'3?"}, 1},
		{"float", `SELECT COUNT(*) FROM p WHERE x < ?`, []any{1.0}, 4},
		{"time", `SELECT COUNT(*) FROM p WHERE ts >= ?`, []any{base.Add(8 * time.Hour)}, 2},
		{"null", `SELECT COUNT(*) FROM p WHERE v IS NULL AND ? IS NULL`, []any{nil}, 1},
		{"placeholder in a string is text", `SELECT COUNT(*) FROM p WHERE v <> '?' AND k = ?`, []any{int64(2)}, 1},
		{"several", `SELECT COUNT(*) FROM p WHERE k BETWEEN ? AND ? AND v LIKE ?`, []any{int64(2), int64(6), "v%"}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n int64
			if err := db.QueryRow(c.query, c.args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != c.want {
				t.Fatalf("got %d, want %d", n, c.want)
			}
		})
	}
	// A prepared statement with the wrong number of arguments is refused
	// by the client; one with too few for gsql's binder fails with a code.
	upd, err := db.Prepare(`UPDATE p SET v = ? WHERE k = ?`)
	if err != nil {
		t.Fatal(err)
	}
	defer upd.Close()
	res, err := upd.Exec("new", int64(1))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("update affected %d rows", n)
	}
}

func mysqlErr(t *testing.T, err error) *driver.MySQLError {
	t.Helper()
	var me *driver.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("got %v (%T), want a MySQL error", err, err)
	}
	return me
}

func TestErrorCodes(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	mustExec(t, db, `CREATE TABLE e (a BIGINT NOT NULL, b VARCHAR)`)
	mustExec(t, db, `CREATE TABLE e2 (a BIGINT)`)
	cases := []struct {
		stmt  string
		code  uint16
		state string
	}{
		{`SELEC 1`, 1064, "42000"},
		{`SELECT * FROM missing`, 1146, "42S02"},
		{`SELECT nope FROM e`, 1054, "42S22"},
		{`SELECT a FROM e, e2`, 1052, "23000"},
		{`CREATE TABLE e (x BIGINT)`, 1050, "42S01"},
		{`DROP TABLE missing`, 1051, "42S02"},
		{`SELECT no_such_function(1)`, 1305, "42000"},
		{`INSERT INTO e VALUES (NULL, 'x')`, 1048, "23000"},
		{`USE otherdb`, 1049, "42000"},
		{`SELECT @@no_such_variable`, 1193, "HY000"},
		{`ROLLBACK`, 1235, "42000"},
		{`KILL QUERY 999999`, 1094, "HY000"},
	}
	for _, c := range cases {
		t.Run(c.stmt, func(t *testing.T) {
			_, err := db.Exec(c.stmt)
			me := mysqlErr(t, err)
			if me.Number != c.code || string(me.SQLState[:]) != c.state {
				t.Fatalf("got %d (%s) %q, want %d (%s)", me.Number, me.SQLState, me.Message, c.code, c.state)
			}
		})
	}
	// A failed statement changed nothing.
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM e`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("count %d, %v", n, err)
	}
	// The syntax error carries gsql's line and column.
	_, err := db.Exec("SELECT 1,\n  FROM e")
	if me := mysqlErr(t, err); me.Number != 1064 || !contains(me.Message, "line 2") {
		t.Fatalf("got %v", me)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestSessionStatements(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	db.SetMaxOpenConns(1)
	mustExec(t, db, `CREATE TABLE people (name VARCHAR, age BIGINT)`)
	mustExec(t, db, `SET NAMES utf8mb4`)
	mustExec(t, db, `SET autocommit = 1, @@session.sql_mode = 'ANSI'`)
	var comment, mode, version string
	if err := db.QueryRow(`SELECT @@version_comment, @@session.sql_mode AS mode, @@version LIMIT 1`).Scan(&comment, &mode, &version); err != nil {
		t.Fatal(err)
	}
	if comment != "gsql" || mode != "ANSI" || version == "" {
		t.Fatalf("got %q %q %q", comment, mode, version)
	}
	var dbName string
	if err := db.QueryRow(`SELECT DATABASE()`).Scan(&dbName); err != nil || dbName != "gsql" {
		t.Fatalf("DATABASE() = %q, %v", dbName, err)
	}
	var maxPacket int64
	if err := db.QueryRow(`SELECT @@max_allowed_packet`).Scan(&maxPacket); err != nil || maxPacket <= 0 {
		t.Fatalf("max_allowed_packet %d, %v", maxPacket, err)
	}
	list := func(q string) []string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out []string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			line := ""
			for i, v := range vals {
				if i > 0 {
					line += "|"
				}
				line += v.String
			}
			out = append(out, line)
		}
		return out
	}
	if got := list(`SHOW DATABASES`); fmt.Sprint(got) != "[gsql]" {
		t.Errorf("SHOW DATABASES: %v", got)
	}
	if got := list(`SHOW TABLES`); fmt.Sprint(got) != "[people]" {
		t.Errorf("SHOW TABLES: %v", got)
	}
	if got := list(`SHOW FULL TABLES FROM gsql LIKE 'peo%'`); fmt.Sprint(got) != "[people|BASE TABLE]" {
		t.Errorf("SHOW FULL TABLES: %v", got)
	}
	if got := list(`SHOW COLUMNS FROM people`); fmt.Sprint(got) != "[name|varchar|YES||| age|bigint|YES|||]" {
		t.Errorf("SHOW COLUMNS: %v", got)
	}
	if got := list(`/* connector */ SHOW VARIABLES LIKE 'character_set_c%'`); fmt.Sprint(got) != "[character_set_client|utf8mb4 character_set_connection|utf8mb4]" {
		t.Errorf("SHOW VARIABLES: %v", got)
	}
	mustExec(t, db, `USE gsql`)
	mustExec(t, db, `BEGIN`)
	mustExec(t, db, `COMMIT`)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestMultiStatements(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "&multiStatements=true")
	db.SetMaxOpenConns(1)
	mustExec(t, db, `CREATE TABLE m (a BIGINT); INSERT INTO m VALUES (1), (2); INSERT INTO m VALUES (3)`)
	rows, err := db.Query(`SELECT COUNT(*) FROM m; SELECT a FROM m ORDER BY a DESC; SELECT 'last'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sets [][]string
	for {
		var set []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			set = append(set, v)
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sets); got != "[[3] [3 2 1] [last]]" {
		t.Fatalf("result sets %s", got)
	}
	// The first failing statement stops the rest.
	_, err = db.Exec(`INSERT INTO m VALUES (4); SELECT * FROM nope; INSERT INTO m VALUES (5)`)
	if me := mysqlErr(t, err); me.Number != 1146 {
		t.Fatalf("got %v", me)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM m`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("count %d, %v", n, err)
	}
}

// slowQuery takes many seconds on the CPU: a cross join of 20000 x 20000
// rows.
const slowQuery = `SELECT COUNT(*), SUM(x.a * y.a) FROM big x, big y WHERE (x.a + y.a) % 7 = 3`

func makeBig(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db, `CREATE TABLE big (a BIGINT)`)
	var vals strings.Builder
	for i := 0; i < 20000; i++ {
		if i > 0 {
			vals.WriteByte(',')
		}
		fmt.Fprintf(&vals, "(%d)", i)
	}
	mustExec(t, db, `INSERT INTO big VALUES `+vals.String())
}

func TestCancellation(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	makeBig(t, db)

	t.Run("context cancel closes the connection and stops the query", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := db.QueryContext(ctx, slowQuery)
		if err == nil {
			t.Fatal("the slow query finished inside 100ms: make it slower")
		}
		// The driver closed its connection; the server notices and
		// cancels, so its connection count drops quickly.
		deadline := time.Now().Add(2 * time.Second)
		for s.srv.Conns() > 1 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := s.srv.Conns(); n > 1 {
			t.Fatalf("%d server connections still open %v after the cancel", n, time.Since(start))
		}
	})

	t.Run("KILL QUERY from another connection", func(t *testing.T) {
		ctx := context.Background()
		victim, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer victim.Close()
		var id int64
		if err := victim.QueryRowContext(ctx, `SELECT CONNECTION_ID()`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			var n, sum int64
			errc <- victim.QueryRowContext(ctx, slowQuery).Scan(&n, &sum)
		}()
		time.Sleep(100 * time.Millisecond)
		mustExec(t, db, fmt.Sprintf(`KILL QUERY %d`, id))
		select {
		case err := <-errc:
			if me := mysqlErr(t, err); me.Number != 1317 || string(me.SQLState[:]) != "70100" {
				t.Fatalf("got %v", me)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("KILL QUERY did not stop the query")
		}
		// The connection survives a KILL QUERY.
		var one int
		if err := victim.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
			t.Fatalf("after KILL QUERY: %d, %v", one, err)
		}
	})
}

func TestAuthentication(t *testing.T) {
	for _, plugin := range []string{wire.NativePassword, wire.CachingSHA2} {
		t.Run(plugin, func(t *testing.T) {
			cfg := mysql.Config{}
			cfg.Users = map[string]string{"alice": "s3cret"}
			cfg.AuthPlugin = plugin
			s := start(t, cfg)
			// Twice: caching_sha2_password's first login is a full one
			// (RSA without TLS), the second a fast one.
			for i := 0; i < 2; i++ {
				db := s.open(t, "alice:s3cret", "")
				if err := db.Ping(); err != nil {
					t.Fatalf("login %d: %v", i, err)
				}
				db.Close()
			}
			for _, bad := range []string{"alice:wrong", "alice", "bob:s3cret"} {
				db := s.open(t, bad, "")
				if me := mysqlErr(t, db.Ping()); me.Number != 1045 || string(me.SQLState[:]) != "28000" {
					t.Fatalf("%s: got %v", bad, me)
				}
			}
		})
	}
}
