package planner

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/operators"

	"github.com/gsqlengine/gsql/sql"
)

// Shared common table expressions. The dialect layer names the derived
// table standing for a CTE referenced more than once with sql.CTEMarker
// and the CTE's position; every such derived table of a statement with
// the same name becomes a CTERef to one definition, built once into an
// operators.SharedResult that all references read.

// cteDef is one shared CTE of a statement.
type cteDef struct {
	body Node
	refs int
}

// cteSet holds a statement's shared CTEs by marker name.
type cteSet map[string]*cteDef

// CTERef reads a CTE computed once per statement. Body is its plan (shown
// by EXPLAIN under each reference; the first reference built runs it).
type CTERef struct {
	placed
	Name string
	Body Node
	def  *cteDef
}

// Columns implements Node.
func (c *CTERef) Columns() []Column { return c.Body.Columns() }

// Inputs implements Node.
func (c *CTERef) Inputs() []Node { return []Node{c.Body} }

func (c *CTERef) describe() string {
	return fmt.Sprintf("CTE %s (computed once, %d references)", c.Name, c.def.refs)
}

// isSharedCTE reports whether a derived table's alias is the dialect
// layer's marker of a shared CTE.
func isSharedCTE(alias string) bool { return strings.HasPrefix(alias, sql.CTEMarker) }

// sharedCTE returns a reference to the CTE named alias, planning its body
// with plan on first use.
func (b *binder) sharedCTE(alias string, plan func() (Node, error)) (Node, error) {
	// The marker is CTEMarker, the CTE's offset, '_', its name.
	name := alias[len(sql.CTEMarker):]
	if i := strings.IndexByte(name, '_'); i >= 0 {
		name = name[i+1:]
	}
	if b.ctes == nil {
		b.ctes = cteSet{}
	}
	d, ok := b.ctes[alias]
	if !ok {
		body, err := plan()
		if err != nil {
			return nil, err
		}
		d = &cteDef{body: body}
		b.ctes[alias] = d
	}
	d.refs++
	return &CTERef{Name: name, Body: d.body, def: d}, nil
}

// sharedResult builds the CTE's body on its first reference.
func (b *Built) sharedResult(r *CTERef) (*operators.SharedResult, error) {
	if sh, ok := b.shared[r.def]; ok {
		return sh, nil
	}
	in, err := b.build(r.Body)
	if err != nil {
		return nil, fmt.Errorf("CTE %s: %w", r.Name, err)
	}
	if b.shared == nil {
		b.shared = map[*cteDef]*operators.SharedResult{}
	}
	sh := &operators.SharedResult{Input: in}
	b.shared[r.def] = sh
	return sh, nil
}
