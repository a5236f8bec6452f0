package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Set is SET [SESSION] name = 'value': a setting of the session that runs
// it. gsql has one, disabled_rules (a comma-separated list of optimizer
// rules to switch off; an empty list switches them all back on); MySQL clients'
// own session variables are the MySQL server's business (server/mysql).
type Set struct {
	Name  string
	Value string
	// src and the offsets of Value's comma-separated items in it, for
	// errors that point at one item.
	src   string
	items []setItem
	at    int
}

type setItem struct {
	text string
	off  int
}

func (*Set) statement() {}

// Settings are the names SET accepts.
var Settings = []string{"disabled_rules"}

// Items are Value's comma-separated items, spaces around them trimmed,
// empty ones left out.
func (s *Set) Items() []string {
	out := make([]string, len(s.items))
	for i, it := range s.items {
		out[i] = it.text
	}
	return out
}

// ItemError is an error at item i of the value (at the value itself when
// i is out of range), with the statement's line and column.
func (s *Set) ItemError(i int, kind ErrorKind, format string, args ...any) *Error {
	off := s.at
	if i >= 0 && i < len(s.items) {
		off = s.items[i].off
	}
	return newError(kind, s.src, off, format, args...)
}

// set parses SET [SESSION | LOCAL] name {= | TO} 'value'.
func (p *ddl) set() (Statement, *Error) {
	p.i = 1
	if !p.accept("session") {
		p.accept("local")
	}
	t, ok := p.peek()
	if !ok {
		return nil, p.errHere("SET needs a setting: SET name = 'value'")
	}
	if t.is(p.src, "global") {
		return nil, newError(ErrUnsupported, p.src, t.start, "not supported: SET GLOBAL (settings belong to the session)")
	}
	name, err := p.ident("setting name")
	if err != nil {
		return nil, err
	}
	name = strings.ToLower(name)
	known := false
	for _, s := range Settings {
		known = known || s == name
	}
	if !known {
		return nil, newError(ErrUnknownSetting, p.src, t.start, "unknown setting %s (the settings: %s)", name, strings.Join(Settings, ", "))
	}
	if !p.acceptTyp('=') && !p.accept("to") {
		return nil, p.errHere("expected = after SET %s", name)
	}
	v, ok := p.peek()
	if !ok || v.typ != sqlparser.STRING {
		return nil, p.errHere("expected a quoted value after SET %s =, such as 'reorder_joins,push_filters'", name)
	}
	p.i++
	if err := p.done(); err != nil {
		return nil, err
	}
	s := &Set{Name: name, Value: string(v.val), src: p.src, at: v.start}
	// Items point into the literal when it holds no escapes (its text
	// between the quotes is its value); else at the literal.
	raw := p.src[v.start+1 : v.end-1]
	off := 0
	for _, part := range strings.Split(s.Value, ",") {
		text := strings.TrimSpace(part)
		at := v.start
		if raw == s.Value {
			at = v.start + 1 + off + strings.Index(part, text)
		}
		off += len(part) + 1
		if text != "" {
			s.items = append(s.items, setItem{text: text, off: at})
		}
	}
	return s, nil
}
