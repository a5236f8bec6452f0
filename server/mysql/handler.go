// Package mysql serves a gsql database over the MySQL protocol: a
// wire.Handler that runs statements on a *gsql.DB, answers the session
// statements MySQL clients send (SELECT @@version_comment, SET NAMES,
// SHOW DATABASES, USE, KILL QUERY, ...) and maps gsql's typed errors to
// MySQL error codes. The protocol itself is package wire.
package mysql

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/server/files"
	"github.com/gsqlengine/gsql/server/limits"
	"github.com/gsqlengine/gsql/server/mysql/wire"
	"github.com/gsqlengine/gsql/sql"
)

// Config configures NewServer.
type Config struct {
	wire.Config
	// Database is the one database name clients see (SHOW DATABASES, USE);
	// empty means "gsql".
	Database string
	// MaxStatementTime cancels a statement running longer (0: no limit);
	// a session lowers it with SET max_execution_time = ms, as in MySQL.
	MaxStatementTime time.Duration
	// MaxQueries caps the statements the database runs at once, over all
	// connections (0: no cap); more wait for a slot.
	MaxQueries int
	// Limits, when set, replaces MaxQueries and MaxStatementTime: limits
	// shared with the server's other listeners (gsql serve's Flight SQL).
	Limits *limits.Limits
	// Files says which files statements may read (the zero value: none).
	Files files.Policy
}

// NewServer returns a MySQL protocol server over db.
func NewServer(db *gsql.DB, cfg Config) *wire.Server {
	if cfg.Database == "" {
		cfg.Database = "gsql"
	}
	if cfg.Version == "" {
		cfg.Version = "8.0.36-gsql"
	}
	h := &Handler{DB: db, Database: cfg.Database, Version: cfg.Version, Logger: cfg.Logger, Files: cfg.Files, Limits: cfg.Limits}
	if h.Limits == nil {
		h.Limits = limits.New(cfg.MaxQueries, cfg.MaxStatementTime)
	}
	return wire.NewServer(cfg.Config, h)
}

// Handler runs MySQL clients' statements on a gsql database.
type Handler struct {
	DB       *gsql.DB
	Database string
	Version  string
	Logger   *slog.Logger
	// Limits and Files: see Config (nil Limits: none).
	Limits *limits.Limits
	Files  files.Policy
}

// Split splits a COM_QUERY into statements (gsql's splitter: ';' outside
// strings and comments).
func (h *Handler) Split(text string) ([]string, error) {
	stmts, _ := sql.Split(text)
	return stmts, nil
}

// Params counts the '?' placeholders of stmt, outside strings, quoted
// names and comments.
func (h *Handler) Params(_ *wire.Session, stmt string) (int, error) {
	return countPlaceholders(stmt), nil
}

// UseDB accepts the server's one database.
func (h *Handler) UseDB(_ *wire.Session, db string) error {
	if strings.EqualFold(db, h.Database) {
		return nil
	}
	return wire.Errorf(1049, "42000", "Unknown database '%s'", db)
}

// Run runs one statement.
func (h *Handler) Run(ctx context.Context, s *wire.Session, stmt string, args []any) (wire.Result, error) {
	body := stripLeadingComments(stmt)
	words := strings.Fields(strings.ToUpper(firstWords(body, 3)))
	if len(words) > 0 {
		if res, handled, err := h.session(ctx, s, body, words); handled {
			return res, mysqlError(err)
		}
	}
	if err := h.Files.Check(stmt); err != nil {
		return wire.Result{}, kindError(errkind.AccessDenied, err)
	}
	if isInfoSchema(body) {
		return h.infoSchema(ctx, stmt, args)
	}
	st, err := sql.ParseOne(stmt)
	if err != nil {
		return wire.Result{}, mysqlError(err)
	}
	ctx, done, err := h.begin(ctx, s)
	if err != nil {
		return wire.Result{}, mysqlError(err)
	}
	eng, err := h.engineSession(s)
	if err != nil {
		done()
		return wire.Result{}, mysqlError(err)
	}
	// A statement clears the previous one's warnings (MySQL's diagnostics
	// area), also when it fails.
	s.Warnings, s.WarningCount = nil, 0
	switch st.(type) {
	case *sql.Select, *sql.ShowTables, *sql.Describe, *sql.Explain:
		rdr, err := eng.Query(ctx, stmt, args...)
		if err != nil {
			done()
			return wire.Result{}, mysqlError(err)
		}
		// The statement runs while its rows are read: the limits hold
		// until the protocol layer releases the reader, and its warnings
		// are known then.
		return wire.Result{Rows: &errMapped{RecordReader: rdr, done: done, eng: eng, sess: s}}, nil
	}
	defer done()
	res, err := eng.Exec(ctx, stmt, args...)
	if err != nil {
		return wire.Result{}, mysqlError(err)
	}
	setWarnings(s, res.Warnings, res.WarningCount)
	return wire.Result{AffectedRows: uint64(res.RowsAffected), LastInsertID: uint64(max(res.LastInsertID, 0)), Warnings: uint16(min(res.WarningCount, 65535))}, nil
}

