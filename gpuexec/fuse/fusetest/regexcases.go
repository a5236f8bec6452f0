package fusetest

import "github.com/gsqlengine/gsql/expr"

// RegexPatterns are the patterns the REGEXP cases run over the test
// batches: classes, anchors, alternation, repetition, case folding, word
// boundaries, empty matches and non-ASCII characters (all small enough for
// the interpreter's regex limits). The last ones backtrack without end
// (the device's backtracker gives up and the Pike VM answers), and
// ^https?://... is ClickBench Q29's.
var RegexPatterns = []string{
	`a`, `^J`, `o$`, `[aeiou]`, `[^a-z ]+`, `\w+`, `\bS\w*`, `\B.`, `(?i)é`, `(?i)zoË`,
	`é|e`, `(Jo|Ja)(hn|ne)`, `x*`, `a?`, `\d{2,3}`, `[[:alpha:]]{2,4}`, `\pL+`, `\p{Han}`, `.`, `(?s).{3}`,
	`^$`, `(?m)^\w`, `\s+`, `[😀-😂]`, `\x{FFFD}`, `(a|ab)(c|bcd)(d*)`, `(?U)a+`, `o+?`, `(\w)(\w)?`, `[^\x00-\x7f]`,
	`\AJ`, `n\z`, `(?i)k`, `(?i)s`, `o{0}`, `(?:ab)*`, `\W`, `[a-c]+[x-z]?`, `(?P<first>\w+) (?P<last>\w+)`, `日本|本`,
	`$`, ``, `(?i)[ǅ]`, `\b`, `e(\w|$)`, `^https?://(?:www\.)?([^/]+)/.*$`, `^(?:J|\w)(\w*)(.*)$`,
	`(a*)*b`, `(\w+\s?)*$`,
}

// RegexTemplates are REGEXP_REPLACE replacements: groups by number and
// name, braces, $$, \N, references to groups that do not exist.
var RegexTemplates = []string{"<$0>", "$2 $1", `\1-`, "${first}/$last", "$$", "$x", "${1}x", "$1x", "", "[${2}]"}

// RegexCases are output lists of REGEXP functions over the name column:
// every pattern through every function, with flags, positions,
// occurrences and return options (positions from a column are kept at 1
// or more: a lower one is an error, checked on its own).
func (b *Builder) RegexCases() [][]expr.Expr {
	s, x := Col(Name), Col(A)
	c := b.Call
	pos := c("+", c("abs", x), Lit(1))
	var out [][]expr.Expr
	for i := 0; i < len(RegexPatterns); i += 2 {
		var list []expr.Expr
		for k, p := range RegexPatterns[i:min(i+2, len(RegexPatterns))] {
			j := i + k
			tmpl := RegexTemplates[j%len(RegexTemplates)]
			list = append(list,
				c("regexp_like", s, Lit(p)),
				c("regexp_instr", s, Lit(p)),
				c("regexp_substr", s, Lit(p), Lit(1+j%3), Lit(1+j%2)),
				c("regexp_replace", s, Lit(p), Lit(tmpl)))
			switch j % 4 {
			case 0:
				list = append(list, c("regexp_instr", s, Lit(p), pos, Lit(2), Lit(1)), c("regexp_replace", s, Lit(p), Lit(tmpl), Lit(2), Lit(2)))
			case 1:
				list = append(list, c("regexp_like", s, Lit(p), Lit("i")), c("regexp_substr", s, Lit(p), pos, x, Lit("n")))
			case 2:
				list = append(list, c("regexp_replace", s, Lit(p), Lit(tmpl), pos, x, Lit("mi")), c("regexp_instr", s, Lit(p), Lit(1), Lit(3), x, Lit("ic")))
			case 3:
				list = append(list, c("regexp_like", s, Lit(p), Lit("cmn")), c("regexp_replace", s, Lit(p), Lit(tmpl), Lit(1), Lit(1)))
			}
		}
		out = append(out, list)
	}
	// NULL pattern, flags or replacement: NULL rows.
	out = append(out, []expr.Expr{c("regexp_like", s, Lit(nil)), c("regexp_replace", s, Lit("a"), Lit(nil)), c("regexp_substr", s, Lit("a"), Lit(1), Lit(1), Lit(nil))})
	return out
}

// EncodeCases are output lists of HEX, UNHEX, TO_BASE64, FROM_BASE64,
// MD5, SHA1 and SHA2 over columns.
func (b *Builder) EncodeCases() [][]expr.Expr {
	s, v, x := Col(Name), Col(Vis), Col(A)
	c := b.Call
	return [][]expr.Expr{
		{c("hex", s), c("hex", x), c("hex", c("neg", x)), c("hex", Col(B)), c("unhex", s), c("unhex", Lit("4d7953514C")), c("hex", v),
			c("to_base64", s), c("from_base64", s), c("from_base64", Lit("TXlTUUw=")), c("from_base64", Lit("TXlTUUw"))},
		{c("md5", s), c("sha1", s), c("sha", v), c("sha2", s, Lit(224)), c("sha2", s, Lit(256)), c("sha2", s, Lit(0)), c("sha2", s, Lit(384)),
			c("sha2", s, Lit(512)), c("sha2", s, Lit(7)), c("sha2", s, x)},
	}
}

// EncodeNestedCases are single outputs whose decoders read another
// function's result (valid and damaged encodings): each needs the
// thread's scratch for one intermediate value of a few times the row.
func (b *Builder) EncodeNestedCases() [][]expr.Expr {
	s, x := Col(Name), Col(A)
	c := b.Call
	b64 := c("to_base64", s)
	var out [][]expr.Expr
	for _, e := range []expr.Expr{
		c("unhex", c("hex", s)), c("unhex", c("lower", c("hex", c("left", s, Lit(100))))), c("unhex", c("left", c("hex", s), x)),
		c("from_base64", b64), c("from_base64", c("concat", b64, Lit("\r\n"))), c("from_base64", c("left", b64, x)),
		c("from_base64", c("replace", b64, Lit("="), Lit(""))), c("from_base64", c("concat", c("left", b64, Lit(2)), Lit("\n==\n"))),
		c("from_base64", c("concat", b64, Lit("QQ=="))), c("from_base64", c("concat", Lit("QQ="), Lit("="), b64)),
		c("from_base64", c("concat", c("left", b64, Lit(3)), Lit("="))), c("md5", c("repeat", s, Lit(3))),
	} {
		out = append(out, []expr.Expr{e})
	}
	return out
}
