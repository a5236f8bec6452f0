package planner

import (
	"fmt"
	"strings"
)

// Explain renders a plan as indented lines, one operator per line with the
// device it runs on.
func Explain(n Node) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), placement(n)))
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}

// ExplainAnalyze renders an executed plan: Explain's lines, each followed
// by what stats says of its node (its statistics, after a space; "" for
// none). The builder (execbuild) knows the statistics.
func ExplainAnalyze(n Node, stats func(Node) string) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), placement(n))+stats(n))
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}

// placement is a node's device, with the reason when a node that could run
// on the GPU does not.
func placement(n Node) string {
	if w, ok := n.(interface{ why() string }); ok && w.why() != "" {
		return fmt.Sprintf("%s: %s", n.Placement(), w.why())
	}
	return n.Placement().String()
}
