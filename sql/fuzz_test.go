package sql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that any text parses without a panic, that every error
// is a *Error positioned inside the text, and that Split agrees with Parse.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add("SELECT a, SUBSTRING(b FROM 2 FOR 3) FROM t WHERE c = ? ORDER BY 1 DESC LIMIT 2")
	f.Add("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5), u AS (SELECT * FROM t) SELECT * FROM t, u, u AS w")
	f.Add("CREATE INDEX IF NOT EXISTS i ON t (a DESC, b); DROP INDEX IF EXISTS i ON t")
	f.Fuzz(func(t *testing.T, text string) {
		checkParse(t, text)
	})
}

func checkParse(t *testing.T, text string) {
	t.Helper()
	stmts, err := Parse(text)
	if err != nil {
		checkError(t, text, err)
	} else {
		for _, st := range stmts {
			if st == nil {
				t.Fatalf("Parse(%q) returned a nil statement", text)
			}
			_ = show(st)
		}
	}
	one, oneErr := ParseOne(text)
	if oneErr != nil {
		checkError(t, text, oneErr)
	}
	switch {
	case oneErr == nil && (err != nil || len(stmts) != 1):
		t.Fatalf("ParseOne(%q) succeeded but Parse found %d statements (error %v)", text, len(stmts), err)
	case oneErr != nil && err == nil && len(stmts) == 1:
		t.Fatalf("Parse(%q) found one statement but ParseOne failed: %v", text, oneErr)
	case oneErr == nil && show(one) != show(stmts[0]):
		t.Fatalf("ParseOne(%q) = %s, Parse = %s", text, show(one), show(stmts[0]))
	}
	pieces, complete := Split(text)
	if err != nil {
		return
	}
	if len(pieces) != len(stmts) {
		t.Fatalf("Split(%q) = %q (complete %v), Parse found %d statements", text, pieces, complete, len(stmts))
	}
	for k, p := range pieces {
		st, err := ParseOne(p)
		if err != nil {
			t.Fatalf("Split(%q) piece %d %q does not parse alone: %v", text, k, p, err)
		}
		if got, want := show(st), show(stmts[k]); got != want {
			t.Fatalf("Split(%q) piece %d %q parses to %s alone, %s in the script", text, k, p, got, want)
		}
	}
}

func checkError(t *testing.T, text string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error for %q is %T (%v), want *sql.Error", text, err, err)
	}
	if e.Kind != ErrSyntax && e.Kind != ErrUnsupported {
		t.Fatalf("error for %q has kind %d", text, e.Kind)
	}
	lines := strings.Split(text, "\n")
	if e.Line < 1 || e.Line > len(lines) {
		t.Fatalf("error for %q at line %d; the text has %d lines: %v", text, e.Line, len(lines), e)
	}
	// Col may be one past the end of the line (an error at the end).
	if n := utf8.RuneCountInString(lines[e.Line-1]); e.Col < 1 || e.Col > n+1 {
		t.Fatalf("error for %q at %d:%d; that line has %d characters: %v", text, e.Line, e.Col, n, e)
	}
	if e.Msg == "" || e.Snippet == "" {
		t.Fatalf("error for %q has no message or snippet: %#v", text, e)
	}
	prefix := "syntax error at line "
	if e.Kind == ErrUnsupported {
		prefix = "error at line "
	}
	if !strings.HasPrefix(e.Error(), prefix) {
		t.Fatalf("error for %q reads %q", text, e.Error())
	}
}
