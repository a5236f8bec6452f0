package sql

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in       string
		want     []string
		complete bool
	}{
		{"", nil, true},
		{"   \n\t", nil, true},
		{";", nil, true},
		{" ; ;\n;", nil, true},
		{"SELECT 1;", []string{"SELECT 1"}, true},
		{"SELECT 1", []string{"SELECT 1"}, false},
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}, true},
		{"SELECT 1;\n  SELECT 2", []string{"SELECT 1", "SELECT 2"}, false},
		{"SELECT 1;;;SELECT 2;", []string{"SELECT 1", "SELECT 2"}, true},
		// ';' inside strings, quoted identifiers and comments.
		{"SELECT 'a;b';", []string{"SELECT 'a;b'"}, true},
		{"SELECT \"a;b\", 'it''s;';", []string{"SELECT \"a;b\", 'it''s;'"}, true},
		{"SELECT 'a\\';b';", []string{"SELECT 'a\\';b'"}, true},
		{"SELECT `a;b` FROM t;", []string{"SELECT `a;b` FROM t"}, true},
		{"SELECT 1 /* ; */;", []string{"SELECT 1 /* ; */"}, true},
		{"SELECT 1 -- ;\n;", []string{"SELECT 1 -- ;"}, true},
		{"SELECT 1 # ;\n;", []string{"SELECT 1 # ;"}, true},
		{"SELECT /*!40101 1; */ 2;", []string{"SELECT /*!40101 1; */ 2"}, true},
		// "--" followed by a non-blank is not a comment.
		{"SELECT 1--1; SELECT 2", []string{"SELECT 1--1", "SELECT 2"}, false},
		{"SELECT 1 --1;\n", []string{"SELECT 1 --1"}, true},
		{"\ufeffSELECT 1;", []string{"SELECT 1"}, true},
		// Comment-only pieces are dropped; a trailing comment after ';'
		// leaves the text complete.
		{"-- just a comment", nil, true},
		{"/* c */ ; -- c\n", nil, true},
		{"SELECT 1; -- done", []string{"SELECT 1"}, true},
		{"SELECT 1; /* done */", []string{"SELECT 1"}, true},
		{"SELECT 1 -- not done", []string{"SELECT 1 -- not done"}, false},
		// Open strings, identifiers and comments leave the text incomplete.
		{"SELECT 'abc;", []string{"SELECT 'abc;"}, false},
		{"SELECT 1; SELECT \"x;\n", []string{"SELECT 1", "SELECT \"x;"}, false},
		{"SELECT `a;", []string{"SELECT `a;"}, false},
		{"SELECT 1 /* ;", []string{"SELECT 1 /* ;"}, false},
		{"SELECT /*! 1 ;", []string{"SELECT /*! 1 ;"}, false},
		{"SELECT 'a\\", []string{"SELECT 'a\\"}, false},
		{"SELECT x'41", []string{"SELECT x'41"}, false},
		// Bad characters are the parser's business: the text still ends.
		{"SELECT é;", []string{"SELECT é"}, true},
		{"SELECT $ 1; SELECT 2;", []string{"SELECT $ 1", "SELECT 2"}, true},
		{"SELECT ``;", []string{"SELECT ``"}, true},
		{"SELECT x'123';", []string{"SELECT x'123'"}, true},
		{"SELECT 1abc; SELECT 2;", []string{"SELECT 1abc", "SELECT 2"}, true},
	}
	for _, tc := range tests {
		got, complete := Split(tc.in)
		if !reflect.DeepEqual(got, tc.want) || complete != tc.complete {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tc.in, got, complete, tc.want, tc.complete)
		}
	}
}

// TestSplitThenParse checks that the pieces of a script parse alone to the
// statements Parse finds in the whole.
func TestSplitThenParse(t *testing.T) {
	script := "CREATE TABLE t (a INT, s TEXT); -- make it\n" +
		"INSERT INTO t VALUES (1, 'x;y'), (?, \"z\");\n" +
		"/* a query */ SELECT TRIM(LEADING ';' FROM s) FROM t WHERE a = ?;\n" +
		"DROP TABLE t"
	pieces, complete := Split(script)
	if complete || len(pieces) != 4 {
		t.Fatalf("Split = %q, %v", pieces, complete)
	}
	all, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range pieces {
		st, err := ParseOne(p)
		if err != nil {
			t.Fatalf("piece %d %q: %v", k, p, err)
		}
		if got, want := show(st), show(all[k]); got != want {
			t.Errorf("piece %d: got %s, want %s", k, got, want)
		}
	}
	want := []string{
		"CREATE t (a BIGINT, s VARCHAR)",
		"INSERT t (1, 'x;y') (:v1, 'z')",
		"SELECT select ltrim(s, ';') from t where a = :v1",
		"DROP t",
	}
	for k := range want {
		if got := show(all[k]); got != want[k] {
			t.Errorf("statement %d = %s, want %s", k, got, want[k])
		}
	}
}
