package gsql

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// Session runs statements with settings of its own: SET changes them for
// the statements that follow in the same session only. A DB's Exec and
// Query run in the DB's default session; the database/sql driver gives
// each connection a session, the MySQL server each client connection.
// A Session is safe for concurrent use (its statements then see each
// other's SETs in no particular order).
//
// The one setting is disabled_rules: optimizer rules switched off
// (planner.RuleNames lists them), initially Options.DisabledRules.
type Session struct {
	db       *DB
	disabled atomic.Uint64 // planner.RuleSet
	// lastInsertID is LAST_INSERT_ID(): the first AUTO_INCREMENT number
	// the session's last INSERT that gave one gave.
	lastInsertID atomic.Int64
	// warnings are the warnings of the session's last statement (every
	// statement but SHOW WARNINGS starts a fresh sink); a SELECT's grow
	// while its rows are read.
	warnings atomic.Pointer[expr.Warnings]
}

// Warnings are the warnings of the session's last statement, as MySQL's
// SHOW WARNINGS lists them: the first expr.MaxWarnings in order. A
// SELECT's are complete once its reader is exhausted.
func (s *Session) Warnings() []Warning { return s.warnings.Load().List() }

// WarningCount counts the last statement's warnings, those past
// expr.MaxWarnings too (SHOW COUNT(*) WARNINGS).
func (s *Session) WarningCount() int64 { return s.warnings.Load().Count() }

// Warnings are the warnings of the last statement run in the database's
// default session (Exec and Query): Session.Warnings.
func (db *DB) Warnings() []Warning { return db.session.Warnings() }

// WarningCount is Session.WarningCount of the default session.
func (db *DB) WarningCount() int64 { return db.session.WarningCount() }

// startWarnings gives the statement about to run in ctx's session a
// fresh warnings sink, which becomes the session's last statement's, and
// returns ctx carrying it for the kernels.
func (db *DB) startWarnings(ctx context.Context) (context.Context, *expr.Warnings) {
	w := new(expr.Warnings)
	db.sessionOf(ctx).warnings.Store(w)
	return expr.WithWarnings(ctx, w), w
}

// Session starts a session on db with the database's settings.
func (db *DB) Session() *Session {
	s := &Session{db: db}
	s.disabled.Store(uint64(db.disabledRules))
	return s
}

// Exec is DB.Exec in this session.
func (s *Session) Exec(ctx context.Context, text string, args ...any) (Result, error) {
	return s.db.exec(withSession(ctx, s), text, args)
}

// Query is DB.Query in this session.
func (s *Session) Query(ctx context.Context, text string, args ...any) (array.RecordReader, error) {
	return s.db.queryText(withSession(ctx, s), text, args)
}

// Set changes a setting, as SET name = 'value' does: disabled_rules takes
// a comma-separated list of rule names ("" switches every rule on). An
// unknown setting or rule name is an error, and changes nothing.
func (s *Session) Set(name, value string) error {
	if name != "disabled_rules" {
		return fmt.Errorf("gsql: unknown setting %q (the settings: disabled_rules)", name)
	}
	rs, err := planner.ParseRules(value)
	if err != nil {
		return err
	}
	s.disabled.Store(uint64(rs))
	return nil
}

// DisabledRules lists the rules switched off in this session, in
// pipeline order.
func (s *Session) DisabledRules() []string { return s.rules().Names() }

func (s *Session) rules() planner.RuleSet { return planner.RuleSet(s.disabled.Load()) }

// set runs a SET statement: the value is checked whole before the
// setting changes, and an unknown rule is an error at its place in the
// statement.
func (s *Session) set(st *sql.Set) error {
	rs, err := planner.ParseRules(st.Value)
	if err != nil {
		var pe *planner.Error
		if errors.As(err, &pe) {
			for i, item := range st.Items() {
				if item == pe.Object {
					return st.ItemError(i, sql.ErrWrongValue, "%s", pe.Msg)
				}
			}
		}
		return err
	}
	s.disabled.Store(uint64(rs))
	return nil
}

// sessionKey carries a statement's session in its context, so that every
// plan made for the statement (its subqueries, an UPDATE's queries, a
// view's check) follows the session's settings, as the statement clock
// travels (planner.WithStatementTime).
type sessionKey struct{}

func withSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// session is the session a statement runs in: its context's, else the
// database's default session.
func (db *DB) sessionOf(ctx context.Context) *Session {
	if s, ok := ctx.Value(sessionKey{}).(*Session); ok && s.db == db {
		return s
	}
	return db.session
}

// ruleOptions are the rule settings of a statement run in ctx.
func (db *DB) ruleOptions(ctx context.Context) planner.RuleOptions {
	return planner.RuleOptions{Disabled: db.sessionOf(ctx).rules()}
}

// Rules lists the optimizer's rules in the order they run (a rule that
// runs twice is listed twice): the names Options.DisabledRules and SET
// disabled_rules take.
func Rules() []planner.Rule { return planner.Rules() }