// setWarnings keeps a statement's warnings as SHOW WARNINGS rows.
func setWarnings(s *wire.Session, ws []gsql.Warning, count int64) {
	s.Warnings = nil
	for _, w := range ws {
		s.Warnings = append(s.Warnings, []string{w.Level, strconv.Itoa(int(w.Code)), w.Msg})
	}
	s.WarningCount = max(count, int64(len(ws)))
}

// engineSession is the engine's session for a statement of client
// session s: the engine's settings that the client SET (engineVars) come
// from s.Vars, the client's session state.
func (h *Handler) engineSession(s *wire.Session) (*gsql.Session, error) {
	eng := h.DB.Session()
	for _, name := range engineVars {
		if v, ok := s.Vars[name]; ok {
			if err := eng.Set(name, v); err != nil {
				return nil, err
			}
		}
	}
	return eng, nil
}

// begin applies the statement limits: a slot among MaxQueries (waiting
// for one while ctx allows) and the statement time. done releases them.
func (h *Handler) begin(ctx context.Context, s *wire.Session) (context.Context, func(), error) {
	var session time.Duration
	if v, ok := s.Vars["max_execution_time"]; ok {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
			session = time.Duration(ms) * time.Millisecond
		}
	}
	return h.Limits.Begin(ctx, session)
}

// errMapped maps the errors a reader reports midway to MySQL codes,
// releases the statement's limits with the reader and then keeps the
// statement's warnings in the client session sess.
type errMapped struct {
	array.RecordReader
	done     func()
	eng      *gsql.Session // nil: no warnings to keep
	sess     *wire.Session
	released bool
}

func (r *errMapped) Err() error { return mysqlError(r.RecordReader.Err()) }

// WarningCount implements wire.RowsWarnings.
func (r *errMapped) WarningCount() int64 {
	if r.eng == nil {
		return 0
	}
	return r.eng.WarningCount()
}

func (r *errMapped) Release() {
	r.RecordReader.Release()
	if !r.released {
		r.released = true
		r.done()
		if r.eng != nil && r.sess != nil {
			setWarnings(r.sess, r.eng.Warnings(), r.eng.WarningCount())
		}
	}
}

var (
	reSetNames          = regexp.MustCompile(`(?is)^SET\s+(NAMES|CHARACTER\s+SET|CHARSET)\s+(.*)$`)
	reKill              = regexp.MustCompile(`(?is)^KILL\s+(?:(QUERY|CONNECTION)\s+)?(\d+)\s*$`)
	reUse               = regexp.MustCompile("(?is)^USE\\s+`?([^`\\s]+)`?\\s*$")
	reShowTbl           = regexp.MustCompile("(?is)^SHOW\\s+(FULL\\s+)?TABLES(?:\\s+(?:FROM|IN)\\s+`?(\\w+)`?)?(?:\\s+LIKE\\s+'([^']*)')?\\s*$")
	reShowCols          = regexp.MustCompile("(?is)^(?:SHOW\\s+(FULL\\s+)?(?:COLUMNS|FIELDS)\\s+(?:FROM|IN)|DESCRIBE|DESC)\\s+`?(\\w+)`?(?:\\s+(?:FROM|IN)\\s+`?(\\w+)`?)?\\s*$")
	reShowCreate        = regexp.MustCompile("(?is)^SHOW\\s+CREATE\\s+TABLE\\s+(?:`?\\w+`?\\.)?`?(\\w+)`?\\s*$")
	reShowCountWarnings = regexp.MustCompile(`(?is)^SHOW\s+COUNT\s*\(\s*\*\s*\)\s+WARNINGS\s*$`)
	reShowVars          = regexp.MustCompile(`(?is)^SHOW\s+(?:SESSION\s+|GLOBAL\s+)?VARIABLES(?:\s+LIKE\s+'([^']*)')?\s*$`)
)

