package sql

import (
	"github.com/xwb1989/sqlparser"
)

// Update is UPDATE t SET col = expr, ... [WHERE cond].
type Update struct {
	Table string
	Set   []SetExpr
	Where sqlparser.Expr // nil: every row
}

// SetExpr is one assignment of an UPDATE.
type SetExpr struct {
	Column string
	Expr   sqlparser.Expr
}

// Delete is DELETE FROM t [WHERE cond].
type Delete struct {
	Table string
	Where sqlparser.Expr // nil: every row
}

func (*Update) statement() {}
func (*Delete) statement() {}

// singleTable returns the one unqualified table an UPDATE or DELETE names.
func singleTable(src string, toks []token, te sqlparser.TableExprs) (string, *Error) {
	if len(te) != 1 {
		return "", newError(ErrUnsupported, src, toks[0].start, "not supported: %s of several tables", toks[0].text(src))
	}
	ate, ok := te[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return "", newError(ErrUnsupported, src, toks[0].start, "not supported: %s of a join", toks[0].text(src))
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok || !tn.Qualifier.IsEmpty() || !ate.As.IsEmpty() {
		return "", newError(ErrUnsupported, src, toks[0].start, "not supported: %s of %s (name one table, without alias)", toks[0].text(src), sqlparser.String(ate))
	}
	return tn.Name.String(), nil
}

func parseUpdate(src string, toks []token) (Statement, *Error) {
	st, err := parseRewritten(src, toks)
	if err != nil {
		return nil, err
	}
	u, ok := st.(*sqlparser.Update)
	if !ok {
		return nil, newError(ErrSyntax, src, toks[0].start, "expected UPDATE")
	}
	if len(u.OrderBy) > 0 || u.Limit != nil {
		return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: UPDATE with ORDER BY or LIMIT")
	}
	table, err := singleTable(src, toks, u.TableExprs)
	if err != nil {
		return nil, err
	}
	out := &Update{Table: table}
	for _, e := range u.Exprs {
		if !e.Name.Qualifier.IsEmpty() && e.Name.Qualifier.Name.String() != table {
			return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: SET of another table's column %s", sqlparser.String(e.Name))
		}
		out.Set = append(out.Set, SetExpr{Column: e.Name.Name.String(), Expr: e.Expr})
	}
	if u.Where != nil {
		out.Where = u.Where.Expr
	}
	return out, nil
}

func parseDelete(src string, toks []token) (Statement, *Error) {
	st, err := parseRewritten(src, toks)
	if err != nil {
		return nil, err
	}
	d, ok := st.(*sqlparser.Delete)
	if !ok {
		return nil, newError(ErrSyntax, src, toks[0].start, "expected DELETE")
	}
	if len(d.OrderBy) > 0 || d.Limit != nil || len(d.Targets) > 0 {
		return nil, newError(ErrUnsupported, src, toks[0].start, "not supported: DELETE with ORDER BY, LIMIT or several tables")
	}
	table, err := singleTable(src, toks, d.TableExprs)
	if err != nil {
		return nil, err
	}
	out := &Delete{Table: table}
	if d.Where != nil {
		out.Where = d.Where.Expr
	}
	return out, nil
}
