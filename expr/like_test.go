package expr

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

func TestStrLike(t *testing.T) {
	cases := []strCase{
		{[]any{"David!", "David_"}, true},   // manual
		{[]any{"David!", "%D%v%"}, true},    // manual
		{[]any{"David!", `David\_`}, false}, // manual
		{[]any{"David_", `David\_`}, true},  // manual
		{[]any{"abc", "ABC"}, false},        // manual (binary collation)
		{[]any{"a", "a "}, false},           // manual: trailing space counts in LIKE
		{[]any{"abc", "abc"}, true},
		{[]any{"abc", "ab"}, false},
		{[]any{"abc", "a%"}, true},
		{[]any{"abc", "%c"}, true},
		{[]any{"abc", "%b%"}, true},
		{[]any{"abc", "%x%"}, false},
		{[]any{"abc", "a%c"}, true},
		{[]any{"abc", "a%b%c"}, true},
		{[]any{"ac", "a%b%c"}, false},
		{[]any{"abc", "___"}, true},
		{[]any{"abc", "____"}, false},
		{[]any{"abc", "_%_"}, true},
		{[]any{"", "%"}, true},
		{[]any{"", "%%"}, true},
		{[]any{"", "_"}, false},
		{[]any{"", ""}, true},
		{[]any{"a", ""}, false},
		{[]any{"日本語", "__語"}, true},
		{[]any{"日本語", "_語"}, false},
		{[]any{"日本語", "%本%"}, true},
		{[]any{"😀x", "_x"}, true},
		{[]any{"héllo", "h_llo"}, true},
		{[]any{"hello", "h_llo"}, true},
		{[]any{"hÉllo", "h_llo"}, true},
		{[]any{"a\xffb", "a_b"}, true},
		{[]any{"a\xffb", "a\xffb"}, true},
		{[]any{"日", "\xe6%"}, false}, // an invalid pattern byte is not part of 日
		{[]any{"\xe6x", "\xe6%"}, true},
		{[]any{"100%", `100\%`}, true},
		{[]any{"1000", `100\%`}, false},
		{[]any{`a\`, `a\`}, true}, // trailing escape is literal
		{[]any{`a\b`, `a\\b`}, true},
		{[]any{"ab", `a\b`}, true}, // escaped ordinary character
		{[]any{"aXb", "a%%%b"}, true},
		{[]any{"mississippi", "%iss%ppi"}, true},
		{[]any{"mississippi", "%iss%iss%ppi"}, true},
		{[]any{"mississippi", "m%ss_ss%i"}, true},
		{[]any{"mississippi", "%sip%sip%"}, false},
		{[]any{nil, "a"}, nil},
		{[]any{"a", nil}, nil},
		// with ESCAPE
		{[]any{"David_", "David|_", "|"}, true}, // manual
		{[]any{"David!", "David|_", "|"}, false},
		{[]any{`a\b`, `a\b`, "|"}, true},
		{[]any{"a%", "a|%", "|"}, true},
		{[]any{"ab", "a|%", "|"}, false},
		{[]any{"a_", "a日_", "日"}, true},
		{[]any{"ab", "a日_", "日"}, false},
		{[]any{"David_", `David\_`, ""}, true}, // ESCAPE '' is the default
		{[]any{"a", "a", nil}, nil},
		{[]any{"a", "a", "ab"}, strErr{}},
		{[]any{"a", "a", "日本"}, strErr{}},
	}
	strRunTable(t, "like", "SSS", cases)
}

// strLikeRef is a plain reference matcher: both strings split into
// characters (utf8.go's model), then dynamic programming.
func strLikeRef(s, p, esc string) bool {
	chars := func(x string) []string {
		var out []string
		b := []byte(x)
		for i := 0; i < len(b); {
			w := strCharWidth(b, i)
			out = append(out, x[i:i+w])
			i += w
		}
		return out
	}
	type tok struct {
		lit  string
		kind byte // 'l', '_', '%'
	}
	pc := chars(p)
	var toks []tok
	for i := 0; i < len(pc); i++ {
		c := pc[i]
		switch {
		case c == esc && i+1 < len(pc):
			i++
			toks = append(toks, tok{pc[i], 'l'})
		case c == "%":
			toks = append(toks, tok{kind: '%'})
		case c == "_":
			toks = append(toks, tok{kind: '_'})
		default:
			toks = append(toks, tok{c, 'l'})
		}
	}
	sc := chars(s)
	// dp[j] = pattern prefix j matches s prefix i
	dp := make([]bool, len(toks)+1)
	dp[0] = true
	for j := 1; j <= len(toks); j++ {
		dp[j] = dp[j-1] && toks[j-1].kind == '%'
	}
	for i := 1; i <= len(sc); i++ {
		next := make([]bool, len(toks)+1)
		for j := 1; j <= len(toks); j++ {
			switch tk := toks[j-1]; tk.kind {
			case '%':
				next[j] = next[j-1] || dp[j]
			case '_':
				next[j] = dp[j-1]
			default:
				next[j] = dp[j-1] && tk.lit == sc[i-1]
			}
		}
		dp = next
	}
	return dp[len(toks)]
}

func TestStrLikeDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alpha := []string{"a", "b", "é", "日", "\xff", "\xe6", "\x97", "%", "_", `\`}
	salpha := []string{"a", "b", "é", "日", "\xff", "\xe6", "\x97", "%", "_", `\`, "\xe6\x97\xa5"}
	gen := func(al []string, n int) string {
		var sb strings.Builder
		for k := rng.Intn(n + 1); k > 0; k-- {
			sb.WriteString(al[rng.Intn(len(al))])
		}
		return sb.String()
	}
	f := strFn(t, "like")
	const rows = 4000
	ss := make([]any, rows)
	ps := make([]any, rows)
	for i := range ss {
		ss[i] = gen(salpha, 8)
		ps[i] = gen(alpha, 6)
	}
	// Per-row patterns in one batch.
	got, err := f.Eval([]*coldata.Vec{strVec(coldata.String, ss...), strVec(coldata.String, ps...)}, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		want := strLikeRef(ss[i].(string), ps[i].(string), `\`)
		if got.Bool(i) != want {
			t.Errorf("%q LIKE %q: got %v, want %v", ss[i], ps[i], got.Bool(i), want)
		}
	}
	// Constant patterns (fast paths and the compiled matcher).
	for k := 0; k < 200; k++ {
		p := gen(alpha, 6)
		got, err := f.Eval([]*coldata.Vec{strVec(coldata.String, ss[:100]...), strConst(coldata.String, p, 100)}, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if want := strLikeRef(ss[i].(string), p, `\`); got.Bool(i) != want {
				t.Errorf("%q LIKE %q (const): got %v, want %v", ss[i], p, got.Bool(i), want)
			}
		}
	}
}

func TestStrLikePathological(t *testing.T) {
	long := strings.Repeat("a", 200_000)
	pats := []struct {
		p    string
		want bool
	}{
		{"%a%a%a%a%a%b", false},
		{"%a%a%a%a%a%a", true},
		{"%a_%a_%a_%a_%a_b", false},
		{"%_a%_a%_a%_a%_a%_b", false},
		{"a%a%a%a%a%a%", true},
		{"%aa%aa%aa%ab%", false},
		{"%a%a%a%a%a_%_", true},
	}
	f := strFn(t, "like")
	for _, c := range pats {
		start := time.Now()
		got, err := f.Eval([]*coldata.Vec{strVec(coldata.String, long, long+"b"), strConst(coldata.String, c.p, 2)}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bool(0) != c.want {
			t.Errorf("200K a's LIKE %q: got %v, want %v", c.p, got.Bool(0), c.want)
		}
		if !got.Bool(1) && strings.HasSuffix(c.p, "b") {
			t.Errorf("200K a's + b LIKE %q: got false", c.p)
		}
		// Linear-time work takes microseconds; an exponential or quadratic
		// matcher takes minutes. The bound is generous for slow CI.
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("LIKE %q on 200K chars took %v", c.p, d)
		}
	}
}
