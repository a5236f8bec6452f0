package difftest

import "strings"

// dialect is the engine a query is rendered for. Queries are generated
// once, as a tree, and rendered for each engine, so that the few
// constructs the two dialects spell differently (see the package comment)
// come from the same random choices.
type dialect int

const (
	dGSQL dialect = iota
	dSQLite
)

// node is a fragment of generated SQL.
type node interface {
	render(d dialect, b *strings.Builder)
}

// lit is SQL text both dialects spell the same way.
type lit string

func (l lit) render(_ dialect, b *strings.Builder) { b.WriteString(string(l)) }

// seq is a concatenation of fragments.
type seq []node

func (s seq) render(d dialect, b *strings.Builder) {
	for _, n := range s {
		n.render(d, b)
	}
}

// alt is a fragment each dialect spells its own way.
type alt struct{ g, s node }

func (a alt) render(d dialect, b *strings.Builder) {
	if d == dGSQL {
		a.g.render(d, b)
	} else {
		a.s.render(d, b)
	}
}

// cat joins strings and nodes into one node.
func cat(parts ...any) node {
	out := make(seq, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			out = append(out, lit(p))
		case node:
			out = append(out, p)
		default:
			panic("difftest: cat of a non-node")
		}
	}
	return out
}

// join joins nodes with a separator.
func join(ns []node, sep string) node {
	out := make(seq, 0, 2*len(ns))
	for i, n := range ns {
		if i > 0 {
			out = append(out, lit(sep))
		}
		out = append(out, n)
	}
	return out
}

func render(n node, d dialect) string {
	var b strings.Builder
	n.render(d, &b)
	return b.String()
}
