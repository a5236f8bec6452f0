// Package errkind holds the kinds of errors gsql reports, and their MySQL
// codes and SQLSTATEs.
//
// A kind says what went wrong in terms a client can act on (a table that
// does not exist, a NULL for a NOT NULL column, a memory limit), whatever
// package found it. The packages that report errors give their typed
// errors a method
//
//	ErrorKind() errkind.Kind
//
// (sql.Error, planner.Error, catalog's errors, memory.OutOfMemoryError,
// ...), or build sentinels and plain errors with New, Errorf and Wrap.
// Of finds the kind of any error through its wrapping chain; context
// cancellation and deadlines have their kinds without a method. Nothing
// here looks at an error's text, and this package imports nothing of
// gsql: the imports point down to it.
//
// MySQL is the one mapping from a kind to MySQL's error code and SQLSTATE
// (as go-mysql-server's sql/errors.go maps its error kinds once); the
// MySQL server sends them, and the Flight SQL server sends the SQLSTATE
// with its own gRPC code for the same kind.
package errkind

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies an error. The zero Kind is Unknown.
type Kind uint8

// The kinds. Each comment names the MySQL error the kind is sent as.
const (
	// Unknown is an error no package classified: 1105 ER_UNKNOWN_ERROR.
	Unknown Kind = iota
	// Syntax is text that does not parse: 1064 ER_PARSE_ERROR.
	Syntax
	// Unsupported is valid SQL gsql does not run: 1235
	// ER_NOT_SUPPORTED_YET.
	Unsupported
	// OperandColumns is a row value or subquery of the wrong width: 1241
	// ER_OPERAND_COLUMNS.
	OperandColumns
	// NoSuchTable is a table a statement reads that does not exist: 1146
	// ER_NO_SUCH_TABLE.
	NoSuchTable
	// BadTable is a table the catalog does not have (DROP TABLE of a
	// missing table, above all): 1051 ER_BAD_TABLE_ERROR.
	BadTable
	// NoSuchColumn is a column name that resolves to nothing: 1054
	// ER_BAD_FIELD_ERROR.
	NoSuchColumn
	// AmbiguousColumn is a column name that resolves to several columns:
	// 1052 ER_NON_UNIQ_ERROR.
	AmbiguousColumn
	// NoSuchFunction is a function that is not registered: 1305
	// ER_SP_DOES_NOT_EXIST.
	NoSuchFunction
	// NoSuchIndex is an index that does not exist (on that table): 1091
	// ER_CANT_DROP_FIELD_OR_KEY.
	NoSuchIndex
	// TypeMismatch is an operand or argument of the wrong type, or a bad
	// value found while binding: 1210 ER_WRONG_ARGUMENTS.
	TypeMismatch
	// FunctionArguments is a function called with the wrong number or
	// types of arguments: 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT.
	FunctionArguments
	// TableExists is a table or view name already taken: 1050
	// ER_TABLE_EXISTS_ERROR.
	TableExists
	// IndexExists is an index name already taken: 1061 ER_DUP_KEYNAME.
	IndexExists
	// DuplicateColumn is a column named twice in one definition: 1060
	// ER_DUP_FIELDNAME.
	DuplicateColumn
	// WrongObject is a name used as the wrong kind of object (a view
	// dropped as a table, a view indexed): 1347 ER_WRONG_OBJECT.
	WrongObject
	// NotNull is a NULL for a NOT NULL column: 1048 ER_BAD_NULL_ERROR.
	NotNull
	// BadValue is a value that does not convert to its column's type: 1366
	// ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.
	BadValue
	// OutOfRange is a result beyond its type's range (BIGINT overflow, a
	// DECIMAL past its precision): 1690 ER_DATA_OUT_OF_RANGE.
	OutOfRange
	// Conflict is a table changed by another statement while a statement
	// ran, which may simply be run again: 1213 ER_LOCK_DEADLOCK (SQLSTATE
	// 40001, serialization failure).
	Conflict
	// ReadOnly is a change to a database opened read-only or locked by
	// another writer: 1290 ER_OPTION_PREVENTS_STATEMENT.
	ReadOnly
	// AccessDenied is a statement the server's policy refuses (reading a
	// file outside --files): 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR.
	AccessDenied
	// OutOfMemory is an allocation past the memory pool's limit or a
	// statement's state past its memory limit: 1037 ER_OUTOFMEMORY.
	OutOfMemory
	// Busy is a statement refused because its connection already runs as
	// many as it may: 1040 ER_CON_COUNT_ERROR.
	Busy
	// Canceled is a statement cancelled (a client gone, KILL QUERY,
	// shutdown): 1317 ER_QUERY_INTERRUPTED.
	Canceled
	// Timeout is a statement past its time limit: 3024
	// ER_QUERY_TIMEOUT.
	Timeout
	// UnknownVariable is a SET of a setting gsql does not have: 1193
	// ER_UNKNOWN_SYSTEM_VARIABLE.
	UnknownVariable
	// WrongValue is a setting given a value it does not take (an unknown
	// rule name in disabled_rules): 1231 ER_WRONG_VALUE_FOR_VAR.
	WrongValue
	// Internal is a bug in gsql caught at the API boundary: 1105
	// ER_UNKNOWN_ERROR.
	Internal
	// DuplicateKey is a row whose PRIMARY KEY or UNIQUE key another row
	// has: 1062 ER_DUP_ENTRY.
	DuplicateKey
	// NonGrouped is a select-list column neither grouped nor functionally
	// dependent on the grouped columns: 1055 ER_WRONG_FIELD_WITH_GROUP.
	NonGrouped
	// DiskFull is a write that found no space left on its device (a
	// query's spill files): 1021 ER_DISK_FULL.
	DiskFull
	// NoDefault is a NOT NULL column without a DEFAULT that an INSERT
	// gives no value: 1364 ER_NO_DEFAULT_FOR_FIELD.
	NoDefault
	// InvalidDefault is a DEFAULT that is not a value of its column:
	// 1067 ER_INVALID_DEFAULT.
	InvalidDefault
	// MixedAggregate is an aggregated query without GROUP BY whose select
	// list reads a column outside aggregates: 1140
	// ER_MIX_OF_GROUP_FUNC_AND_FIELDS.
	MixedAggregate
	// IncorrectValue is constant text that a comparison with a DATE or
	// DATETIME cannot read as one (MySQL 8.0.16+): 1525 ER_WRONG_VALUE,
	// "Incorrect DATE value: '2023-02-30'".
	IncorrectValue

	numKinds // the number of kinds; keep last
)

