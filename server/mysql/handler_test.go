package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/mysql/wire"
)

func TestCountPlaceholders(t *testing.T) {
	cases := map[string]int{
		`SELECT 1`: 0,
		`SELECT ?`: 1,
		`SELECT * FROM t WHERE a = ? AND b IN (?, ?)`: 3,
		`SELECT '?', "?", ` + "`?`" + `, ?`:           1,
		`SELECT 'it''s ?' , ?`:                        1,
		`SELECT 'a\'?' , ?`:                           1,
		"SELECT ? -- ?\n, ?":                          2,
		"SELECT ? # ?\n":                              1,
		`SELECT /* ? */ ?`:                            1,
		`SELECT ? /* unterminated ?`:                  1,
		`SELECT 5--?`:                                 1, // "--" without a space is two minus signs
	}
	for s, want := range cases {
		if got := countPlaceholders(s); got != want {
			t.Errorf("%q: %d placeholders, want %d", s, got, want)
		}
	}
}

func TestStripLeadingComments(t *testing.T) {
	cases := map[string]string{
		"/* mysql-connector-j */ SELECT 1": "SELECT 1",
		"-- x\n  # y\nSHOW TABLES":         "SHOW TABLES",
		"/*!40101 SET NAMES utf8 */":       "/*!40101 SET NAMES utf8 */",
		"/* open":                          "/* open",
	}
	for in, want := range cases {
		if got := stripLeadingComments(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"peo%", "people", true}, {"PEO%", "people", true}, {"p_ople", "people", true},
		{"p_ople", "pple", false}, {`a\_b`, "a_b", true}, {`a\_b`, "axb", false}, {"a.b", "axb", false},
	}
	for _, c := range cases {
		if got := likeMatch(c.pattern, c.s); got != c.want {
			t.Errorf("%q LIKE %q = %v", c.s, c.pattern, got)
		}
	}
}

func newHandler(t *testing.T) (*Handler, *wire.Session) {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &Handler{DB: db, Database: "gsql", Version: "8.0.36-gsql"}
	return h, &wire.Session{ID: 7, User: "u", Addr: "127.0.0.1:5", Vars: map[string]string{}}
}

// cells runs stmt and returns its first row as text.
func cells(t *testing.T, h *Handler, s *wire.Session, stmt string) []string {
	t.Helper()
	res, err := h.Run(context.Background(), s, stmt, nil)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if res.Rows == nil {
		t.Fatalf("%s: no rows", stmt)
	}
	defer res.Rows.Release()
	if !res.Rows.Next() {
		t.Fatalf("%s: empty", stmt)
	}
	rec := res.Rows.Record()
	var out []string
	for _, c := range rec.Columns() {
		if c.IsNull(0) {
			out = append(out, "NULL")
		} else {
			out = append(out, c.ValueStr(0))
		}
	}
	return out
}

func TestSessionVariables(t *testing.T) {
	h, s := newHandler(t)
	for _, stmt := range []string{"SET NAMES utf8mb4 COLLATE utf8mb4_bin", "SET autocommit=0, @@session.wait_timeout = 60", "SET SESSION sql_mode = 'ANSI_QUOTES'", "set transaction isolation level read committed"} {
		if _, err := h.Run(context.Background(), s, stmt, nil); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	got := cells(t, h, s, "SELECT @@autocommit, @@wait_timeout AS w, @@session.sql_mode, @@character_set_client, CONNECTION_ID(), DATABASE(), USER()")
	want := []string{"0", "60", "ANSI_QUOTES", "utf8mb4", "7", "NULL", "u@127.0.0.1"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d: %q, want %q", i, got[i], want[i])
		}
	}
	errs := []struct {
		stmt string
		code uint16
	}{
		{"SET NAMES koi8r", 1115},
		{"SET @x = 1", 1235},
		{"SET GLOBAL max_connections = 5", 1227},
		{"SELECT @@nope", 1193},
		{"USE other", 1049},
		{"SELECT (1, 2) IN (SELECT 1)", 1241}, // sql.ErrOperand
	}
	for _, e := range errs {
		_, err := h.Run(context.Background(), s, e.stmt, nil)
		var me *wire.Error
		if !errors.As(err, &me) || me.Code != e.code {
			t.Errorf("%s: got %v, want code %d", e.stmt, err, e.code)
		}
	}
	// A SELECT that only looks like one of variables goes to gsql.
	if got := cells(t, h, s, "SELECT LENGTH('@@x') AS n"); got[0] != "3" {
		t.Errorf("LENGTH('@@x') = %v", got)
	}
}