// session answers the statements about the session and the server that
// MySQL clients send; handled is false for everything else.
func (h *Handler) session(ctx context.Context, s *wire.Session, body string, words []string) (res wire.Result, handled bool, err error) {
	switch words[0] {
	case "SELECT":
		if rdr, ok, err := h.selectVars(s, body); ok {
			// A SELECT, even of @@warning_count, is no diagnostic
			// statement: it clears the warnings it may have read.
			s.Warnings, s.WarningCount = nil, 0
			return wire.Result{Rows: rdr}, true, err
		}
	case "SET":
		return wire.Result{}, true, h.set(s, body)
	case "USE":
		m := reUse.FindStringSubmatch(body)
		if m == nil {
			return res, false, nil
		}
		if err := h.UseDB(s, m[1]); err != nil {
			return res, true, err
		}
		s.DB = m[1]
		return res, true, nil
	case "KILL":
		m := reKill.FindStringSubmatch(body)
		if m == nil {
			return res, false, nil
		}
		id, _ := strconv.ParseUint(m[2], 10, 32)
		if !s.Server().Kill(uint32(id), strings.EqualFold(m[1], "QUERY")) {
			return res, true, wire.Errorf(1094, "HY000", "Unknown thread id: %d", id)
		}
		return res, true, nil
	case "BEGIN", "START", "COMMIT":
		// Every statement commits on its own; a transaction is a no-op
		// until ROLLBACK, which cannot be honoured.
		if words[0] == "START" && (len(words) < 2 || words[1] != "TRANSACTION") {
			return res, false, nil
		}
		return res, true, nil
	case "ROLLBACK":
		return res, true, wire.Errorf(1235, "42000", "not supported: ROLLBACK (gsql commits every statement on its own)")
	case "SHOW":
		return h.show(ctx, s, body, words)
	case "DESCRIBE", "DESC":
		if m := reShowCols.FindStringSubmatch(body); m != nil {
			return h.columns(ctx, m[2], false)
		}
	}
	return res, false, nil
}

func (h *Handler) show(ctx context.Context, s *wire.Session, body string, words []string) (wire.Result, bool, error) {
	if len(words) < 2 {
		return wire.Result{}, false, nil
	}
	switch {
	case words[1] == "DATABASES" || words[1] == "SCHEMAS":
		return wire.Result{Rows: textRows([]string{"Database"}, [][]string{{h.Database}})}, true, nil
	case reShowTbl.MatchString(body):
		m := reShowTbl.FindStringSubmatch(body)
		if m[2] != "" {
			if err := h.UseDB(s, m[2]); err != nil {
				return wire.Result{}, true, err
			}
		}
		names, err := h.tables(ctx)
		if err != nil {
			return wire.Result{}, true, err
		}
		cols := []string{"Tables_in_" + h.Database}
		if m[1] != "" {
			cols = append(cols, "Table_type")
		}
		var rows [][]string
		for _, n := range names {
			if m[3] != "" && !likeMatch(m[3], n) {
				continue
			}
			row := []string{n}
			if m[1] != "" {
				row = append(row, "BASE TABLE")
			}
			rows = append(rows, row)
		}
		return wire.Result{Rows: textRows(cols, rows)}, true, nil
	case reShowCols.MatchString(body):
		m := reShowCols.FindStringSubmatch(body)
		return h.columns(ctx, m[2], m[1] != "")
	case reShowCreate.MatchString(body):
		return h.showCreate(ctx, reShowCreate.FindStringSubmatch(body)[1])
	case reShowVars.MatchString(body):
		m := reShowVars.FindStringSubmatch(body)
		var rows [][]string
		for _, name := range varNames() {
			if m[1] == "" || likeMatch(m[1], name) {
				v, _ := h.variable(s, name)
				rows = append(rows, []string{name, v})
			}
		}
		return wire.Result{Rows: textRows([]string{"Variable_name", "Value"}, rows)}, true, nil
	case words[1] == "WARNINGS":
		return wire.Result{Rows: textRows([]string{"Level", "Code", "Message"}, s.Warnings)}, true, nil
	case reShowCountWarnings.MatchString(body):
		return wire.Result{Rows: textRows([]string{"@@session.warning_count"}, [][]string{{strconv.FormatInt(s.WarningCount, 10)}})}, true, nil
	case words[1] == "ERRORS":
		return wire.Result{Rows: textRows([]string{"Level", "Code", "Message"}, nil)}, true, nil
	case words[1] == "STATUS" || (len(words) > 2 && words[2] == "STATUS"):
		return wire.Result{Rows: textRows([]string{"Variable_name", "Value"}, [][]string{{"Threads_connected", strconv.Itoa(s.Server().Conns())}})}, true, nil
	}
	return wire.Result{}, false, nil
}

