package gsql_test

import (
	"context"
	"errors"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// TestErrorKinds: statements that fail through the embedded API end with
// the error kind the servers send (errkind.Of) and, where there is one,
// the typed error a program can inspect with errors.As.
func TestErrorKinds(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 1 << 20})
	for _, q := range []string{
		`CREATE TABLE e (a BIGINT NOT NULL, b VARCHAR)`,
		`INSERT INTO e VALUES (1, 'x')`,
		`CREATE INDEX ie ON e (a)`,
		`CREATE VIEW v AS SELECT a FROM e`,
		// Created: the text is read, and fails, when the view is read.
		`CREATE VIEW vd AS SELECT a FROM e WHERE DATE '2024-01-01' = 'abc'`,
		`CREATE TABLE big (k BIGINT)`,
		`INSERT INTO big VALUES (1)`,
	} {
		mustExec(t, db, q)
	}
	for i := 0; i < 15; i++ {
		mustExec(t, db, `INSERT INTO big SELECT k + (SELECT MAX(k) FROM big) FROM big`)
	}
	var (
		se *sql.Error
		pe *planner.Error
		oe *catalog.ObjectError
		ne *catalog.NotNullError
		nd *catalog.NoDefaultError
		dv *catalog.InvalidDefaultError
		ve *catalog.ViewError
		ie *catalog.IndexError
		me *memory.OutOfMemoryError
	)
	cases := []struct {
		stmt  string
		kind  errkind.Kind
		typed any // a pointer to the typed error errors.As must find, or nil
	}{
		{`SELEC 1`, errkind.Syntax, &se},
		{`SELECT * FROM missing`, errkind.NoSuchTable, &pe},
		{`SELECT nope FROM e`, errkind.NoSuchColumn, &pe},
		{`SELECT a, b FROM e GROUP BY a`, errkind.NonGrouped, &pe},
		{`SELECT * FROM e GROUP BY b`, errkind.NonGrouped, &pe},
		{`SELECT no_such_function(1)`, errkind.NoSuchFunction, &pe},
		{`CREATE TABLE e (x BIGINT)`, errkind.TableExists, &oe},
		{`DROP TABLE missing`, errkind.BadTable, &oe},
		{`INSERT INTO e VALUES (NULL, 'x')`, errkind.NotNull, &ne},
		{`INSERT INTO e (b) VALUES ('x')`, errkind.NoDefault, &nd},
		{`CREATE TABLE f (a BIGINT NOT NULL DEFAULT NULL)`, errkind.InvalidDefault, &dv},
		{`SELECT a, COUNT(*) FROM e`, errkind.MixedAggregate, nil},
		{`SELECT a FROM e WHERE DATE '2024-01-01' + INTERVAL a DAY = '2023-02-30'`, errkind.IncorrectValue, &pe},
		{`SELECT a FROM vd`, errkind.IncorrectValue, &pe},
		{`SELECT b, COUNT(*) FROM e GROUP BY a`, errkind.NonGrouped, nil},
		{`UPDATE e SET a = NULL`, errkind.NotNull, &ne},
		{`CREATE TABLE n (a BIGINT NOT NULL) AS SELECT NULL`, errkind.NotNull, &ne},
		{`INSERT INTO e VALUES ('abc', 'x')`, errkind.BadValue, nil},
		{`SELECT a + 9223372036854775807 FROM e`, errkind.OutOfRange, nil},
		{`CREATE INDEX ie ON e (b)`, errkind.IndexExists, &ie},
		{`DROP INDEX nope`, errkind.NoSuchIndex, &ie},
		{`CREATE VIEW v AS SELECT 1`, errkind.TableExists, &ve},
		{`DROP TABLE v`, errkind.WrongObject, &ve},
		{`SELECT COUNT(*) FROM big AS x JOIN big AS y ON x.k < y.k`, errkind.OutOfMemory, &me},
	}
	for _, c := range cases {
		_, err := db.Exec(context.Background(), c.stmt)
		if got := errkind.Of(err); got != c.kind {
			t.Errorf("%s: kind %v, want %v (%v)", c.stmt, got, c.kind, err)
		}
		if c.typed != nil && !errors.As(err, c.typed) {
			t.Errorf("%s: %T is not in %v", c.stmt, c.typed, err)
		}
	}
	if me == nil || me.State == "" || errors.Is(me, memory.ErrOutOfMemory) {
		t.Errorf("memory-limit error %#v: want a statement's state, not an allocation", me)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.Exec(ctx, `SELECT COUNT(*) FROM big`); errkind.Of(err) != errkind.Canceled {
		t.Errorf("cancelled: %v is %v", err, errkind.Of(err))
	}
}
