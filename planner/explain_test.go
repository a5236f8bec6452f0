package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// TestExplainClipsLongDescriptions cuts an IN list of thousands of
// literals in EXPLAIN, and keeps the whole plan for the rule trace.
func TestExplainClipsLongDescriptions(t *testing.T) {
	var list strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&list, ", %d", i)
	}
	n := &Filter{Input: &Values{}, Pred: &expr.Literal{Value: "x" + list.String(), T: coldata.String}}
	lines := Explain(n)
	if len(lines[0]) > describeMax+100 || !strings.Contains(lines[0], "more bytes)") {
		t.Fatalf("EXPLAIN line of %d bytes: %.200s", len(lines[0]), lines[0])
	}
	if !strings.Contains(fingerprint(n), ", 1999") {
		t.Fatal("the rule trace's fingerprint lost the end of the description")
	}
	if got := clip("aé", 2); got != "a... (2 more bytes)" {
		t.Fatalf("clip inside a rune: %q", got)
	}
}