// mysql is the one table of MySQL codes and SQLSTATEs, indexed by Kind.
var mysql = [numKinds]struct {
	name  string
	code  uint16
	state string
}{
	Unknown:           {"unknown", 1105, "HY000"},
	Syntax:            {"syntax error", 1064, "42000"},
	Unsupported:       {"not supported", 1235, "42000"},
	OperandColumns:    {"operand columns", 1241, "21000"},
	NoSuchTable:       {"no such table", 1146, "42S02"},
	BadTable:          {"unknown table", 1051, "42S02"},
	NoSuchColumn:      {"no such column", 1054, "42S22"},
	AmbiguousColumn:   {"ambiguous column", 1052, "23000"},
	NoSuchFunction:    {"no such function", 1305, "42000"},
	NoSuchIndex:       {"no such index", 1091, "42000"},
	TypeMismatch:      {"type mismatch", 1210, "HY000"},
	FunctionArguments: {"function arguments", 1582, "42000"},
	TableExists:       {"table exists", 1050, "42S01"},
	IndexExists:       {"index exists", 1061, "42000"},
	DuplicateColumn:   {"duplicate column", 1060, "42S21"},
	WrongObject:       {"wrong object", 1347, "HY000"},
	NotNull:           {"NOT NULL violation", 1048, "23000"},
	BadValue:          {"bad value", 1366, "HY000"},
	OutOfRange:        {"out of range", 1690, "22003"},
	Conflict:          {"conflict", 1213, "40001"},
	ReadOnly:          {"read-only", 1290, "HY000"},
	AccessDenied:      {"access denied", 1227, "42000"},
	OutOfMemory:       {"out of memory", 1037, "HY001"},
	Busy:              {"busy", 1040, "08004"},
	Canceled:          {"canceled", 1317, "70100"},
	Timeout:           {"timeout", 3024, "HY000"},
	UnknownVariable:   {"unknown variable", 1193, "HY000"},
	WrongValue:        {"wrong value", 1231, "42000"},
	Internal:          {"internal error", 1105, "HY000"},
	DuplicateKey:      {"duplicate key", 1062, "23000"},
	NonGrouped:        {"non-grouped column", 1055, "42000"},
	DiskFull:          {"disk full", 1021, "HY000"},
	NoDefault:         {"no default", 1364, "HY000"},
	InvalidDefault:    {"invalid default", 1067, "42000"},
	MixedAggregate:    {"aggregate mixed with a column", 1140, "42000"},
	IncorrectValue:    {"incorrect value", 1525, "HY000"},
}

