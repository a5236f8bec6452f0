package planner

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/sql"
)

// planUnion plans UNION [ALL|DISTINCT]: inputs are converted to common
// column types; ORDER BY and LIMIT apply to the whole result and may name
// the first SELECT's columns or their ordinals.
func (b *binder) planUnion(u *sqlparser.Union) (Node, error) {
	left, err := b.planSelectStatement(u.Left)
	if err != nil {
		return nil, err
	}
	rightStmt, setOp := setOpOperand(u.Right)
	right, err := b.planSelectStatement(rightStmt)
	if err != nil {
		return nil, err
	}
	lc, rc := left.Columns(), right.Columns()
	if len(lc) != len(rc) {
		return nil, errorf(TypeMismatch, "", "the SELECTs of a UNION have different numbers of columns (%d and %d)", len(lc), len(rc))
	}
	out := make([]Column, len(lc))
	for i := range lc {
		out[i] = Column{Name: lc[i].Name, Type: expr.Unify(lc[i].Type, rc[i].Type)}
		if out[i].Type == 0 {
			out[i].Type = boolType
		}
	}
	parts := []Node{castNode(left, out), castNode(right, out)}
	var node Node = &Union{Parts: parts, Out: out}
	switch {
	case setOp != "":
		node = &SetOp{Left: parts[0], Right: parts[1], Out: out,
			Except: strings.HasPrefix(setOp, "except"), All: strings.HasSuffix(setOp, "_all")}
	case u.Type != sqlparser.UnionAllStr:
		node = &Distinct{Input: node}
	}
	if len(u.OrderBy) > 0 {
		s := &Sort{Input: node}
		for _, o := range u.OrderBy {
			col := -1
			oe, nulls := nullsOrder(o.Expr)
			switch x := oe.(type) {
			case *sqlparser.SQLVal:
				if n, err := b.intLiteral(x, "ORDER BY position"); err == nil && n >= 1 && int(n) <= len(out) {
					col = int(n) - 1
				}
			case *sqlparser.ColName:
				for i, c := range out {
					if strings.EqualFold(c.Name, x.Name.String()) {
						col = i
						break
					}
				}
			}
			if col < 0 {
				return nil, errorf(UnknownColumn, sqlparser.String(oe), "ORDER BY of a UNION must name a result column or position, not %s", sqlparser.String(oe))
			}
			s.Keys = append(s.Keys, opspec.SortKey{Col: col, Desc: o.Direction == sqlparser.DescScr, Nulls: nulls})
		}
		node = s
	}
	if u.Limit != nil {
		lim := &Limit{Input: node, Count: -1}
		if u.Limit.Rowcount != nil {
			if lim.Count, err = b.intLiteral(u.Limit.Rowcount, "LIMIT"); err != nil {
				return nil, err
			}
		}
		if u.Limit.Offset != nil {
			if lim.Offset, err = b.intLiteral(u.Limit.Offset, "OFFSET"); err != nil {
				return nil, err
			}
		}
		node = lim
	}
	return node, nil
}

// castNode converts n's columns to the given types with a projection, or
// returns n when they already match.
func castNode(n Node, out []Column) Node { return castNodeWith(n, out, expr.CastTo) }

// castCompared is castNode for a subquery whose values a comparison
// reads: text becomes a DATETIME as the comparison reads it
// (expr.CompareCastTo).
func castCompared(n Node, out []Column) Node { return castNodeWith(n, out, expr.CompareCastTo) }

func castNodeWith(n Node, out []Column, convert func(expr.Expr, coldata.Type) (expr.Expr, error)) Node {
	cols := n.Columns()
	same := true
	for i, c := range cols {
		if c.Type != out[i].Type {
			same = false
		}
	}
	if same {
		return n
	}
	p := &Project{Input: n, Out: make([]Column, len(cols))}
	for i, c := range cols {
		e, _ := convert(&expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}, out[i].Type)
		p.Exprs = append(p.Exprs, e)
		p.Out[i] = Column{Name: c.Name, Type: out[i].Type}
	}
	return p
}

// setOpOperand recognises the dialect layer's spelling of INTERSECT and
// EXCEPT (sql/setops.go): a right operand SELECT * FROM (q) AS
// __gsql_<kind>. It returns q and the kind ("intersect", "except_all",
// ...), or the operand itself and "".
func setOpOperand(st sqlparser.SelectStatement) (sqlparser.SelectStatement, string) {
	sel, ok := st.(*sqlparser.Select)
	if !ok || len(sel.From) != 1 || sel.Where != nil || sel.GroupBy != nil {
		return st, ""
	}
	ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return st, ""
	}
	sub, ok := ate.Expr.(*sqlparser.Subquery)
	name := ate.As.String()
	if !ok || !strings.HasPrefix(name, sql.SetOpMarker) {
		return st, ""
	}
	return sub.Select, strings.TrimPrefix(name, sql.SetOpMarker)
}
