package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// commentSemi is the type of a ';' inside a versioned comment, which does
// not end the statement.
const commentSemi = -1

// token is one lexical token with its byte span in the text it came from.
type token struct {
	typ        int
	val        []byte
	start, end int
	// synth is text the dialect layer adds (cte.go); start == end then
	// anchors it in the user's text.
	synth string
}

// text returns the token's source text.
func (t token) text(src string) string { return src[t.start:t.end] }

// isKeyword reports whether the token is the given keyword (any case).
func (t token) is(src, kw string) bool {
	s := t.text(src)
	if len(s) != len(kw) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}

// lex tokenizes src with the parser's tokenizer. Comments are kept as
// tokens (so that splitting never looks inside them). The body of a MySQL
// versioned comment (/*! ... */) is lexed as ordinary tokens at their own
// positions, as MySQL runs it. A lexing error is kept as a LEX_ERROR token
// and lexing goes on after it; an error that reaches the end of the text
// (an open string, quoted identifier or comment) is the last token.
func lex(src string) []token {
	var out []token
	lexRange(src, bomLen(src), len(src), &out)
	return out
}

// bomLen is the length of the UTF-8 byte order mark that some editors put
// at the start of a file (0 when there is none): it is not part of the SQL.
func bomLen(src string) int {
	if strings.HasPrefix(src, "\ufeff") {
		return len("\ufeff")
	}
	return 0
}

// lexRange appends the tokens of src[from:to] to out.
func lexRange(src string, from, to int, out *[]token) {
	for from < to {
		next, restart := lexFrom(src, from, to, out)
		if !restart {
			return
		}
		from = next
	}
}

// lexFrom tokenizes src[from:to] until its end or until a versioned
// comment, whose body it lexes and then asks to restart after it.
func lexFrom(src string, from, to int, out *[]token) (next int, restart bool) {
	// A reader-backed tokenizer costs a fixed 4 KiB buffer, where a string
	// one copies the rest of the text: restarts at every versioned comment
	// or "--" would make lexing quadratic.
	tk := sqlparser.NewTokenizer(strings.NewReader(src[from:to]))
	tk.AllowComments = true
	prevEnd := from
	for {
		// The next token starts after the blanks the tokenizer skips.
		start := prevEnd
		for start < to && isBlank(src[start]) {
			start++
		}
		if strings.HasPrefix(src[start:to], "/*!") {
			// A versioned comment (/*!50100 ... */): MySQL runs its body.
			// Lex it here (the tokenizer would lose every position in it)
			// and go on after it with a new tokenizer.
			end := strings.Index(src[start+3:to], "*/")
			if end < 0 {
				*out = append(*out, token{typ: sqlparser.LEX_ERROR, start: start, end: to})
				return to, false
			}
			end += start + 3
			body := start + 3
			for n := 0; n < 5 && body < end && src[body] >= '0' && src[body] <= '9'; n++ {
				body++
			}
			first := len(*out)
			lexRange(src, body, end, out)
			for k := first; k < len(*out); k++ {
				if (*out)[k].typ == ';' {
					// A comment never ends a statement.
					(*out)[k].typ = commentSemi
				}
			}
			return end + 2, true
		}
		if strings.HasPrefix(src[start:to], "--") && start+2 < to && src[start+2] > ' ' {
			// MySQL starts a comment at "--" only when a blank or a
			// control character follows (1--1 is 1 - -1); the tokenizer
			// takes any "--". Emit the first '-' and go on after it.
			*out = append(*out, token{typ: '-', start: start, end: start + 1})
			return start + 1, true
		}
		typ, val := scanSafe(tk)
		end := from + tk.Position - 1
		if end > to {
			end = to
		}
		if end < start {
			end = start
		}
		if typ == 0 {
			return to, false
		}
		*out = append(*out, token{typ: typ, val: append([]byte(nil), val...), start: start, end: end})
		if typ == sqlparser.LEX_ERROR && (end >= to || end <= prevEnd) {
			return to, false
		}
		prevEnd = end
	}
}

// scanSafe calls Scan, turning a tokenizer panic (it has a few on
// malformed input) into a lexing error.
func scanSafe(tk *sqlparser.Tokenizer) (typ int, val []byte) {
	defer func() {
		if r := recover(); r != nil {
			typ, val = sqlparser.LEX_ERROR, []byte("unexpected end of input")
		}
	}()
	return tk.Scan()
}

func isBlank(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
