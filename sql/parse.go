package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
)

// Statement is one parsed statement.
type Statement interface{ statement() }

// Select is a query: Stmt is *sqlparser.Select, *sqlparser.Union or
// *sqlparser.ParenSelect.
type Select struct{ Stmt sqlparser.SelectStatement }

// CreateTable is CREATE TABLE, with a column list, AS SELECT, or both.
type CreateTable struct {
	Name        string
	IfNotExists bool
	Columns     []ColumnDef
	// Keys are the PRIMARY KEY and UNIQUE constraints, of columns and of
	// the table, in order.
	Keys     []KeyDef
	AsSelect sqlparser.SelectStatement
}

// KeyDef is a PRIMARY KEY or UNIQUE constraint of CREATE TABLE.
type KeyDef struct {
	Name    string // empty: named after its first column
	Primary bool
	Columns []string
}

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name    string
	Type    coldata.Type
	NotNull bool
	// Default is the DEFAULT clause's expression as written ("" when
	// none): a literal, CURRENT_TIMESTAMP or a parenthesised expression.
	Default string
	// AutoIncrement is AUTO_INCREMENT: an INSERT's NULL, 0 or missing
	// value is the next number.
	AutoIncrement bool
	// key is the column's own PRIMARY KEY or UNIQUE (CreateTable.Keys).
	key *KeyDef
}

// DropTable is DROP TABLE [IF EXISTS] t[, t2 ...].
type DropTable struct {
	Names    []string
	IfExists bool
}

// Insert is INSERT INTO t [(cols)] VALUES ... or INSERT INTO t [(cols)] SELECT.
type Insert struct {
	Table   string
	Columns []string
	Rows    [][]sqlparser.Expr
	Select  sqlparser.SelectStatement
	// Ignore is INSERT IGNORE: rows that duplicate a key are skipped,
	// each with a warning. Replace is REPLACE INTO: rows that share a key
	// with a new row are deleted first.
	Ignore, Replace bool
	// OnDup is ON DUPLICATE KEY UPDATE's assignments (left to right), on
	// the row a new row collides with; VALUES(col) and the row alias's
	// columns (Alias.col, or AliasColumns) are the new row's values.
	OnDup        []SetExpr
	Alias        string
	AliasColumns []string
}

// ShowTables is SHOW TABLES.
type ShowTables struct{}

// ShowCreateTable is SHOW CREATE TABLE t: the statement that makes t.
type ShowCreateTable struct{ Table string }

// ShowWarnings is SHOW WARNINGS, or with Count SHOW COUNT(*) WARNINGS:
// the warnings of the session's previous statement.
type ShowWarnings struct{ Count bool }

// Describe is DESCRIBE t, DESC t or SHOW [FULL] COLUMNS FROM t.
type Describe struct {
	Table string
	// Full is SHOW FULL COLUMNS: MySQL's nine columns.
	Full bool
	// Query, when not nil, is DESCRIBE SELECT ...: the query's columns.
	Query sqlparser.SelectStatement
}

// Explain is EXPLAIN [ANALYZE] [VERBOSE] <statement>. VERBOSE adds the
// state of every optimizer rule.
type Explain struct {
	Analyze bool
	Verbose bool
	Stmt    Statement
}

func (*Select) statement()          {}
func (*ShowCreateTable) statement() {}
func (*CreateTable) statement()     {}
func (*DropTable) statement()       {}
func (*Insert) statement()          {}
func (*ShowTables) statement()      {}
func (*Describe) statement()        {}
func (*ShowWarnings) statement()    {}
func (*Explain) statement()         {}

