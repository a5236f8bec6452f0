// Package planner turns parsed SQL statements into executable plans: it
// binds names and types against the catalog, builds a logical plan, rewrites
// it with the optimizer's named rules (rules.go lists them in order, each
// rule_<name>.go holds one), places each operator on a device and builds
// the operator tree.
package planner

import (
	"fmt"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Device says where an operator runs.
type Device uint8

const (
	// CPU runs the operator with the pure-Go kernels.
	CPU Device = iota
	// GPU runs the operator with CUDA kernels.
	GPU
)

func (d Device) String() string {
	if d == GPU {
		return "gpu"
	}
	return "cpu"
}

// Column is one output column of a plan node.
type Column struct {
	Name string
	Type coldata.Type
}

// Node is a plan operator.
type Node interface {
	// Columns describes the node's output.
	Columns() []Column
	// Inputs returns the node's children.
	Inputs() []Node
	// Placement is the device the node runs on.
	Placement() Device
	// describe is the node's one-line EXPLAIN text (without device).
	describe() string
}

// placed is embedded by nodes to carry their device.
type placed struct {
	Dev Device
	// Why says why a node that could run on the GPU runs on the CPU
	// (auto mode while its kernels compile); EXPLAIN prints it.
	Why string
	// pinned marks the root of a subtree that PlaceByCost keeps on the
	// CPU whole: Place leaves it as it is. onHost marks an operator
	// PlaceByCost runs on the CPU over inputs placed as before.
	pinned, onHost bool
}

// Placement implements Node.
func (p *placed) Placement() Device { return p.Dev }

func (p *placed) why() string { return p.Why }

func (p *placed) setWhy(why string) { p.Why = why }

// Scan reads columns Cols of a table snapshot.
type Scan struct {
	placed
	Table *catalog.Table
	Alias string
	Cols  []int
	// Indexes are the table's indexes (index.go).
	Indexes []*catalog.Index
	// Devices > 1: a multi-device plan reads the table on that many
	// devices (place_exchanges), each its share of the row groups
	// (operators.RowGroupShare) or, Replicated, all of them.
	Devices    int
	Replicated bool
}

// Columns implements Node.
func (s *Scan) Columns() []Column {
	out := make([]Column, len(s.Cols))
	for i, c := range s.Cols {
		out[i] = Column{Name: s.Table.Columns[c].Name, Type: s.Table.Columns[c].Type}
	}
	return out
}

// Inputs implements Node.
func (s *Scan) Inputs() []Node { return nil }

func (s *Scan) describe() string {
	names := make([]string, len(s.Cols))
	for i, c := range s.Cols {
		names[i] = s.Table.Columns[c].Name
	}
	return fmt.Sprintf("Scan %s %v (%d rows)", s.Table.Name, names, s.Table.Rows) + s.spreadNote()
}

// Values produces constant rows.
type Values struct {
	placed
	Out  []Column
	Rows [][]expr.Expr
}

// Columns implements Node.
func (v *Values) Columns() []Column { return v.Out }

// Inputs implements Node.
func (v *Values) Inputs() []Node { return nil }

func (v *Values) describe() string { return fmt.Sprintf("Values (%d rows)", len(v.Rows)) }

// Filter keeps rows where Pred is true.
type Filter struct {
	placed
	Input Node
	Pred  expr.Expr
}

// Columns implements Node.
func (f *Filter) Columns() []Column { return f.Input.Columns() }

// Inputs implements Node.
func (f *Filter) Inputs() []Node { return []Node{f.Input} }

func (f *Filter) describe() string { return "Filter " + f.Pred.String() }

// Project computes expressions.
type Project struct {
	placed
	Input Node
	Exprs []expr.Expr
	Out   []Column
}

// Columns implements Node.
func (p *Project) Columns() []Column { return p.Out }

// Inputs implements Node.
func (p *Project) Inputs() []Node { return []Node{p.Input} }

func (p *Project) describe() string {
	s := "Project"
	for i, e := range p.Exprs {
		if i > 0 {
			s += ","
		}
		s += " " + e.String()
		if c, ok := e.(*expr.ColumnRef); !ok || c.Name != p.Out[i].Name {
			s += " AS " + p.Out[i].Name
		}
	}
	return s
}

// Sort orders rows.
type Sort struct {
	placed
	Input Node
	Keys  []opspec.SortKey
}

// Columns implements Node.
func (s *Sort) Columns() []Column { return s.Input.Columns() }

// Inputs implements Node.
func (s *Sort) Inputs() []Node { return []Node{s.Input} }

func (s *Sort) describe() string {
	cols := s.Input.Columns()
	d := "Sort"
	for i, k := range s.Keys {
		if i > 0 {
			d += ","
		}
		d += " " + cols[k.Col].Name
		if k.Desc {
			d += " DESC"
		}
		switch k.Nulls {
		case opspec.NullsFirst:
			d += " NULLS FIRST"
		case opspec.NullsLast:
			d += " NULLS LAST"
		}
	}
	if s.Dev == GPU {
		d += " (gpu: " + sortNote(cols, s.Keys) + ")"
	}
	return d
}

// Limit skips Offset rows and keeps Count (Count < 0: all).
type Limit struct {
	placed
	Input         Node
	Count, Offset int64
}

// Columns implements Node.
func (l *Limit) Columns() []Column { return l.Input.Columns() }

// Inputs implements Node.
func (l *Limit) Inputs() []Node { return []Node{l.Input} }

func (l *Limit) describe() string {
	if l.Offset > 0 {
		return fmt.Sprintf("Limit %d offset %d", l.Count, l.Offset)
	}
	return fmt.Sprintf("Limit %d", l.Count)
}

// Distinct removes duplicate rows.
type Distinct struct {
	placed
	Input Node
}

// Columns implements Node.
func (d *Distinct) Columns() []Column { return d.Input.Columns() }

// Inputs implements Node.
func (d *Distinct) Inputs() []Node { return []Node{d.Input} }

func (d *Distinct) describe() string { return "Distinct" }

// Aggregate groups rows by Keys and computes Aggs; its output is the key
// columns followed by the aggregates.
type Aggregate struct {
	placed
	Input    Node
	Keys     []expr.Expr
	Aggs     []opspec.AggSpec
	AggNames []string
}

// Columns implements Node.
func (a *Aggregate) Columns() []Column {
	out := make([]Column, 0, len(a.Keys)+len(a.Aggs))
	for _, k := range a.Keys {
		out = append(out, Column{Name: k.String(), Type: k.Type()})
	}
	for i, s := range a.Aggs {
		out = append(out, Column{Name: a.AggNames[i], Type: s.Type})
	}
	return out
}

// Inputs implements Node.
func (a *Aggregate) Inputs() []Node { return []Node{a.Input} }

func (a *Aggregate) describe() string {
	d := "HashAggregate"
	if len(a.Keys) > 0 {
		d += " keys:"
		for i, k := range a.Keys {
			if i > 0 {
				d += ","
			}
			d += " " + k.String()
		}
	}
	if len(a.Aggs) > 0 {
		d += " aggs:"
		for i, n := range a.AggNames {
			if i > 0 {
				d += ","
			}
			d += " " + n
		}
	}
	return d
}

// Join pairs rows of Left and Right: equal LeftKeys/RightKeys (each over its
// own side's columns) and a TRUE residual Cond (over Left's columns followed
// by Right's). Output: Left's columns then Right's. Left joins keep
// unmatched left rows.
type Join struct {
	placed
	Kind                opspec.JoinKind
	Left, Right         Node
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
}

// Columns implements Node.
func (j *Join) Columns() []Column {
	if j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin {
		return j.Left.Columns()
	}
	return append(append([]Column(nil), j.Left.Columns()...), j.Right.Columns()...)
}

// Inputs implements Node.
func (j *Join) Inputs() []Node { return []Node{j.Left, j.Right} }

func (j *Join) describe() string {
	kind := "Inner"
	switch j.Kind {
	case opspec.LeftJoin:
		kind = "Left"
	case opspec.SemiJoin:
		kind = "Semi"
	case opspec.AntiJoin:
		kind = "Anti"
	}
	d := kind + " NestedLoopJoin"
	if len(j.LeftKeys) > 0 {
		d = kind + " HashJoin on"
		for i := range j.LeftKeys {
			if i > 0 {
				d += " AND"
			}
			d += " " + j.LeftKeys[i].String() + " = " + j.RightKeys[i].String()
		}
	}
	if j.Cond != nil {
		d += " filter " + j.Cond.String()
	}
	return d
}

// Union concatenates its inputs (UNION ALL); UNION is a Distinct above it.
type Union struct {
	placed
	Parts []Node
	Out   []Column
}

// Columns implements Node.
func (u *Union) Columns() []Column { return u.Out }

// Inputs implements Node.
func (u *Union) Inputs() []Node { return u.Parts }

func (u *Union) describe() string { return "UnionAll" }

// SetOp is INTERSECT or EXCEPT [ALL] of two queries (inputs converted to
// the result's column types).
type SetOp struct {
	placed
	Left, Right Node
	Out         []Column
	Except, All bool
}

// Columns implements Node.
func (s *SetOp) Columns() []Column { return s.Out }

// Inputs implements Node.
func (s *SetOp) Inputs() []Node { return []Node{s.Left, s.Right} }

func (s *SetOp) describe() string {
	d := "Intersect"
	if s.Except {
		d = "Except"
	}
	if s.All {
		d += " All"
	}
	return d
}