// Kinds returns every kind, Unknown first.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

func (k Kind) String() string {
	if k >= numKinds {
		return fmt.Sprintf("errkind.Kind(%d)", uint8(k))
	}
	return mysql[k].name
}

// MySQL returns the MySQL error code and SQLSTATE a client expects for an
// error of kind k (an out-of-range k is Unknown's: 1105, HY000).
func (k Kind) MySQL() (code uint16, sqlstate string) {
	if k >= numKinds {
		k = Unknown
	}
	return mysql[k].code, mysql[k].state
}

// MySQL returns the MySQL error code and SQLSTATE of err's kind.
func MySQL(err error) (code uint16, sqlstate string) { return Of(err).MySQL() }

// Kinded is an error that knows its kind.
type Kinded interface {
	error
	ErrorKind() Kind
}

// Of returns err's kind: that of the first error in its chain (errors.As
// order) whose ErrorKind is not Unknown; else Canceled or Timeout for a
// context's cancellation or deadline; else Unknown (also for nil).
func Of(err error) Kind {
	if err == nil {
		return Unknown
	}
	if k := first(err); k != Unknown {
		return k
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	}
	return Unknown
}

// first walks err's tree as errors.As does and returns the first known
// kind (errors.As alone would stop at a Kinded error whose kind is
// Unknown).
func first(err error) Kind {
	for err != nil {
		if k, ok := err.(Kinded); ok && k.ErrorKind() != Unknown {
			return k.ErrorKind()
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if k := first(e); k != Unknown {
					return k
				}
			}
			return Unknown
		default:
			return Unknown
		}
	}
	return Unknown
}

// Is reports whether err is of kind k.
func Is(err error, k Kind) bool { return Of(err) == k }

// kindError is an error with a kind and a message, or wrapping another.
type kindError struct {
	kind Kind
	msg  string
	err  error
}

func (e *kindError) Error() string {
	if e.msg == "" && e.err != nil {
		return e.err.Error()
	}
	return e.msg
}
func (e *kindError) Unwrap() error   { return e.err }
func (e *kindError) ErrorKind() Kind { return e.kind }

// New returns an error of kind k with message msg: a sentinel with a
// kind, matched with errors.Is as one from errors.New is.
func New(k Kind, msg string) error { return &kindError{kind: k, msg: msg} }

// Errorf formats an error as fmt.Errorf does (%w wraps) and gives it kind
// k.
func Errorf(k Kind, format string, args ...any) error {
	return &kindError{kind: k, err: fmt.Errorf(format, args...)}
}

// Wrap gives err kind k, its message and chain unchanged (nil stays nil).
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &kindError{kind: k, err: err}
}
