// Package opspec holds the specifications of operators that plans carry
// and operators execute: aggregates (AggSpec, AggKind, AggResultType),
// sort keys and NULL order, join kinds, the device GROUP BY's top-groups
// note, the host batch size, and the value order and grouping key
// encoding (CompareValues, AppendRowKey) that sorting, grouping and the
// planner's subquery evaluation share. Window function specifications
// are in opspec/winspec.
//
// It sits below both planner and operators and imports only coldata and
// expr (with what they import), so that plan types need no operator code.
package opspec
