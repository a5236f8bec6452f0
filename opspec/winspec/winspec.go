// Package winspec holds the specifications of window functions: the
// function kinds, frames, bounds, order keys and the call (Func) that the
// planner binds and the window operators (operators/window, on the CPU and
// the GPU) compute. It imports only coldata, expr and opspec.
package winspec

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Kind is a window function.
type Kind uint8

const (
	RowNumber Kind = iota
	Rank
	DenseRank
	PercentRank
	CumeDist
	Ntile
	Lag
	Lead
	FirstValue
	LastValue
	NthValue
	CountStar
	Count
	Sum
	Avg
	Min
	Max
)

var kindNames = [...]string{"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
	"lag", "lead", "first_value", "last_value", "nth_value", "count", "count", "sum", "avg", "min", "max"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// UsesFrame reports whether the function reads its frame (the others see
// the whole partition, whatever the frame says).
func (k Kind) UsesFrame() bool { return k >= FirstValue }

// Unit is a frame's unit: physical rows or a range of order-key values.
type Unit uint8

const (
	Rows Unit = iota
	Range
)

// BoundKind is one end of a frame.
type BoundKind uint8

const (
	UnboundedPreceding BoundKind = iota
	Preceding                    // Offset PRECEDING
	CurrentRow
	Following // Offset FOLLOWING
	UnboundedFollowing
)

// Bound is a frame bound. Offset is an int64 row count for ROWS and an
// int64 or float64 distance in order-key values for RANGE.
type Bound struct {
	Kind   BoundKind
	Offset any
}

// Frame is ROWS|RANGE BETWEEN Start AND End.
type Frame struct {
	Unit       Unit
	Start, End Bound
}

// DefaultFrame is the frame of a window without a frame clause: with ORDER
// BY, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the current row's
// peers included); without, the whole partition.
func DefaultFrame(ordered bool) Frame {
	if ordered {
		return Frame{Unit: Range, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: CurrentRow}}
	}
	return Frame{Unit: Range, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: UnboundedFollowing}}
}

func (b Bound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return expr.FormatLiteral(b.Offset) + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return expr.FormatLiteral(b.Offset) + " FOLLOWING"
	}
	return "UNBOUNDED FOLLOWING"
}

func (f Frame) String() string {
	u := "ROWS"
	if f.Unit == Range {
		u = "RANGE"
	}
	return u + " BETWEEN " + f.Start.String() + " AND " + f.End.String()
}

// Key is one ORDER BY item of a window.
type Key struct {
	Expr  expr.Expr
	Desc  bool
	Nulls opspec.NullOrder
}

// Func is one window function call: its arguments and its window, all
// expressions over the operator's input.
type Func struct {
	Kind Kind
	// Args: the value for LAG/LEAD/FIRST_VALUE/LAST_VALUE/NTH_VALUE and
	// the aggregates; LAG/LEAD's default as the second (converted to the
	// result type by the planner).
	Args []expr.Expr
	// N is LAG/LEAD's offset, NTILE's bucket count, NTH_VALUE's position.
	N         int64
	Partition []expr.Expr
	Order     []Key
	Frame     Frame
	// Type is the result type.
	Type coldata.Type
}

// Spec renders the function's window as SQL (EXPLAIN).
func (f *Func) Spec() string {
	s := ""
	if len(f.Partition) > 0 {
		s = "PARTITION BY"
		for i, p := range f.Partition {
			if i > 0 {
				s += ","
			}
			s += " " + p.String()
		}
	}
	if len(f.Order) > 0 {
		if s != "" {
			s += " "
		}
		s += "ORDER BY"
		for i, k := range f.Order {
			if i > 0 {
				s += ","
			}
			s += " " + k.Expr.String()
			if k.Desc {
				s += " DESC"
			}
			switch k.Nulls {
			case opspec.NullsFirst:
				s += " NULLS FIRST"
			case opspec.NullsLast:
				s += " NULLS LAST"
			}
		}
	}
	if f.Kind.UsesFrame() {
		if s != "" {
			s += " "
		}
		s += f.Frame.String()
	}
	return s
}

// String renders the call as SQL (EXPLAIN).
func (f *Func) String() string {
	s := f.Kind.String() + "("
	switch {
	case f.Kind == CountStar:
		s += "*"
	case f.Kind == Lag || f.Kind == Lead:
		s += f.Args[0].String() + ", " + fmt.Sprint(f.N)
		if len(f.Args) > 1 {
			s += ", " + f.Args[1].String()
		}
	case f.Kind == Ntile:
		s += fmt.Sprint(f.N)
	case f.Kind == NthValue:
		s += f.Args[0].String() + ", " + fmt.Sprint(f.N)
	default:
		for i, a := range f.Args {
			if i > 0 {
				s += ", "
			}
			s += a.String()
		}
	}
	return s + ") OVER (" + f.Spec() + ")"
}

// Identity identifies the call by what it computes: like String, but
// columns by index (two tables' columns may share a name), so that equal
// calls can share one result.
func (f *Func) Identity() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s|%d|%s|", f.Kind, f.N, f.Type)
	for _, a := range f.Args {
		writeIdentity(&sb, a)
		sb.WriteByte(',')
	}
	sb.WriteString(OrderIdentity(f))
	if f.Kind.UsesFrame() {
		sb.WriteString(f.Frame.String())
	}
	return sb.String()
}

// OrderIdentity identifies the row order a function needs (its partition
// and order keys): functions with equal ones share one sort.
func OrderIdentity(f *Func) string {
	var sb strings.Builder
	sb.WriteString("P")
	for _, p := range f.Partition {
		writeIdentity(&sb, p)
		sb.WriteByte(',')
	}
	sb.WriteString("O")
	for _, k := range f.Order {
		writeIdentity(&sb, k.Expr)
		fmt.Fprintf(&sb, " %t %d,", k.Desc, k.Nulls)
	}
	return sb.String()
}

func writeIdentity(sb *strings.Builder, e expr.Expr) {
	switch x := e.(type) {
	case *expr.ColumnRef:
		fmt.Fprintf(sb, "#%d", x.Index)
	case *expr.Literal:
		fmt.Fprintf(sb, "%s:%s", x.T, expr.FormatLiteral(x.Value))
	case *expr.Call:
		fmt.Fprintf(sb, "%s@%p(", x.Fn.Name, x.Fn)
		for i, a := range x.Args {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeIdentity(sb, a)
		}
		sb.WriteByte(')')
	default:
		fmt.Fprintf(sb, "%T@%p", e, e)
	}
}
