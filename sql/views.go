package sql

import (
	"fmt"
	"strings"
)

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
	// A column list, CREATE VIEW v (a, b) AS query (TPC-H Q15), names the
	// query's columns: the view is stored as the derived table
	// SELECT * FROM (query) AS v (a, b), which renames them.
	var cols []string
	if t, ok := p.peek(); ok && t.typ == '(' {
		c := cte{name: name, nameTok: p.toks[p.i-1]}
		end, err := cteColumns(p.src, p.toks, p.i, &c)
		if err != nil {
			return nil, err
		}
		cols = c.cols
		p.i = end + 1
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
	query := p.src[rest[0].start:rest[len(rest)-1].end]
	if cols != nil {
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = quoteIdent(c)
		}
		query = fmt.Sprintf("SELECT * FROM (%s) AS %s (%s)", query, quoteIdent(name), strings.Join(quoted, ", "))
	}
	return &CreateView{Name: name, OrReplace: orReplace, Query: query}, nil
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
