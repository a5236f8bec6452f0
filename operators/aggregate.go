package operators

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
)

// AggKind is an aggregate function.
type AggKind uint8

const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	AggGroupConcat
)

// AggSpec is one aggregate computed per group.
type AggSpec struct {
	Kind     AggKind
	Arg      expr.Expr // nil for COUNT(*)
	Distinct bool
	// Separator and Order apply to GROUP_CONCAT.
	Separator string
	Order     []AggOrder
	// Type is the result type.
	Type coldata.Type
}

// AggOrder orders GROUP_CONCAT values by an expression.
type AggOrder struct {
	Expr expr.Expr
	Desc bool
}

// AggResultType returns the result type of an aggregate over arg type t.
func AggResultType(k AggKind, t coldata.Type) coldata.Type {
	switch k {
	case AggCountStar, AggCount:
		return coldata.Int64
	case AggSum:
		if t == coldata.Int64 || t == coldata.Bool {
			return coldata.Int64
		}
		return coldata.Float64
	case AggAvg:
		return coldata.Float64
	case AggGroupConcat:
		return coldata.String
	}
	return t
}

// HashAggregate groups its input by Keys and computes Aggs per group. The
// output has the key columns followed by one column per aggregate. With no
// keys it produces exactly one row, also for empty input.
type HashAggregate struct {
	Input Operator
	Keys  []expr.Expr
	Aggs  []AggSpec
	// MaxGroups bounds the state (0: unbounded); past it the query fails
	// with a clear error instead of exhausting memory.
	MaxGroups int
	// MemoryLimit bounds the estimated bytes of the grouping state (0:
	// unbounded).
	MemoryLimit uint64
	stateBytes  uint64

	groups map[string]int
	keyB   []*coldata.Builder
	states [][]aggState // [agg][group]
	out    *Materialized
}

// aggState accumulates one aggregate of one group.
type aggState struct {
	count int64
	i     int64
	f     float64
	s     []byte
	b     byte
	set   bool
	seen  map[string]struct{}
	parts []concatPart
}

type concatPart struct {
	val  []byte
	keys []any // ORDER BY values
}

// Open implements Operator.
func (h *HashAggregate) Open(ctx context.Context) error {
	h.groups = map[string]int{}
	h.stateBytes = 0
	h.keyB = make([]*coldata.Builder, len(h.Keys))
	for i, k := range h.Keys {
		h.keyB[i] = coldata.NewBuilder(k.Type(), 0)
	}
	h.states = make([][]aggState, len(h.Aggs))
	h.out = nil
	return h.Input.Open(ctx)
}

// Next implements Operator.
func (h *HashAggregate) Next(ctx context.Context) (*coldata.Batch, error) {
	if h.out == nil {
		if err := h.consume(ctx); err != nil {
			return nil, err
		}
		h.out = &Materialized{Batches: []*coldata.Batch{h.result()}}
	}
	return h.out.Next(ctx)
}

// Close implements Operator.
func (h *HashAggregate) Close() error { return h.Input.Close() }

func (h *HashAggregate) consume(ctx context.Context) error {
	var key []byte
	var gids []int
	for {
		b, err := h.Input.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		keys := make([]*coldata.Vec, len(h.Keys))
		for i, k := range h.Keys {
			if keys[i], err = expr.Eval(k, b); err != nil {
				return err
			}
		}
		gids = gids[:0]
		for r := 0; r < b.Len; r++ {
			key = AppendRowKey(key[:0], keys, r)
			g, ok := h.groups[string(key)]
			if !ok {
				g = len(h.groups)
				if h.MaxGroups > 0 && g >= h.MaxGroups {
					return fmt.Errorf("GROUP BY state exceeds the memory limit of %d groups", h.MaxGroups)
				}
				// A group costs its key, its map entry and its accumulators.
				h.stateBytes += uint64(len(key) + 64 + 64*len(h.Aggs))
				if h.MemoryLimit > 0 && h.stateBytes > h.MemoryLimit {
					return fmt.Errorf("GROUP BY state exceeds the memory limit of %s (%d groups so far)", memory.FormatBytes(h.MemoryLimit), g)
				}
				h.groups[string(key)] = g
				for i, kb := range h.keyB {
					kb.AppendFrom(keys[i], r)
				}
				for a := range h.states {
					h.states[a] = append(h.states[a], aggState{})
				}
			}
			gids = append(gids, g)
		}
		for a := range h.Aggs {
			if err := h.update(a, b, gids); err != nil {
				return err
			}
		}
	}
	if len(h.Keys) == 0 && len(h.groups) == 0 {
		h.groups[""] = 0
		for a := range h.states {
			h.states[a] = append(h.states[a], aggState{})
		}
	}
	return nil
}

