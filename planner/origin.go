package planner

import (
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Origin is where an output column comes from when it is a table column
// passed through unchanged (renamed at most): drivers and the MySQL wire
// describe such a column with its table's name, NOT NULL and keys, as
// MySQL does. Table is nil for a computed column.
type Origin struct {
	Table *catalog.Table
	// Alias is the name the query gave the table (its name when none).
	Alias string
	// Col is the column's position in Table.Columns.
	Col int
	// Indexes are the table's indexes (unique or not), from the scan.
	Indexes []*catalog.Index
	// OuterNull is set when an outer join may put NULL where the table
	// has none.
	OuterNull bool
	// scan is the table's occurrence in the query (a self-join reads
	// one table twice).
	scan *Scan
}

// NotNull reports whether the column's values can never be NULL.
func (o Origin) NotNull() bool {
	return o.Table != nil && !o.OuterNull && o.Table.Columns[o.Col].NotNull
}

// KeyRole says how a column takes part in its table's keys, as MySQL's
// column flags do: "PRI" for a column of the primary key, "UNI" for the
// column of a one-column unique key, "MUL" for the first column of any
// other key or index, "PART" for a later column of one, "" for none.
func (o Origin) KeyRole() string {
	if o.Table == nil {
		return ""
	}
	role := ""
	consider := func(cols []int, primary, unique bool) {
		for i, c := range cols {
			if c != o.Col {
				continue
			}
			switch {
			case primary:
				role = "PRI"
			case i == 0 && unique && len(cols) == 1 && role != "PRI":
				role = "UNI"
			case i == 0 && role == "" || i == 0 && role == "PART":
				role = "MUL"
			case role == "":
				role = "PART"
			}
		}
	}
	for _, k := range o.Table.Keys {
		consider(k.Cols, k.Primary, true)
	}
	for _, ix := range o.Indexes {
		consider(ix.Cols, false, ix.Unique)
	}
	return role
}

// Origins returns the origin of each of n's output columns (a zero Origin
// for computed ones). It follows columns through the operators that pass
// values unchanged, bound or placed; any other operator's output counts as
// computed.
func Origins(n Node) []Origin {
	out := make([]Origin, len(n.Columns()))
	switch x := n.(type) {
	case *Scan:
		for i, c := range x.Cols {
			alias := x.Alias
			if alias == "" {
				alias = x.Table.Name
			}
			out[i] = Origin{Table: x.Table, Alias: alias, Col: c, Indexes: x.Indexes, scan: x}
		}
	case *Filter, *Sort, *Limit, *Distinct, *Transfer, *CTERef:
		copy(out, Origins(n.Inputs()[0]))
	case *Project:
		refOrigins(out, x.Exprs, Origins(x.Input))
	case *Compute:
		in := Origins(x.Input)
		if x.Exprs == nil {
			copy(out, in)
		} else {
			refOrigins(out, x.Exprs, in)
		}
	case *Aggregate:
		refOrigins(out, x.Keys, Origins(x.Input))
	case *DeviceAggregate:
		copy(out, Origins(x.Orig))
	case *Window:
		copy(out, Origins(x.Input))
	case *DeviceWindow:
		copy(out, Origins(x.Orig))
	case *Join:
		joinOrigins(out, x.Kind, x.Left, x.Right, len(x.Left.Columns()))
	case *DeviceJoin:
		// The device inputs can carry computed key columns after the
		// ones the join outputs (ON f.id = e.id + 1): the output's left
		// part is the original join's left columns.
		joinOrigins(out, x.Orig.Kind, x.Left, x.Right, len(x.Orig.Left.Columns()))
	}
	return out
}

// refOrigins gives each plain column reference among exprs its input's
// origin.
func refOrigins(out []Origin, exprs []expr.Expr, in []Origin) {
	for i, e := range exprs {
		if c, ok := e.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(in) && i < len(out) {
			out[i] = in[c.Index]
		}
	}
}

// joinOrigins fills out from a join's inputs: the first nLeft output
// columns are left's, the rest (if any) right's leading ones.
func joinOrigins(out []Origin, kind opspec.JoinKind, left, right Node, nLeft int) {
	nLeft = min(nLeft, len(out))
	copy(out[:nLeft], Origins(left))
	if kind == opspec.SemiJoin || kind == opspec.AntiJoin || len(out) == nLeft {
		return
	}
	r := Origins(right)
	for i := range out[nLeft:] {
		if i == len(r) {
			break
		}
		o := r[i]
		o.OuterNull = kind == opspec.LeftJoin
		out[nLeft+i] = o
	}
}

// uniqueKeys are the column sets whose values identify one row of o's
// table: the primary key, and UNIQUE keys and indexes whose columns are
// all NOT NULL (a UNIQUE key lets NULLs repeat).
func (o Origin) uniqueKeys() [][]int {
	var keys [][]int
	notNull := func(cols []int) bool {
		for _, c := range cols {
			if !o.Table.Columns[c].NotNull {
				return false
			}
		}
		return true
	}
	for _, k := range o.Table.Keys {
		if k.Primary || notNull(k.Cols) {
			keys = append(keys, k.Cols)
		}
	}
	for _, ix := range o.Indexes {
		if ix.Unique && notNull(ix.Cols) {
			keys = append(keys, ix.Cols)
		}
	}
	return keys
}

// dependsOn reports whether the column with origin o is functionally
// dependent on the grouped columns (their origins): MySQL 8's rule that
// a grouped PRIMARY KEY or UNIQUE NOT NULL key of a table determines its
// other columns, in the same occurrence of the table.
func (o Origin) dependsOn(grouped []Origin) bool {
	if o.Table == nil {
		return false
	}
	for _, key := range o.uniqueKeys() {
		all := true
		for _, kc := range key {
			found := false
			for _, g := range grouped {
				if g.scan == o.scan && g.Col == kc {
					found = true
					break
				}
			}
			if !found {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