// tables lists the tables and views, sorted (gsql's SHOW TABLES).
func (h *Handler) tables(ctx context.Context) ([]string, error) {
	rdr, err := h.DB.Query(ctx, "SHOW TABLES")
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var names []string
	for rdr.Next() {
		col := rdr.Record().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			names = append(names, strings.Clone(col.Value(i)))
		}
	}
	sort.Strings(names)
	return names, rdr.Err()
}

// columns is SHOW [FULL] COLUMNS / DESCRIBE: the engine's, with MySQL's
// six columns (nine with FULL).
func (h *Handler) columns(ctx context.Context, table string, full bool) (wire.Result, bool, error) {
	q := "DESCRIBE " + quoteIdent(table)
	if full {
		q = "SHOW FULL COLUMNS FROM " + quoteIdent(table)
	}
	return h.tableQuery(ctx, q)
}

// showCreate is SHOW CREATE TABLE: the engine's.
func (h *Handler) showCreate(ctx context.Context, table string) (wire.Result, bool, error) {
	return h.tableQuery(ctx, "SHOW CREATE TABLE "+quoteIdent(table))
}

// tableQuery runs a statement about one table; a missing table is
// MySQL's 1146.
func (h *Handler) tableQuery(ctx context.Context, q string) (wire.Result, bool, error) {
	rdr, err := h.DB.Query(ctx, q)
	var oe *catalog.ObjectError
	if errors.As(err, &oe) {
		// MySQL says 1146 here (1051 is DROP's "unknown table").
		return wire.Result{}, true, kindError(errkind.NoSuchTable, err)
	}
	if err != nil {
		return wire.Result{}, true, err
	}
	return wire.Result{Rows: rdr}, true, nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// textRows is a one-record reader of VARCHAR columns; a nil-able cell is
// not needed by its callers except Default, written as NULL when "".
func textRows(names []string, rows [][]string) array.RecordReader {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			sb := b.Field(i).(*array.StringBuilder)
			if v == "" && names[i] == "Default" {
				sb.AppendNull()
			} else {
				sb.Append(v)
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	rdr, _ := array.NewRecordReader(schema, []arrow.Record{rec})
	return rdr
}

// likeMatch is SQL LIKE with % and _ (case-insensitive), for SHOW ... LIKE.
func likeMatch(pattern, s string) bool {
	var re strings.Builder
	re.WriteString("(?is)^")
	esc := false
	for _, r := range pattern {
		switch {
		case esc:
			re.WriteString(regexp.QuoteMeta(string(r)))
			esc = false
		case r == '\\':
			esc = true
		case r == '%':
			re.WriteString(".*")
		case r == '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), s)
	return ok
}

// stripLeadingComments drops /* */ and -- / # comments before a statement
// (connectors prefix their session statements with one).
func stripLeadingComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/*!"):
			end := strings.Index(s[2:], "*/")
			if end < 0 {
				return s
			}
			s = s[2+end+2:]
		case strings.HasPrefix(s, "--") || strings.HasPrefix(s, "#"):
			end := strings.IndexByte(s, '\n')
			if end < 0 {
				return ""
			}
			s = s[end+1:]
		default:
			return s
		}
	}
}

// firstWords returns the prefix of s holding its first n words.
func firstWords(s string, n int) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '=' || r == '(' })
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// countPlaceholders counts '?' outside quotes and comments.
func countPlaceholders(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '?':
			n++
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(s); i++ {
				if s[i] == '\\' && c != '`' {
					i++
					continue
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c { // doubled quote
						i++
						continue
					}
					break
				}
			}
		case c == '#' || (c == '-' && i+2 < len(s) && s[i+1] == '-' && (s[i+2] == ' ' || s[i+2] == '\t' || s[i+2] == '\n')):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return n
			}
			i += 2 + end + 1
		}
	}
	return n
}