// Parse parses text holding one or more statements separated by ';'. Empty
// statements are ignored.
func Parse(text string) ([]Statement, error) {
	ps, lexErr := pieces(text)
	if lexErr != nil {
		return nil, lexErr
	}
	out := make([]Statement, 0, len(ps))
	for _, p := range ps {
		st, err := parseStatement(text, p.toks)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseOne parses text holding exactly one statement.
func ParseOne(text string) (Statement, error) {
	ps, lexErr := pieces(text)
	if lexErr != nil {
		return nil, lexErr
	}
	switch len(ps) {
	case 0:
		return nil, newError(ErrSyntax, text, len(text), "empty statement")
	case 1:
	default:
		return nil, newError(ErrSyntax, text, ps[1].toks[0].start, "expected one statement, found %d", len(ps))
	}
	st, err := parseStatement(text, ps[0].toks)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// parseStatement dispatches on the first keyword.
func parseStatement(src string, toks []token) (Statement, *Error) {
	first := toks[0]
	p := &ddl{src: src, toks: toks}
	switch {
	case first.typ == sqlparser.SELECT || first.typ == '(':
		return parseQuery(src, toks)
	case first.typ == sqlparser.INSERT || first.is(src, "replace"):
		return parseInsert(src, toks)
	case first.typ == sqlparser.UPDATE:
		return parseUpdate(src, toks)
	case first.typ == sqlparser.DELETE:
		return parseDelete(src, toks)
	case first.typ == sqlparser.CREATE:
		return p.createTable()
	case first.typ == sqlparser.DROP:
		return p.dropTable()
	case first.typ == sqlparser.SHOW:
		return p.show()
	case first.typ == sqlparser.SET || first.is(src, "set"):
		return p.set()
	case first.is(src, "describe") || first.is(src, "desc"):
		if len(toks) > 1 && (toks[1].typ == sqlparser.SELECT || toks[1].typ == sqlparser.WITH || toks[1].is(src, "with") || toks[1].typ == '(') {
			// DESCRIBE SELECT ...: the columns a query returns (DuckDB).
			q, err := parseQuery(src, toks[1:])
			if err != nil {
				return nil, err
			}
			return &Describe{Query: q.(*Select).Stmt}, nil
		}
		return p.describe(1)
	case first.is(src, "explain"):
		rest := toks[1:]
		if len(rest) == 0 {
			return nil, newError(ErrSyntax, src, first.end, "EXPLAIN needs a statement")
		}
		analyze := false
		if rest[0].is(src, "analyze") {
			analyze, rest = true, rest[1:]
			if len(rest) == 0 {
				return nil, newError(ErrSyntax, src, first.end, "EXPLAIN ANALYZE needs a statement")
			}
		}
		if !analyze && len(rest) == 1 && rest[0].typ == sqlparser.ID {
			return p.describe(1)
		}
		verbose := false
		if len(rest) > 1 && rest[0].is(src, "verbose") {
			verbose, rest = true, rest[1:]
		}
		inner, err := parseStatement(src, rest)
		if err != nil {
			return nil, err
		}
		if _, ok := inner.(*Select); !ok {
			return nil, newError(ErrUnsupported, src, rest[0].start, "not supported: EXPLAIN of %s (only of queries)", strings.ToUpper(rest[0].text(src)))
		}
		return &Explain{Analyze: analyze, Verbose: verbose, Stmt: inner}, nil
	case first.is(src, "with") || first.typ == sqlparser.WITH:
		rest, err := expandWith(src, toks)
		if err != nil {
			return nil, err
		}
		if rest[0].typ != sqlparser.SELECT && rest[0].typ != '(' {
			return nil, newError(ErrUnsupported, src, rest[0].start, "not supported: WITH before %s (only before a query)", strings.ToUpper(rest[0].text(src)))
		}
		return parseQuery(src, rest)
	}
	switch kw := strings.ToUpper(first.text(src)); kw {
	case "ALTER", "TRUNCATE", "RENAME", "USE", "BEGIN", "START", "COMMIT",
		"ROLLBACK", "GRANT", "REVOKE", "LOCK", "UNLOCK", "CALL", "DO", "HANDLER", "LOAD",
		"ANALYZE", "OPTIMIZE", "REPAIR", "FLUSH", "KILL", "SAVEPOINT", "RELEASE", "PREPARE", "EXECUTE",
		"DEALLOCATE", "MERGE", "VALUES", "TABLE", "COPY", "ATTACH", "DETACH", "PRAGMA", "VACUUM":
		return nil, newError(ErrUnsupported, src, first.start, "not supported: %s", kw)
	}
	return nil, newError(ErrSyntax, src, first.start, "near '%s': expected a statement", first.text(src))
}

func parseQuery(src string, toks []token) (Statement, *Error) {
	if len(toks) > 0 && (toks[0].typ == sqlparser.WITH || toks[0].is(src, "with")) {
		rest, err := expandWith(src, toks)
		if err != nil {
			return nil, err
		}
		toks = rest
	}
	// The stock grammar rejects a parenthesised query on its own
	// ("(SELECT 1)"), which MySQL runs: drop parentheses around the whole.
	for len(toks) > 2 && toks[0].typ == '(' && matching(toks, 0) == len(toks)-1 {
		toks = toks[1 : len(toks)-1]
	}
	st, err := parseRewritten(src, toks)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(sqlparser.SelectStatement)
	if !ok {
		return nil, newError(ErrSyntax, src, toks[0].start, "expected a query")
	}
	return &Select{Stmt: sel}, nil
}

func parseInsert(src string, toks []token) (Statement, *Error) {
	toks, werr := expandInsertWith(src, toks)
	if werr != nil {
		return nil, werr
	}
	toks, alias, aliasCols, aerr := rowAlias(src, toks)
	if aerr != nil {
		return nil, aerr
	}
	st, err := parseRewritten(src, toks)
	if err != nil {
		return nil, err
	}
	ins, ok := st.(*sqlparser.Insert)
	if !ok {
		return nil, newError(ErrSyntax, src, toks[0].start, "expected INSERT")
	}
	if !ins.Table.Qualifier.IsEmpty() {
		return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: qualified table name %s.%s", ins.Table.Qualifier.String(), ins.Table.Name.String())
	}
	out := &Insert{Table: ins.Table.Name.String(), Ignore: ins.Ignore != "", Replace: ins.Action == sqlparser.ReplaceStr, Alias: alias, AliasColumns: aliasCols}
	if out.Replace && len(ins.OnDup) > 0 {
		return nil, newError(ErrSyntax, src, toks[0].start, "REPLACE cannot have ON DUPLICATE KEY UPDATE")
	}
	for _, e := range ins.OnDup {
		if !e.Name.Qualifier.IsEmpty() && !strings.EqualFold(e.Name.Qualifier.Name.String(), out.Table) {
			return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: ON DUPLICATE KEY UPDATE of another table's column %s", sqlparser.String(e.Name))
		}
		out.OnDup = append(out.OnDup, SetExpr{Column: e.Name.Name.String(), Expr: e.Expr})
	}
	for _, c := range ins.Columns {
		out.Columns = append(out.Columns, c.String())
	}
	switch rows := ins.Rows.(type) {
	case sqlparser.Values:
		for _, tuple := range rows {
			out.Rows = append(out.Rows, []sqlparser.Expr(tuple))
		}
	case sqlparser.SelectStatement:
		out.Select = rows
	default:
		return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: this form of INSERT")
	}
	return out, nil
}

// rowAlias takes MySQL 8.0.19's row alias out of INSERT ... VALUES (...)
// AS name [(col, ...)] ON DUPLICATE KEY UPDATE, which the stock grammar
// does not know: the tokens without it, the alias and its column names.
func rowAlias(src string, toks []token) ([]token, string, []string, *Error) {
	depth, values := 0, false
	for i, t := range toks {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth > 0:
		case t.typ == sqlparser.SELECT:
			return toks, "", nil, nil // INSERT ... SELECT has no row alias
		case t.is(src, "values") || t.is(src, "value"):
			values = true
		case values && t.is(src, "as"):
			p := &ddl{src: src, toks: toks, i: i + 1}
			name, err := p.ident("a row alias")
			if err != nil {
				return nil, "", nil, err
			}
			var cols []string
			if p.acceptTyp('(') {
				if cols, err = p.keyColumns(); err != nil {
					return nil, "", nil, err
				}
			}
			if nt, ok := p.peek(); !ok || !nt.is(src, "on") {
				return nil, "", nil, p.errHere("expected ON DUPLICATE KEY UPDATE after the row alias %s", name)
			}
			rest := append(append([]token(nil), toks[:i]...), toks[p.i:]...)
			return rest, name, cols, nil
		}
	}
	return toks, "", nil, nil
}

// ddl parses the statements gsql reads itself, token by token.
type ddl struct {
	src  string
	toks []token
	i    int
}

func (p *ddl) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

func (p *ddl) endOffset() int {
	if len(p.toks) == 0 {
		return len(p.src)
	}
	return p.toks[len(p.toks)-1].end
}

func (p *ddl) errHere(format string, args ...any) *Error {
	off := p.endOffset()
	if t, ok := p.peek(); ok {
		off = t.start
	}
	return newError(ErrSyntax, p.src, off, format, args...)
}

// accept consumes the next token if it is keyword kw.
func (p *ddl) accept(kw string) bool {
	if t, ok := p.peek(); ok && t.is(p.src, kw) {
		p.i++
		return true
	}
	return false
}

func (p *ddl) expect(kw string) *Error {
	if !p.accept(kw) {
		if t, ok := p.peek(); ok {
			return p.errHere("near '%s': expected %s", t.text(p.src), strings.ToUpper(kw))
		}
		return p.errHere("unexpected end of statement: expected %s", strings.ToUpper(kw))
	}
	return nil
}

func (p *ddl) acceptTyp(typ int) bool {
	if t, ok := p.peek(); ok && t.typ == typ {
		p.i++
		return true
	}
	return false
}

// ident reads an identifier: a plain or backquoted name, or a keyword
// used as a name.
func (p *ddl) ident(what string) (string, *Error) {
	t, ok := p.peek()
	if !ok {
		return "", p.errHere("unexpected end of statement: expected %s", what)
	}
	if t.typ == sqlparser.ID {
		p.i++
		return string(t.val), nil
	}
	s := t.text(p.src)
	if s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_') && t.typ != sqlparser.STRING {
		p.i++
		return s, nil
	}
	return "", p.errHere("near '%s': expected %s", s, what)
}

// tableName reads a table name. gsql has one schema, so a qualified name
// (db.t) is refused rather than read as a table option or stray input.
func (p *ddl) tableName() (string, *Error) {
	start := p.i
	name, err := p.ident("a table name")
	if err != nil {
		return "", err
	}
	if p.acceptTyp('.') {
		t, err := p.ident("a table name")
		if err != nil {
			return "", err
		}
		return "", newError(ErrUnsupported, p.src, p.toks[start].start, "not supported: qualified table name %s.%s", name, t)
	}
	return name, nil
}

func (p *ddl) done() *Error {
	if t, ok := p.peek(); ok {
		return p.errHere("near '%s': unexpected input", t.text(p.src))
	}
	return nil
}

func (p *ddl) createTable() (Statement, *Error) {
	p.i = 1
	if p.accept("or") {
		if err := p.expect("replace"); err != nil {
			return nil, err
		}
		if t, ok := p.peek(); !ok || !isViewKeyword(p.src, t) {
			return nil, p.errHere("expected VIEW after CREATE OR REPLACE")
		}
		p.i++
		return p.createView(true)
	}
	if t, ok := p.peek(); ok && isViewKeyword(p.src, t) {
		p.i++
		return p.createView(false)
	}
	if t, ok := p.peek(); ok && isIndexKeyword(p.src, t) {
		p.i++
		return p.createIndex(false)
	}
	if p.accept("unique") {
		if t, ok := p.peek(); !ok || !isIndexKeyword(p.src, t) {
			return nil, p.errHere("expected INDEX after CREATE UNIQUE")
		}
		p.i++
		return p.createIndex(true)
	}
	if p.accept("temporary") {
		// Every gsql table lives in memory; TEMPORARY changes nothing.
	}
	if t, ok := p.peek(); !ok {
		return nil, p.errHere("unexpected end of statement: expected TABLE")
	} else if !t.is(p.src, "table") {
		return nil, newError(ErrUnsupported, p.src, p.toks[0].start, "not supported: CREATE %s", strings.ToUpper(t.text(p.src)))
	}
	p.i++
	ct := &CreateTable{}
	if p.accept("if") {
		if err := p.expect("not"); err != nil {
			return nil, err
		}
		if err := p.expect("exists"); err != nil {
			return nil, err
		}
		ct.IfNotExists = true
	}
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	ct.Name = name
	if t, ok := p.peek(); ok && t.typ == '(' && !p.parenSelect() {
		if err := p.columns(ct); err != nil {
			return nil, err
		}
	}
	if err := p.tableOptions(); err != nil {
		return nil, err
	}
	as := p.accept("as")
	if _, ok := p.peek(); ok {
		st, err := parseQuery(p.src, p.toks[p.i:])
		if err != nil {
			return nil, err
		}
		ct.AsSelect = st.(*Select).Stmt
	} else if as {
		return nil, p.errHere("unexpected end of statement: expected a query after AS")
	} else if ct.Columns == nil {
		return nil, p.errHere("CREATE TABLE needs columns or AS SELECT")
	}
	return ct, nil
}

// tableOptionWords name MySQL's table options (ENGINE=InnoDB, DEFAULT
// CHARSET=utf8mb4, ...), which change nothing for gsql's in-memory tables.
var tableOptionWords = map[string]bool{"engine": true, "charset": true, "collate": true, "comment": true,
	"auto_increment": true, "row_format": true, "key_block_size": true, "avg_row_length": true,
	"max_rows": true, "min_rows": true, "checksum": true, "compression": true, "encryption": true,
	"pack_keys": true, "stats_persistent": true, "stats_auto_recalc": true, "stats_sample_pages": true,
	"tablespace": true, "storage": true, "delay_key_write": true, "insert_method": true}

// tableOptions skips the table options before AS/SELECT or the end, each
// "[DEFAULT] name [=] value" with optional commas between them. Anything
// else is an error, so that a typo is never silently dropped.
func (p *ddl) tableOptions() *Error {
	for {
		t, ok := p.peek()
		if !ok || t.is(p.src, "as") || t.typ == sqlparser.SELECT || t.typ == '(' {
			return nil
		}
		p.accept("default")
		name, ok := p.peek()
		switch {
		case !ok:
			return p.errHere("unexpected end of statement: expected a table option")
		case name.is(p.src, "character"):
			p.i++
			if err := p.expect("set"); err != nil {
				return err
			}
		case tableOptionWords[strings.ToLower(name.text(p.src))]:
			p.i++
		default:
			return p.errHere("near '%s': expected AS, SELECT or a table option", name.text(p.src))
		}
		p.acceptTyp('=')
		v, ok := p.peek()
		if !ok || v.typ == ',' || v.typ == '(' || v.typ == ')' || v.typ == '=' {
			return p.errHere("expected the value of table option %s", strings.ToUpper(name.text(p.src)))
		}
		p.i++
		p.acceptTyp(',')
	}
}

// parenSelect reports whether the '(' at the cursor opens a query.
func (p *ddl) parenSelect() bool {
	for k := p.i; k < len(p.toks); k++ {
		if p.toks[k].typ != '(' {
			return p.toks[k].typ == sqlparser.SELECT
		}
	}
	return false
}

var constraintWords = map[string]bool{"not": true, "null": true, "primary": true, "key": true, "unique": true,
	"default": true, "comment": true, "auto_increment": true, "collate": true, "character": true, "charset": true,
	"references": true, "check": true, "constraint": true, "generated": true}

func (p *ddl) columns(ct *CreateTable) *Error {
	p.i++ // (
	seen := map[string]bool{}
	for {
		t, ok := p.peek()
		if !ok {
			return p.errHere("unexpected end of statement: expected a column definition")
		}
		switch {
		case t.is(p.src, "primary") || t.is(p.src, "unique") || t.is(p.src, "constraint") && p.constraintKey():
			k, err := p.tableKey()
			if err != nil {
				return err
			}
			ct.Keys = append(ct.Keys, k)
		case t.is(p.src, "key") || t.is(p.src, "index"):
			// Plain indexes: accepted; gsql's scans need none.
			for {
				x, ok := p.peek()
				if !ok {
					return p.errHere("unexpected end of statement: expected the column list of %s", strings.ToUpper(t.text(p.src)))
				}
				if x.typ == ',' || x.typ == ')' {
					return p.errHere("near '%s': expected the column list of %s", x.text(p.src), strings.ToUpper(t.text(p.src)))
				}
				if x.typ == '(' {
					p.i = p.skipParens(p.i)
					break
				}
				p.i++
			}
		case t.is(p.src, "foreign") || t.is(p.src, "constraint") || t.is(p.src, "check"):
			return newError(ErrUnsupported, p.src, t.start, "not supported: %s constraints", strings.ToUpper(t.text(p.src)))
		default:
			col, err := p.column()
			if err != nil {
				return err
			}
			key := strings.ToLower(col.Name)
			if seen[key] {
				return newError(ErrSyntax, p.src, t.start, "duplicate column name '%s'", col.Name)
			}
			seen[key] = true
			ct.Columns = append(ct.Columns, col)
			if col.key != nil {
				ct.Keys = append(ct.Keys, *col.key)
			}
		}
		if p.acceptTyp(',') {
			continue
		}
		if p.acceptTyp(')') {
			return nil
		}
		if x, ok := p.peek(); ok {
			return p.errHere("near '%s': expected ',' or ')'", x.text(p.src))
		}
		return p.errHere("unexpected end of statement: expected ')'")
	}
}

// constraintKey reports whether the CONSTRAINT at the cursor names a
// PRIMARY KEY or UNIQUE constraint (others are refused).
func (p *ddl) constraintKey() bool {
	for k := p.i + 1; k < len(p.toks) && k <= p.i+2; k++ {
		if p.toks[k].is(p.src, "primary") || p.toks[k].is(p.src, "unique") {
			return true
		}
	}
	return false
}

// tableKey reads a table constraint: [CONSTRAINT [name]] PRIMARY KEY
// (cols) or [CONSTRAINT [name]] UNIQUE [KEY|INDEX] [name] (cols).
func (p *ddl) tableKey() (KeyDef, *Error) {
	var k KeyDef
	if p.accept("constraint") {
		if t, ok := p.peek(); ok && !t.is(p.src, "primary") && !t.is(p.src, "unique") {
			name, err := p.ident("a constraint name")
			if err != nil {
				return k, err
			}
			k.Name = name
		}
	}
	if p.accept("primary") {
		if err := p.expect("key"); err != nil {
			return k, err
		}
		k.Primary = true
	} else {
		if err := p.expect("unique"); err != nil {
			return k, err
		}
		if !p.accept("key") {
			p.accept("index")
		}
		if t, ok := p.peek(); ok && t.typ != '(' {
			name, err := p.ident("a key name")
			if err != nil {
				return k, err
			}
			k.Name = name
		}
	}
	if !p.acceptTyp('(') {
		return k, p.errHere("expected ( and the key's columns")
	}
	cols, err := p.keyColumns()
	if err != nil {
		return k, err
	}
	k.Columns = cols
	if t, ok := p.peek(); ok && t.is(p.src, "using") {
		// USING BTREE/HASH: the kind of index changes nothing here.
		p.i++
		if _, err := p.ident("an index type"); err != nil {
			return k, err
		}
	}
	return k, nil
}

// skipParens returns the index after the parenthesised group at k.
func (p *ddl) skipParens(k int) int {
	j := matching(p.toks, k)
	if j < 0 {
		return len(p.toks)
	}
	return j + 1
}

func (p *ddl) column() (ColumnDef, *Error) {
	name, err := p.ident("a column name")
	if err != nil {
		return ColumnDef{}, err
	}
	start, ok := p.peek()
	if !ok {
		return ColumnDef{}, p.errHere("unexpected end of statement: expected the type of column %s", name)
	}
	var words []token // a word, or a parenthesised group spanning several tokens
	for {
		t, ok := p.peek()
		if !ok || t.typ == ',' || t.typ == ')' || len(words) > 0 && constraintWords[strings.ToLower(t.text(p.src))] {
			break
		}
		if t.typ == '(' {
			end := p.skipParens(p.i)
			words = append(words, token{typ: '(', start: t.start, end: p.toks[end-1].end})
			p.i = end
			continue
		}
		words = append(words, t)
		p.i++
	}
	if len(words) == 0 {
		return ColumnDef{}, newError(ErrSyntax, p.src, start.start, "expected the type of column %s", name)
	}
	ct, n := parseTypeWords(p.src, words)
	if n == 0 {
		return ColumnDef{}, newError(ErrSyntax, p.src, start.start, "unknown type %s", typeText(p.src, words))
	}
	if n < len(words) {
		return ColumnDef{}, newError(ErrSyntax, p.src, words[n].start, "near '%s': expected ',' or ')'", words[n].text(p.src))
	}
	col := ColumnDef{Name: name, Type: ct}
	for {
		t, ok := p.peek()
		if !ok || t.typ == ',' || t.typ == ')' {
			return col, nil
		}
		switch {
		case p.accept("not"):
			if err := p.expect("null"); err != nil {
				return col, err
			}
			col.NotNull = true
		case p.accept("null"):
		case p.accept("primary"):
			if err := p.expect("key"); err != nil {
				return col, err
			}
			col.NotNull = true
			col.key = &KeyDef{Primary: true, Columns: []string{name}}
		case p.accept("unique"):
			p.accept("key")
			if col.key == nil {
				col.key = &KeyDef{Columns: []string{name}}
			}
		case p.accept("key"):
			// KEY alone is PRIMARY KEY in a column definition (MySQL).
			col.NotNull = true
			col.key = &KeyDef{Primary: true, Columns: []string{name}}
		case p.accept("auto_increment"):
			col.AutoIncrement = true
		case p.accept("default"):
			text, err := p.defaultValue()
			if err != nil {
				return col, err
			}
			col.Default = text
		case p.accept("comment"):
			p.acceptTyp(sqlparser.STRING)
		case p.accept("collate"):
			if _, err := p.ident("a collation"); err != nil {
				return col, err
			}
		case p.accept("character"):
			if err := p.expect("set"); err != nil {
				return col, err
			}
			if _, err := p.ident("a character set"); err != nil {
				return col, err
			}
		case p.accept("charset"):
			if _, err := p.ident("a character set"); err != nil {
				return col, err
			}
		default:
			return col, newError(ErrUnsupported, p.src, t.start, "not supported: column option %s", strings.ToUpper(t.text(p.src)))
		}
	}
}

// defaultValue reads a DEFAULT clause's value and returns its text: a
// parenthesised expression (MySQL 8.0.13), a signed number, or one token
// (a literal, NULL, TRUE, CURRENT_TIMESTAMP) with an argument list such
// as CURRENT_TIMESTAMP(3) or NOW().
func (p *ddl) defaultValue() (string, *Error) {
	t, ok := p.peek()
	if !ok || t.typ == ',' || t.typ == ')' {
		return "", p.errHere("expected a value after DEFAULT")
	}
	start := t.start
	if t.typ == '(' {
		j := matching(p.toks, p.i)
		if j < 0 {
			return "", p.errHere("unbalanced parentheses in DEFAULT")
		}
		p.i = j + 1
		return p.src[start:p.toks[j].end], nil
	}
	if t.typ == '-' || t.typ == '+' {
		p.i++
		if _, ok := p.peek(); !ok {
			return "", p.errHere("expected a number after the sign")
		}
	}
	p.i++
	if n, ok := p.peek(); ok && n.typ == '(' {
		j := matching(p.toks, p.i)
		if j < 0 {
			return "", p.errHere("unbalanced parentheses in DEFAULT")
		}
		p.i = j + 1
	}
	return p.src[start:p.toks[p.i-1].end], nil
}

// parseTypeWords reads a type name from its words (a parenthesised group
// such as "(10,2)" is one word): it returns the type of the longest prefix
// that names one, and that prefix's length (0 when none does).
func parseTypeWords(src string, words []token) (coldata.Type, int) {
	var best coldata.Type
	n := 0
	var name []string
	for k, w := range words {
		if w.typ == '(' {
			// Arguments follow the name; only a DECIMAL's precision and
			// scale and a DATETIME's fractional digits change the type.
			if k == 0 {
				break
			}
			if n == k {
				n = k + 1
				if best.IsDecimal() || best == coldata.Timestamp {
					t, ok := coldata.ParseType(strings.Join(name, " ") + w.text(src))
					if !ok {
						return coldata.Null, 0
					}
					best = t
				}
			}
			continue
		}
		name = append(name, w.text(src))
		if t, ok := coldata.ParseType(strings.Join(name, " ")); ok {
			best, n = t, k+1
		}
	}
	return best, n
}

// typeText is the source text of a type's words, with single blanks.
func typeText(src string, words []token) string {
	var b strings.Builder
	for k, w := range words {
		if k > 0 && w.typ != '(' {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Join(strings.Fields(w.text(src)), ""))
	}
	return b.String()
}

func (p *ddl) dropTable() (Statement, *Error) {
	p.i = 1
	if t, ok := p.peek(); ok && isViewKeyword(p.src, t) {
		p.i++
		return p.dropView()
	}
	if t, ok := p.peek(); ok && isIndexKeyword(p.src, t) {
		p.i++
		return p.dropIndex()
	}
	if t, ok := p.peek(); !ok {
		return nil, p.errHere("unexpected end of statement: expected TABLE")
	} else if !t.is(p.src, "table") {
		return nil, newError(ErrUnsupported, p.src, p.toks[0].start, "not supported: DROP %s", strings.ToUpper(t.text(p.src)))
	}
	p.i++
	dt := &DropTable{}
	if p.accept("if") {
		if err := p.expect("exists"); err != nil {
			return nil, err
		}
		dt.IfExists = true
	}
	for {
		name, err := p.tableName()
		if err != nil {
			return nil, err
		}
		dt.Names = append(dt.Names, name)
		if !p.acceptTyp(',') {
			break
		}
	}
	if !p.accept("restrict") {
		p.accept("cascade")
	}
	return dt, p.done()
}

func (p *ddl) show() (Statement, *Error) {
	p.i = 1
	switch {
	case p.accept("tables"):
		return &ShowTables{}, p.done()
	case p.accept("create"):
		if err := p.expect("table"); err != nil {
			return nil, err
		}
		name, err := p.tableName()
		if err != nil {
			return nil, err
		}
		return &ShowCreateTable{Table: name}, p.done()
	case p.accept("warnings"):
		return &ShowWarnings{}, p.done()
	case p.accept("count"):
		if !p.acceptTyp('(') || !p.acceptTyp('*') || !p.acceptTyp(')') {
			return nil, p.errHere("expected COUNT(*) WARNINGS")
		}
		if err := p.expect("warnings"); err != nil {
			return nil, err
		}
		return &ShowWarnings{Count: true}, p.done()
	}
	at := p.i
	full := p.accept("full")
	if p.accept("columns") || p.accept("fields") {
		if !p.accept("from") && !p.accept("in") {
			return nil, p.errHere("expected FROM")
		}
		name, err := p.tableName()
		if err != nil {
			return nil, err
		}
		return &Describe{Table: name, Full: full}, p.done()
	}
	p.i = at
	t, ok := p.peek()
	if !ok {
		return nil, p.errHere("unexpected end of statement: expected TABLES or COLUMNS")
	}
	return nil, newError(ErrUnsupported, p.src, p.toks[0].start, "not supported: SHOW %s", strings.ToUpper(t.text(p.src)))
}

func (p *ddl) describe(at int) (Statement, *Error) {
	p.i = at
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	return &Describe{Table: name}, p.done()
}
