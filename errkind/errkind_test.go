package errkind

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"strings"
	"testing"
)

// TestMySQL pins each kind's MySQL code and SQLSTATE: clients (and
// server/mysql/clienttest) depend on them.
func TestMySQL(t *testing.T) {
	cases := []struct {
		kind  Kind
		code  uint16
		state string
	}{
		{Unknown, 1105, "HY000"},
		{Syntax, 1064, "42000"},
		{Unsupported, 1235, "42000"},
		{OperandColumns, 1241, "21000"},
		{NoSuchTable, 1146, "42S02"},
		{BadTable, 1051, "42S02"},
		{NoSuchColumn, 1054, "42S22"},
		{AmbiguousColumn, 1052, "23000"},
		{NoSuchFunction, 1305, "42000"},
		{NoSuchIndex, 1091, "42000"},
		{TypeMismatch, 1210, "HY000"},
		{FunctionArguments, 1582, "42000"},
		{TableExists, 1050, "42S01"},
		{IndexExists, 1061, "42000"},
		{DuplicateColumn, 1060, "42S21"},
		{WrongObject, 1347, "HY000"},
		{NotNull, 1048, "23000"},
		{BadValue, 1366, "HY000"},
		{OutOfRange, 1690, "22003"},
		{Conflict, 1213, "40001"},
		{ReadOnly, 1290, "HY000"},
		{AccessDenied, 1227, "42000"},
		{OutOfMemory, 1037, "HY001"},
		{Busy, 1040, "08004"},
		{Canceled, 1317, "70100"},
		{Timeout, 3024, "HY000"},
		{UnknownVariable, 1193, "HY000"},
		{WrongValue, 1231, "42000"},
		{Internal, 1105, "HY000"},
		{DuplicateKey, 1062, "23000"},
		{NonGrouped, 1055, "42000"},
		{DiskFull, 1021, "HY000"},
		{NoDefault, 1364, "HY000"},
		{InvalidDefault, 1067, "42000"},
		{MixedAggregate, 1140, "42000"},
		{IncorrectValue, 1525, "HY000"},
		{numKinds + 3, 1105, "HY000"},
	}
	if len(cases)-1 != len(Kinds()) {
		t.Fatalf("%d cases for %d kinds: add the new kind here", len(cases)-1, len(Kinds()))
	}
	for _, c := range cases {
		code, state := c.kind.MySQL()
		if code != c.code || state != c.state {
			t.Errorf("%v: %d (%s), want %d (%s)", c.kind, code, state, c.code, c.state)
		}
		if c.kind < numKinds && (c.kind.String() == "" || strings.HasPrefix(c.kind.String(), "errkind.")) {
			t.Errorf("kind %d has no name", c.kind)
		}
	}
}

type typed struct{ k Kind }

func (e *typed) Error() string   { return "typed" }
func (e *typed) ErrorKind() Kind { return e.k }

func TestOf(t *testing.T) {
	sentinel := New(ReadOnly, "read-only")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, Unknown},
		{"plain", errors.New("x"), Unknown},
		{"typed", &typed{NotNull}, NotNull},
		{"wrapped typed", fmt.Errorf("INSERT INTO t: %w", &typed{NotNull}), NotNull},
		{"sentinel", sentinel, ReadOnly},
		{"wrapped sentinel", fmt.Errorf("commit: %w", sentinel), ReadOnly},
		{"Errorf", Errorf(BadValue, "bad %q", "x"), BadValue},
		{"Wrap outermost wins", Wrap(AccessDenied, &typed{NoSuchTable}), AccessDenied},
		{"unknown kind skipped", fmt.Errorf("%w", &typed{Unknown}), Unknown},
		{"unknown kind over a known one", Wrap(Unknown, &typed{OutOfRange}), OutOfRange},
		{"joined", errors.Join(errors.New("a"), &typed{OutOfMemory}), OutOfMemory},
		{"canceled", ctx.Err(), Canceled},
		{"wrapped canceled", fmt.Errorf("scan: %w", context.Canceled), Canceled},
		{"deadline", context.DeadlineExceeded, Timeout},
		{"typed before context", fmt.Errorf("%w: %w", &typed{OutOfMemory}, context.Canceled), OutOfMemory},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Of(c.err); got != c.want {
				t.Errorf("Of(%v) = %v, want %v", c.err, got, c.want)
			}
			if !Is(c.err, c.want) {
				t.Errorf("Is(%v, %v) = false", c.err, c.want)
			}
		})
	}
}

// TestHelpersKeepErrors: the helpers change no message and keep the chain
// errors.Is and errors.As follow.
func TestHelpersKeepErrors(t *testing.T) {
	base := errors.New("base")
	if err := Errorf(OutOfRange, "sum: %w", base); err.Error() != "sum: base" || !errors.Is(err, base) {
		t.Errorf("Errorf: %v, Is base %v", err, errors.Is(err, base))
	}
	if err := Wrap(Timeout, base); err.Error() != "base" || !errors.Is(err, base) {
		t.Errorf("Wrap: %v", err)
	}
	if Wrap(Timeout, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	s := New(Busy, "busy")
	if s.Error() != "busy" || errors.Is(New(Busy, "busy"), s) {
		t.Error("New: sentinels must compare by identity")
	}
	var k Kinded
	if !errors.As(fmt.Errorf("x: %w", s), &k) || k.ErrorKind() != Busy {
		t.Error("errors.As finds the Kinded error")
	}
	code, state := MySQL(fmt.Errorf("x: %w", s))
	if code != 1040 || state != "08004" {
		t.Errorf("MySQL(err) = %d %s", code, state)
	}
}

// TestImportsNothingOfGsql keeps errkind at the bottom: every package that
// reports errors imports it.
func TestImportsNothingOfGsql(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(imp, ".") {
			t.Errorf("errkind imports %s: only the standard library is allowed", imp)
		}
	}
}