func (h *HashAggregate) update(a int, b *coldata.Batch, gids []int) error {
	spec := &h.Aggs[a]
	st := h.states[a]
	if spec.Kind == AggCountStar {
		for _, g := range gids {
			st[g].count++
		}
		return nil
	}
	v, err := expr.Eval(spec.Arg, b)
	if err != nil {
		return err
	}
	var orderVecs []*coldata.Vec
	for _, o := range spec.Order {
		ov, err := expr.Eval(o.Expr, b)
		if err != nil {
			return err
		}
		orderVecs = append(orderVecs, ov)
	}
	var dkey []byte
	for r, g := range gids {
		if v.IsNull(r) {
			continue
		}
		s := &st[g]
		if spec.Distinct {
			dkey = AppendRowKey(dkey[:0], []*coldata.Vec{v}, r)
			if s.seen == nil {
				s.seen = map[string]struct{}{}
			}
			if _, dup := s.seen[string(dkey)]; dup {
				continue
			}
			s.seen[string(dkey)] = struct{}{}
		}
		s.count++
		switch spec.Kind {
		case AggSum, AggAvg:
			switch v.Type {
			case coldata.Int64, coldata.Bool:
				x := int64(0)
				if v.Type == coldata.Int64 {
					x = v.Int(r)
				} else if v.Bool(r) {
					x = 1
				}
				if spec.Kind == AggSum && spec.Type == coldata.Int64 {
					sum := s.i + x
					if (x > 0 && sum < s.i) || (x < 0 && sum > s.i) {
						return fmt.Errorf("BIGINT value is out of range in SUM")
					}
					s.i = sum
				}
				s.f += float64(x)
			case coldata.Float64:
				s.f += v.Float(r)
			}
		case AggMin, AggMax:
			if !s.set || better(v, r, s, spec.Kind == AggMin) {
				s.set = true
				switch v.Type {
				case coldata.Bool:
					s.b = v.Bools[idx(v, r)]
				case coldata.Int64:
					s.i = v.Int(r)
				case coldata.Float64:
					s.f = v.Float(r)
				case coldata.String:
					s.s = append(s.s[:0], v.Str(r)...)
				}
			}
		case AggGroupConcat:
			p := concatPart{val: append([]byte(nil), v.Str(r)...)}
			for _, ov := range orderVecs {
				p.keys = append(p.keys, ov.Value(r))
			}
			s.parts = append(s.parts, p)
		}
	}
	return nil
}

// better reports whether row r of v beats the current extreme in s.
func better(v *coldata.Vec, r int, s *aggState, min bool) bool {
	var c int
	switch v.Type {
	case coldata.Bool:
		c = int(v.Bools[idx(v, r)]) - int(s.b)
	case coldata.Int64:
		x := v.Int(r)
		if x < s.i {
			c = -1
		} else if x > s.i {
			c = 1
		}
	case coldata.Float64:
		x := v.Float(r)
		if x < s.f {
			c = -1
		} else if x > s.f {
			c = 1
		}
	case coldata.String:
		c = bytes.Compare(v.Str(r), s.s)
	}
	if min {
		return c < 0
	}
	return c > 0
}

func (h *HashAggregate) result() *coldata.Batch {
	n := len(h.groups)
	cols := make([]*coldata.Vec, 0, len(h.Keys)+len(h.Aggs))
	for _, kb := range h.keyB {
		cols = append(cols, kb.Finish())
	}
	for a, spec := range h.Aggs {
		b := coldata.NewBuilder(spec.Type, n)
		for g := 0; g < n; g++ {
			s := &h.states[a][g]
			switch spec.Kind {
			case AggCountStar, AggCount:
				b.AppendInt(s.count)
			case AggSum:
				switch {
				case s.count == 0:
					b.AppendNull()
				case spec.Type == coldata.Int64:
					b.AppendInt(s.i)
				default:
					b.AppendFloat(s.f)
				}
			case AggAvg:
				if s.count == 0 {
					b.AppendNull()
				} else {
					b.AppendFloat(s.f / float64(s.count))
				}
			case AggMin, AggMax:
				if !s.set {
					b.AppendNull()
					continue
				}
				switch spec.Type {
				case coldata.Bool:
					b.AppendBool(s.b != 0)
				case coldata.Int64:
					b.AppendInt(s.i)
				case coldata.Float64:
					b.AppendFloat(s.f)
				case coldata.String:
					b.AppendBytes(s.s)
				}
			case AggGroupConcat:
				if len(s.parts) == 0 {
					b.AppendNull()
					continue
				}
				parts := s.parts
				if len(spec.Order) > 0 {
					sort.SliceStable(parts, func(i, j int) bool {
						return compareOrderKeys(parts[i].keys, parts[j].keys, spec.Order) < 0
					})
				}
				var out []byte
				for i, p := range parts {
					if i > 0 {
						out = append(out, spec.Separator...)
					}
					out = append(out, p.val...)
				}
				b.AppendBytes(out)
			}
		}
		cols = append(cols, b.Finish())
	}
	return &coldata.Batch{Cols: cols, Len: n}
}

// compareOrderKeys compares GROUP_CONCAT order values, NULL first.
func compareOrderKeys(a, b []any, order []AggOrder) int {
	for i, o := range order {
		c := compareAny(a[i], b[i])
		if c != 0 {
			if o.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

func compareAny(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}
