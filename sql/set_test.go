package sql

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSet(t *testing.T) {
	for _, tc := range []struct {
		in    string
		value string
		items []string
		// err, when set, is the error's kind, position and text.
		kind      ErrorKind
		line, col int
		err       string
	}{
		{in: "SET disabled_rules = 'reorder_joins,push_filters'", value: "reorder_joins,push_filters", items: []string{"reorder_joins", "push_filters"}},
		{in: "set SESSION Disabled_Rules TO ' a , ,b '", value: " a , ,b ", items: []string{"a", "b"}},
		{in: "SET LOCAL disabled_rules = ''", value: "", items: []string{}},
		{in: "SET x = 'y'", kind: ErrUnknownSetting, line: 1, col: 5, err: "unknown setting x (the settings: disabled_rules)"},
		{in: "SET GLOBAL disabled_rules = ''", kind: ErrUnsupported, line: 1, col: 5, err: "SET GLOBAL"},
		{in: "SET\n  disabled_rules = reorder_joins", kind: ErrSyntax, line: 2, col: 20, err: "expected a quoted value"},
		{in: "SET disabled_rules", kind: ErrSyntax, line: 1, col: 19, err: "expected = after SET disabled_rules"},
		{in: "SET disabled_rules = 'a' 'b'", kind: ErrSyntax, line: 1, col: 26, err: "unexpected input"},
		{in: "SET", kind: ErrSyntax, line: 1, col: 4, err: "SET needs a setting"},
	} {
		st, err := ParseOne(tc.in)
		if tc.err != "" {
			e, ok := err.(*Error)
			if !ok || e.Kind != tc.kind || e.Line != tc.line || e.Col != tc.col || !strings.Contains(e.Msg, tc.err) {
				t.Errorf("%q: error %v, want kind %d at %d:%d with %q", tc.in, err, tc.kind, tc.line, tc.col, tc.err)
			}
			continue
		}
		s, ok := st.(*Set)
		if err != nil || !ok || s.Name != "disabled_rules" || s.Value != tc.value || !slices.Equal(s.Items(), tc.items) {
			t.Errorf("%q: %#v %v", tc.in, st, err)
		}
	}
	// An item's error points at the item.
	st, _ := ParseOne("SET disabled_rules = 'push_filters, nope'")
	if e := st.(*Set).ItemError(1, ErrUnsupported, "unknown rule"); e.Line != 1 || e.Col != 37 {
		t.Errorf("item error at %d:%d, want 1:37", e.Line, e.Col)
	}
}

func TestParseExplainVerbose(t *testing.T) {
	for in, want := range map[string][2]bool{
		"EXPLAIN VERBOSE SELECT 1":         {false, true},
		"EXPLAIN ANALYZE VERBOSE SELECT 1": {true, true},
		"EXPLAIN ANALYZE SELECT 1":         {true, false},
	} {
		st, err := ParseOne(in)
		e, ok := st.(*Explain)
		if err != nil || !ok || e.Analyze != want[0] || e.Verbose != want[1] {
			t.Errorf("%q: %#v %v", in, st, err)
		}
	}
	// EXPLAIN of a table named verbose is DESCRIBE, as before.
	if st, err := ParseOne("EXPLAIN verbose"); err != nil || st.(*Describe).Table != "verbose" {
		t.Errorf("EXPLAIN verbose: %#v %v", st, err)
	}
}
