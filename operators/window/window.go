// Package window computes SQL window functions on the CPU: ROW_NUMBER,
// RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD,
// FIRST_VALUE, LAST_VALUE, NTH_VALUE and the aggregates COUNT, SUM, AVG,
// MIN and MAX over ROWS or RANGE frames.
//
// The Operator materialises its input (a window needs a whole partition),
// then works one window specification at a time, in the manner of
// CockroachDB's colexecwindow: the rows are sorted by partition and order
// keys, a partitioner marks where partitions and peer groups start with
// whole-vector comparisons of neighbouring keys, frame bounds are computed
// for every row, and each function fills its result vector in sorted order
// with loops over whole vectors. Results go back to the input's row order,
// so the output is the input's rows, in input order, followed by one
// column per function.
package window

import (
	"context"
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
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
	Nulls operators.NullOrder
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
			case operators.NullsFirst:
				s += " NULLS FIRST"
			case operators.NullsLast:
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

// Operator computes Funcs over its input: the output has the input's
// NCols columns followed by one column per function, rows in input order.
type Operator struct {
	Input operators.Operator
	NCols int
	Funcs []Func

	done bool
	all  *coldata.Batch // input columns then results
	pos  int
}

// Open implements operators.Operator.
func (o *Operator) Open(ctx context.Context) error {
	o.done, o.all, o.pos = false, nil, 0
	return o.Input.Open(ctx)
}

// Next implements operators.Operator.
func (o *Operator) Next(ctx context.Context) (*coldata.Batch, error) {
	if !o.done {
		if err := o.compute(ctx); err != nil {
			return nil, err
		}
		o.done = true
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.all == nil || o.pos >= o.all.Len {
		o.all = nil
		return nil, nil
	}
	end := min(o.pos+operators.BatchSize, o.all.Len)
	out := coldata.SliceBatch(o.all, o.pos, end)
	o.pos = end
	return out, nil
}

// Close implements operators.Operator.
func (o *Operator) Close() error {
	o.all = nil
	return o.Input.Close()
}

func (o *Operator) compute(ctx context.Context) error {
	var batches []*coldata.Batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := o.Input.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
	}
	all, err := coldata.ConcatCheck(batches, o.NCols, ctx.Err)
	if err != nil {
		return err
	}
	if all.Len == 0 {
		return nil
	}
	res, err := Compute(ctx, all, o.Funcs)
	if err != nil {
		return err
	}
	cols := append(append(make([]*coldata.Vec, 0, len(all.Cols)+len(res)), all.Cols[:o.NCols]...), res...)
	o.all = &coldata.Batch{Cols: cols, Len: all.Len}
	return nil
}

// Compute evaluates funcs over the rows of b and returns one result vector
// per function, in b's row order. Functions with the same window share one
// sort.
func Compute(ctx context.Context, b *coldata.Batch, funcs []Func) ([]*coldata.Vec, error) {
	out := make([]*coldata.Vec, len(funcs))
	done := make([]bool, len(funcs))
	for i := range funcs {
		if done[i] {
			continue
		}
		group := []int{i}
		key := orderIdentity(&funcs[i])
		for j := i + 1; j < len(funcs); j++ {
			if !done[j] && orderIdentity(&funcs[j]) == key {
				group = append(group, j)
			}
		}
		p, err := newPartitioned(ctx, b, funcs[i].Partition, funcs[i].Order)
		if err != nil {
			return nil, err
		}
		for _, j := range group {
			done[j] = true
			v, err := p.compute(ctx, b, &funcs[j])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", funcs[j].Kind, err)
			}
			out[j] = v
		}
	}
	return out, nil
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
	sb.WriteString(orderIdentity(f))
	if f.Kind.UsesFrame() {
		sb.WriteString(f.Frame.String())
	}
	return sb.String()
}

// orderIdentity identifies the row order a function needs (its partition
// and order keys): functions with equal ones share one sort.
func orderIdentity(f *Func) string {
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
