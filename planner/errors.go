package planner

import (
	"fmt"

	"github.com/gsqlengine/gsql/errkind"
)

// ErrorKind classifies binding errors.
type ErrorKind int

const (
	// UnknownTable: a table that does not exist.
	UnknownTable ErrorKind = iota + 1
	// UnknownColumn: a column name that resolves to nothing.
	UnknownColumn
	// AmbiguousColumn: a column name that resolves to several columns.
	AmbiguousColumn
	// UnknownFunction: a function that is not registered.
	UnknownFunction
	// TypeMismatch: wrong argument count or types, bad values.
	TypeMismatch
	// Unsupported: valid SQL gsql does not run (yet).
	Unsupported
	// UnknownRule: a rule name the optimizer does not have (rules.go).
	UnknownRule
	// NonGrouped: a column outside GROUP BY and aggregates that the
	// grouped columns do not determine (MySQL's ONLY_FULL_GROUP_BY).
	NonGrouped
	// MixedAggregate: an aggregated query without GROUP BY that also reads
	// a column outside aggregates (MySQL's ONLY_FULL_GROUP_BY, 1140).
	MixedAggregate
	// IncorrectValue: constant text compared with a DATE or DATETIME
	// that reads as no date (MySQL 8's 1525, ER_WRONG_VALUE).
	IncorrectValue
)

func (k ErrorKind) String() string {
	switch k {
	case UnknownTable:
		return "unknown table"
	case UnknownColumn:
		return "unknown column"
	case AmbiguousColumn:
		return "ambiguous column"
	case UnknownFunction:
		return "unknown function"
	case TypeMismatch:
		return "type mismatch"
	case Unsupported:
		return "not supported"
	case UnknownRule:
		return "unknown rule"
	case NonGrouped:
		return "non-grouped column"
	case MixedAggregate:
		return "aggregate mixed with a column"
	case IncorrectValue:
		return "incorrect value"
	}
	return "error"
}

// Error is a statement that cannot be planned.
type Error struct {
	Kind ErrorKind
	Msg  string
	// Object names the table, column or function concerned, if any.
	Object string
}

func (e *Error) Error() string { return e.Msg }

// ErrorKind implements errkind.Kinded.
func (e *Error) ErrorKind() errkind.Kind {
	switch e.Kind {
	case UnknownTable:
		return errkind.NoSuchTable
	case UnknownColumn:
		return errkind.NoSuchColumn
	case AmbiguousColumn:
		return errkind.AmbiguousColumn
	case UnknownFunction:
		return errkind.NoSuchFunction
	case Unsupported:
		return errkind.Unsupported
	case UnknownRule:
		return errkind.WrongValue
	case NonGrouped:
		return errkind.NonGrouped
	case MixedAggregate:
		return errkind.MixedAggregate
	case IncorrectValue:
		return errkind.IncorrectValue
	}
	return errkind.TypeMismatch
}

func errorf(kind ErrorKind, object, format string, args ...any) *Error {
	return &Error{Kind: kind, Object: object, Msg: fmt.Sprintf(format, args...)}
}

// notYet reports SQL that a later part of gsql will support.
func notYet(what string) *Error {
	return errorf(Unsupported, "", "not supported yet: %s", what)
}
