package expr

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// repStrVec is a String vector of vals, repeated to n rows.
func repStrVec(n int, vals ...string) *coldata.Vec {
	b := coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		b.AppendString(vals[i%len(vals)])
	}
	return b.Finish()
}

func TestAnchoredAtStart(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{`^https?://(?:www\.)?([^/]+)/.*$`, true},
		{`(?i)^a`, true},
		{`(^a)b`, true},
		{`\Aab`, true},
		{`^`, true},
		{`(?m)^a`, false},
		{`^a|b`, false},
		{`a^`, false},
		{`a`, false},
		{`(a)`, false},
	} {
		if got := anchoredAtStart(regexp.MustCompile(tc.p)); got != tc.want {
			t.Errorf("anchoredAtStart(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestRegexpReplaceMatchesGo: regexp_replace over every occurrence gives
// Go's ReplaceAll, whether the pattern takes the anchored path or not.
func TestRegexpReplaceMatchesGo(t *testing.T) {
	subjects := []string{"", "http://www.example.com/a/b", "https://x.org/", "ftp://y/", "http://nohost", "aaa", "baab", "ab\nab", "élan/é"}
	for _, tc := range []struct{ p, r string }{
		{`^https?://(?:www\.)?([^/]+)/.*$`, `\1`},
		{`^a`, `<$0>`},
		{`^`, `[`},
		{`(?m)^a`, `X`},
		{`a*`, `-`},
		{`(a)(b)?`, `\2\1`},
		{`^(é)`, `e`},
	} {
		n := len(subjects)
		got, err := regexpReplace([]*coldata.Vec{repStrVec(n, subjects...), repStrVec(n, tc.p), repStrVec(n, tc.r)}, n)
		if err != nil {
			t.Fatalf("%q: %v", tc.p, err)
		}
		re := regexp.MustCompile(tc.p)
		tmpl := backref.ReplaceAllString(tc.r, "$${$1}")
		for i, s := range subjects {
			if want := re.ReplaceAllString(s, tmpl); string(got.Str(i)) != want {
				t.Errorf("regexp_replace(%q, %q, %q) = %q, want %q", s, tc.p, tc.r, got.Str(i), want)
			}
		}
	}
}

// TestRegexpPatternPerRow: a pattern that changes from row to row is
// compiled for each distinct value, not reused from the previous row.
func TestRegexpPatternPerRow(t *testing.T) {
	n := 6
	got, err := regexpLike([]*coldata.Vec{repStrVec(n, "abc"), repStrVec(n, "^a", "^b", "c$")}, n)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, true, false, true}
	for i, w := range want {
		if got.Bool(i) != w {
			t.Errorf("row %d: %v, want %v", i, got.Bool(i), w)
		}
	}
}

// BenchmarkRegexpReplace is ClickBench Q29's expression: the host of
// every Referer by an anchored pattern with a group.
func BenchmarkRegexpReplace(b *testing.B) {
	const n = 4096
	refs := make([]string, 64)
	for i := range refs {
		refs[i] = fmt.Sprintf("https://www.site%d.example.com/path/%s?q=%d", i, strings.Repeat("x", i%17), i)
	}
	args := []*coldata.Vec{repStrVec(n, refs...), repStrVec(n, `^https?://(?:www\.)?([^/]+)/.*$`), repStrVec(n, `\1`)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := regexpReplace(args, n); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMatchToEnd checks the shortcut for anchored regexes ending in ".*$"
// against the full regex's match on texts with and without newlines, and
// that it applies only to such regexes.
func TestMatchToEnd(t *testing.T) {
	for _, tc := range []struct {
		p       string
		applies bool
	}{
		{`^https?://(?:www\.)?([^/]+)/.*$`, true},
		{`^(a|ab)(c|bcd)?.*$`, true},
		{`^.*$`, true},
		{`^x.*?$`, true},
		{`^(?s)a.*$`, false}, // "." matches newlines: nothing to check
		{`^a.*`, false},
		{`a.*$`, false},
		{`^(a.*)$`, false},
		{`^a.*$|b`, false},
	} {
		re := regexp.MustCompile(tc.p)
		short := withoutRestOfLine(re)
		if (short != nil) != tc.applies {
			t.Errorf("%s: shortcut %v, want %v", tc.p, short != nil, tc.applies)
			continue
		}
		if short == nil {
			continue
		}
		for _, s := range []string{"", "a", "ab", "abcd", "abc\nd", "ab\ncd", "http://www.example.com/x/y?z",
			"https://example.com/", "http://a.b/\n", "http://host", "ftp://x/y", "\nhttp://x/", "abcdzz", "x", "xy\n"} {
			got, want := matchToEnd(re, short, []byte(s)), re.FindSubmatchIndex([]byte(s))
			if !slices.Equal(got, want) {
				t.Errorf("%s on %q: %v, want %v", tc.p, s, got, want)
			}
		}
	}
}