func TestRunRowsAndCounts(t *testing.T) {
	h, s := newHandler(t)
	ctx := context.Background()
	if _, err := h.Run(ctx, s, "CREATE TABLE t (a BIGINT)", nil); err != nil {
		t.Fatal(err)
	}
	res, err := h.Run(ctx, s, "INSERT INTO t VALUES (?), (?)", []any{int64(1), int64(2)})
	if err != nil || res.AffectedRows != 2 || res.Rows != nil {
		t.Fatalf("insert: %+v %v", res, err)
	}
	if got := cells(t, h, s, "SELECT SUM(a) FROM t"); got[0] != "3" {
		t.Fatalf("sum %v", got)
	}
	// A reader's late error keeps its MySQL code.
	res, err = h.Run(ctx, s, "SELECT * FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Rows.Release()
	if _, ok := res.Rows.(*errMapped); !ok {
		t.Fatalf("rows are %T", res.Rows)
	}
	var _ array.RecordReader = res.Rows
}

func TestShowCreateTable(t *testing.T) {
	h, s := newHandler(t)
	if _, err := h.Run(context.Background(), s, "CREATE TABLE p (id BIGINT NOT NULL, name VARCHAR)", nil); err != nil {
		t.Fatal(err)
	}
	got := cells(t, h, s, "SHOW CREATE TABLE gsql.p")
	want := "CREATE TABLE `p` (\n  `id` BIGINT NOT NULL,\n  `name` VARCHAR\n)"
	if got[0] != "p" || got[1] != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// The result is valid gsql DDL.
	if _, err := h.Run(context.Background(), s, strings.Replace(got[1], "`p`", "p2", 1), nil); err != nil {
		t.Fatalf("re-running SHOW CREATE TABLE's DDL: %v", err)
	}
	_, err := h.Run(context.Background(), s, "SHOW CREATE TABLE missing", nil)
	var me *wire.Error
	if !errors.As(err, &me) || me.Code != 1146 {
		t.Fatalf("missing table: %v", err)
	}
}

func TestInformationSchema(t *testing.T) {
	h, s := newHandler(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE a (x BIGINT NOT NULL, y VARCHAR)", "CREATE TABLE b (d DATE)", "INSERT INTO a VALUES (1, 'one'), (2, NULL)"} {
		if _, err := h.Run(ctx, s, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(q string, args ...any) []string {
		t.Helper()
		res, err := h.Run(ctx, s, q, args)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer res.Rows.Release()
		var out []string
		for res.Rows.Next() {
			rec := res.Rows.Record()
			for r := 0; r < int(rec.NumRows()); r++ {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(r))
				}
				out = append(out, strings.Join(cells, "|"))
			}
		}
		if err := res.Rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []struct {
		q    string
		args []any
		want string
	}{
		{"SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'gsql' ORDER BY TABLE_NAME", nil, "[a|BASE TABLE b|BASE TABLE]"},
		{"select column_name, ordinal_position, is_nullable, data_type from INFORMATION_SCHEMA.COLUMNS where table_name = ? order by ordinal_position", []any{"a"}, "[x|1|NO|bigint y|2|YES|varchar]"},
		{"SELECT COUNT(*) FROM `information_schema`.`columns`", nil, "[3]"},
		// a holds 2 BIGINTs and 2 strings: values, offsets, validity.
		{"SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH BETWEEN 30 AND 200, AVG_ROW_LENGTH * 2 <= DATA_LENGTH FROM information_schema.TABLES ORDER BY TABLE_NAME", nil, "[a|2|true|true b|0|false|true]"},
		{"SELECT SCHEMA_NAME FROM information_schema.schemata", nil, "[gsql]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(rows(c.q, c.args...)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	_, err := h.Run(ctx, s, "SELECT nope FROM information_schema.tables", nil)
	var me *wire.Error
	if !errors.As(err, &me) || me.Code != 1054 {
		t.Fatalf("unknown column: %v", err)
	}
}

func TestMemoryLimitCode(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "cpu", MemoryLimit: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := &Handler{DB: db, Database: "gsql"}
	s := &wire.Session{Vars: map[string]string{}}
	ctx := context.Background()
	var vals strings.Builder
	for i := 0; i < 5000; i++ {
		if i > 0 {
			vals.WriteByte(',')
		}
		fmt.Fprintf(&vals, "(%d)", i)
	}
	for _, q := range []string{"CREATE TABLE g (a BIGINT)", "INSERT INTO g VALUES " + vals.String()} {
		if _, err := h.Run(ctx, s, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := h.Run(ctx, s, "SELECT COUNT(*) FROM g AS x JOIN g AS y ON x.a < y.a", nil)
	if err == nil {
		for res.Rows.Next() {
		}
		err = res.Rows.Err()
		res.Rows.Release()
	}
	var me *wire.Error
	if !errors.As(err, &me) || me.Code != 1037 {
		t.Fatalf("got %v, want 1037", err)
	}
}

// TestDisabledRules checks that SET disabled_rules reaches the engine for
// the connection that ran it only, and that a bad rule name is refused
// without changing the setting.
func TestDisabledRules(t *testing.T) {
	h, s := newHandler(t)
	other := &wire.Session{ID: 8, User: "u", Addr: "127.0.0.1:6", Vars: map[string]string{}}
	rules := func(s *wire.Session) string {
		t.Helper()
		res, err := h.Run(context.Background(), s, "EXPLAIN SELECT 1 + 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Rows.Release()
		last := ""
		for res.Rows.Next() {
			col := res.Rows.Record().Column(0).(*array.String)
			last = col.Value(col.Len() - 1)
		}
		return last
	}
	if _, err := h.Run(context.Background(), s, "SET disabled_rules = 'fold_constants'", nil); err != nil {
		t.Fatal(err)
	}
	if got := rules(s); got != "rules: none" {
		t.Errorf("with fold_constants off: %q", got)
	}
	if got := rules(other); got != "rules: fold_constants" {
		t.Errorf("another connection: %q", got)
	}
	if _, err := h.Run(context.Background(), s, "SET disabled_rules = 'fold_constants,nope'", nil); err == nil || !strings.Contains(err.Error(), `unknown rule "nope"`) {
		t.Errorf("unknown rule: %v", err)
	}
	if got := rules(s); got != "rules: none" {
		t.Errorf("after a failed SET: %q", got)
	}
	if _, err := h.Run(context.Background(), s, "SET disabled_rules = DEFAULT", nil); err != nil {
		t.Fatal(err)
	}
	if got := rules(s); got != "rules: fold_constants" {
		t.Errorf("after SET DEFAULT: %q", got)
	}
}
