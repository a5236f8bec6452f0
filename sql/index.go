package sql

import "strings"

// CreateIndex is CREATE INDEX [IF NOT EXISTS] name ON table (col, ...).
type CreateIndex struct {
	Name, Table string
	Columns     []string
	IfNotExists bool
	// Unique is CREATE UNIQUE INDEX: the indexed columns' values are kept
	// unique (NULLs aside).
	Unique bool
}

// DropIndex is DROP INDEX [IF EXISTS] name [ON table].
type DropIndex struct {
	Name     string
	Table    string // optional (MySQL requires it, SQLite has none)
	IfExists bool
}

func (*CreateIndex) statement() {}
func (*DropIndex) statement()   {}

// createIndex parses what follows CREATE [UNIQUE] INDEX.
func (p *ddl) createIndex(unique bool) (Statement, *Error) {
	ci := &CreateIndex{Unique: unique}
	if p.accept("if") {
		if err := p.expect("not"); err != nil {
			return nil, err
		}
		if err := p.expect("exists"); err != nil {
			return nil, err
		}
		ci.IfNotExists = true
	}
	name, err := p.ident("an index name")
	if err != nil {
		return nil, err
	}
	ci.Name = name
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	if ci.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if !p.acceptTyp('(') {
		return nil, p.errHere("expected ( and the indexed columns")
	}
	if ci.Columns, err = p.keyColumns(); err != nil {
		return nil, err
	}
	if t, ok := p.peek(); ok && t.is(p.src, "using") {
		return nil, p.errHere("not supported: index types (USING); gsql indexes are zone maps")
	}
	return ci, p.done()
}

// keyColumns reads an index's or key's column list after its '(':
// names, each optionally ASC or DESC, up to ')'.
func (p *ddl) keyColumns() ([]string, *Error) {
	var cols []string
	for {
		col, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		if t, ok := p.peek(); ok && (t.is(p.src, "asc") || t.is(p.src, "desc")) {
			p.i++ // zone maps and hash sets serve both orders
		}
		cols = append(cols, col)
		if p.acceptTyp(')') {
			return cols, nil
		}
		if !p.acceptTyp(',') {
			return nil, p.errHere("expected , or ) in the index's column list")
		}
	}
}

// dropIndex parses what follows DROP INDEX.
func (p *ddl) dropIndex() (Statement, *Error) {
	di := &DropIndex{}
	if p.accept("if") {
		if err := p.expect("exists"); err != nil {
			return nil, err
		}
		di.IfExists = true
	}
	name, err := p.ident("an index name")
	if err != nil {
		return nil, err
	}
	di.Name = name
	if p.accept("on") {
		if di.Table, err = p.tableName(); err != nil {
			return nil, err
		}
	}
	return di, p.done()
}

// isIndexKeyword reports whether t is INDEX.
func isIndexKeyword(src string, t token) bool { return strings.EqualFold(t.text(src), "index") }
