package sql

import "strings"

// CreateView is CREATE [OR REPLACE] VIEW name AS query.
type CreateView struct {
	Name      string
	OrReplace bool
	// Query is the query's text as written (views are stored as text and
	// planned where they are used).
	Query string
}

// DropView is DROP VIEW [IF EXISTS] name.
type DropView struct {
	Name     string
	IfExists bool
}

func (*CreateView) statement() {}
func (*DropView) statement()   {}

// createView parses what follows CREATE [OR REPLACE] VIEW.
func (p *ddl) createView(orReplace bool) (Statement, *Error) {
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	if t, ok := p.peek(); ok && t.typ == '(' {
		return nil, newError(ErrUnsupported, p.src, t.start, "not supported: column names in CREATE VIEW (alias the query's columns instead)")
	}
	if err := p.expect("as"); err != nil {
		return nil, err
	}
	rest := p.toks[p.i:]
	if len(rest) == 0 {
		return nil, p.errHere("unexpected end of statement: expected a query")
	}
	// The query must be one: its errors are reported here, with positions.
	if _, err := parseQuery(p.src, rest); err != nil {
		return nil, err
	}
	return &CreateView{Name: name, OrReplace: orReplace, Query: p.src[rest[0].start:rest[len(rest)-1].end]}, nil
}

// dropView parses what follows DROP VIEW.
func (p *ddl) dropView() (Statement, *Error) {
	dv := &DropView{}
	if p.accept("if") {
		if err := p.expect("exists"); err != nil {
			return nil, err
		}
		dv.IfExists = true
	}
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	dv.Name = name
	return dv, p.done()
}

// isViewKeyword reports whether t is VIEW.
func isViewKeyword(src string, t token) bool { return strings.EqualFold(t.text(src), "view") }
