// Package sql turns SQL text into statements: a dialect layer on top of
// github.com/xwb1989/sqlparser. It splits scripts into statements, parses
// the DDL gsql supports itself (the library drops column types it does not
// know and logs to stderr), rewrites the expression forms the library
// rejects (SUBSTRING of an expression, POSITION, TRIM ... FROM, CAST to
// DOUBLE/BOOLEAN, ...) into plain function calls, and reports every error
// with the line and column of the user's text and a caret snippet.
//
// The rewrites work on the library's own tokenizer, so quoting, comments and
// escapes are handled exactly as the parser handles them. What the planner
// receives for the special forms:
//
//	SUBSTRING/SUBSTR/MID(s, p[, n]), SUBSTRING(s FROM p [FOR n])  substring(s, p[, n])
//	POSITION(a IN b)                                                locate(a, b)
//	TRIM([BOTH] [r] FROM s), TRIM(s)                                trim(s[, r])
//	TRIM(LEADING [r] FROM s), TRIM(TRAILING [r] FROM s)             ltrim(s[, r]), rtrim(s[, r])
//	CAST(x AS t), CONVERT(x, t)                                     cast_to_boolean|bigint|double|varchar(x)
//	'a' 'b' (adjacent literals)                                     'ab'
//	?                                                               :v1, :v2, ... (sqlparser.ValArg) in text order
//
// Only the library's expression and query grammar is used: DDL, SHOW,
// DESCRIBE and EXPLAIN never reach its DDL path, so nothing it logs can
// reach the user's terminal.
package sql
