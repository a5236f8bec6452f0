package planner

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Explain renders a plan as indented lines, one operator per line with the
// device it runs on. An operator's description past describeMax bytes is
// cut (an IN list of thousands of literals is read by nobody).
func Explain(n Node) []string { return explainLines(n, describeMax) }

// describeMax bounds an operator's description in EXPLAIN.
const describeMax = 1000

// explainLines is Explain with descriptions cut at limit bytes (0: whole).
func explainLines(n Node, limit int) []string {
	var lines []string
	bodies := cteBodies(n, nil)
	var walk func(n Node, depth, devices int)
	walk = func(n Node, depth, devices int) {
		if r, ok := n.(*CTERef); ok && !bodies[r] {
			lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), r.scanLine(), placementOn(n, devices)))
			return
		}
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), clip(n.describe(), limit), placementOn(n, devices)))
		for _, in := range n.Inputs() {
			walk(in, depth+1, inputDevices(n, devices))
		}
	}
	walk(n, 0, 1)
	return lines
}

// inputDevices is on how many devices the inputs of n run, n running on
// devices of them: an exchange's input runs on every device of the plan
// (Spread) or on device 0; other nodes' inputs run where they do.
func inputDevices(n Node, devices int) int {
	if e, ok := n.(*Exchange); ok {
		if e.Spread {
			return e.Devices
		}
		return 1
	}
	return devices
}

// placementOn is placement, with the number of devices a device operator
// of a spread plan runs on (once per device, each over its own rows).
func placementOn(n Node, devices int) string {
	if devices > 1 && n.Placement() == GPU {
		return fmt.Sprintf("%s on %d devices", placement(n), devices)
	}
	return placement(n)
}

// clip cuts s to limit bytes (at a rune boundary), saying how much it left
// out; limit 0 keeps s whole.
func clip(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes)", s[:cut], len(s)-cut)
}

// ExplainAnalyze renders an executed plan: Explain's lines, each followed
// by what stats says of its node (its statistics, after a space; "" for
// none). The builder (execbuild) knows the statistics.
func ExplainAnalyze(n Node, stats func(Node) string) []string {
	return ExplainAnalyzeCTEs(n, stats, nil)
}

// ExplainAnalyzeCTEs is ExplainAnalyze showing each materialized CTE's
// body once, under the reference for which expands says so (nil, or none:
// the first), the other references as scans of it.
func ExplainAnalyzeCTEs(n Node, stats func(Node) string, expands func(*CTERef) bool) []string {
	var lines []string
	bodies := cteBodies(n, expands)
	var walk func(n Node, depth, devices int)
	walk = func(n Node, depth, devices int) {
		if r, ok := n.(*CTERef); ok && !bodies[r] {
			lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), r.scanLine(), placementOn(n, devices))+stats(n))
			return
		}
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), clip(n.describe(), describeMax), placementOn(n, devices))+stats(n))
		for _, in := range n.Inputs() {
			walk(in, depth+1, inputDevices(n, devices))
		}
	}
	walk(n, 0, 1)
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
