// Package difftest is a randomized differential test of gsql against
// SQLite: it generates small tables and thousands of queries from a seed,
// runs every query on gsql (its Go API, CPU device) and on SQLite (the
// pure-Go modernc.org/sqlite driver, SQLite 3.54) over the same data, and
// fails on any difference in their results. It is its own module, like
// bench/, so the engine's go.mod never depends on SQLite.
//
//	cd difftest && go test ./...                   # 3000 + 30 large queries, seed 1
//	go test -run TestDifferential -seed 7 -queries 50000 -v .
//	go test -run TestDifferentialLarge -seed 7 -large 200 -v .
//	DIFFTEST_SEED=7 DIFFTEST_N=50000 go test ./... # the same, from CI scripts
//	DIFFTEST_SEED=1000047 DIFFTEST_QUERY='SELECT ...' go test -run TestOne -v .
//	DIFFTEST_DATA='CREATE TABLE ...; INSERT ...' DIFFTEST_QUERY='...' go test -run TestOne -v .
//
// (The count flag is -queries, not -n: go test keeps -n for itself.)
// TestDifferential makes a fresh dataset every 50 queries, from seed
// seed*1000003 + i; TestDifferentialLarge runs single-table queries over
// two tables of 65,537 to 70,000 rows (more than one CPU batch).
//
// # Data
//
// Each data seed makes two to four tables t1..tN of 0 to 12 rows: id (a
// unique non-NULL integer), a (integer), s (text) and some of b, c
// (integers), r, x (doubles) and u (text), a fifth of the values NULL.
// Integers lie in -2..5, doubles are multiples of 0.25 in -1..3, texts
// come from a, b, c, ab, B, ba, "a " (a trailing space), "_%" (LIKE's
// wildcards as data) and the empty string, so that joins, IN lists and
// GROUP BY keys match often and every sum of doubles is exact in whatever
// order an engine adds.
//
// # Queries
//
// Joins (comma lists with WHERE equalities, INNER, LEFT, RIGHT and CROSS
// JOIN, ON with one or two equalities of columns or expressions and more
// conditions, subqueries included, JOIN ... USING), derived tables (some
// with ORDER BY ... LIMIT) and CTEs (several, one reading another, one
// read twice, WITH RECURSIVE counters and walks over the tables' rows with
// UNION ALL and UNION), IN / NOT IN / EXISTS / NOT EXISTS / scalar
// subqueries, correlated or not, over aggregates and set operations, in
// WHERE, ON, the select list and HAVING, nested two deep; UNION / UNION
// ALL / INTERSECT / EXCEPT chains with parenthesised operands (some with
// their own ORDER BY ... LIMIT); GROUP BY columns, expressions or
// ordinals, HAVING with or without GROUP BY, COUNT(*), COUNT, COUNT /
// SUM / AVG (DISTINCT), SUM, MIN, MAX, AVG; window functions (ROW_NUMBER,
// RANK, DENSE_RANK, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, and
// SUM/COUNT/MIN/MAX/AVG OVER) with PARTITION BY and ORDER BY columns or
// expressions, ROWS and RANGE frames (offsets included), named windows
// used whole or refined (OVER (w ORDER BY ...)), over plain rows or over
// groups; CASE, COALESCE, NULLIF, LIKE (with MySQL's backslash escape and
// ESCAPE), BETWEEN, IN lists, <=>, DIV, `/`, `%`, GREATEST/LEAST, string
// functions; ORDER BY with NULLS FIRST/LAST or MySQL's default, by alias
// or ordinal, LIMIT, OFFSET and LIMIT offset, count.
//
// A query's result must not depend on choices the engines may make
// differently, so the generator keeps to these rules:
//
//   - A top-level ORDER BY either names every output column, and then the
//     rows compare as a sequence (rows equal in every column are
//     indistinguishable, so the order is fixed) and may take LIMIT/OFFSET,
//     or names some, and then the rows compare as a multiset.
//   - Window functions whose result depends on the order among peers
//     (ROW_NUMBER, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, anything over
//     a ROWS frame) get the id of every table in the FROM clause appended
//     to their ORDER BY, and are not generated where a derived table or CTE
//     leaves no such key. RANK, DENSE_RANK and aggregates over RANGE frames
//     are deterministic with ties and get no extra keys; a RANGE frame with
//     offsets has its single numeric ORDER BY key.
//   - Scalar subqueries are aggregates or ORDER BY id LIMIT 1, so they
//     return at most one row (SQLite would take the first of several,
//     MySQL and gsql fail).
//   - Comparisons never mix text with numbers (MySQL converts the text to a
//     number, SQLite ranks every number below every text).
//   - Beyond comparing with SQLite, gsql's rows must follow the top-level
//     ORDER BY key by key even where it leaves ties.
//
// # Normalisations
//
// Only representational differences are normalised, each for a reason:
//
//   - Numbers compare by value: SQLite returns whatever storage class a
//     value has (COALESCE(int, real) may be an integer), gsql the column's
//     type, and both have booleans as 1 and 0 (gsql's are BOOLEAN, SQLite's
//     integers). Doubles agree within a relative 1e-9, as engines may add
//     in another order; a DECIMAL result also within half a unit of its
//     last place.
//   - Division: MySQL's `/` gives a fraction for integers, SQLite's
//     truncates. A generated `x / y` is sent to SQLite as
//     `CAST(x AS REAL) / y`, and only at the top of a select item (never
//     under an aggregate or comparison, where MySQL's DECIMAL rounding
//     could show). Integer division is MySQL's `x DIV y`, SQLite's
//     `x / y` on integers: both truncate toward zero and give NULL for 0.
//   - Spelling: GREATEST/LEAST are SQLite's two-argument MAX/MIN (NULL if
//     either argument is), CONCAT is `||` (NULL if either is), CAST AS
//     DOUBLE/BIGINT/VARCHAR is CAST AS REAL/INTEGER/TEXT, and a
//     parenthesised set operation operand `(A UNION B)` is
//     `SELECT * FROM (A UNION B)`: SQLite has no parenthesised operands.
//   - LIKE: SQLite runs with PRAGMA case_sensitive_like = ON, as gsql's
//     LIKE is case-sensitive (a binary collation, like utf8mb4_0900_bin).
//     MySQL's LIKE escapes with a backslash by default (and a string
//     literal keeps \_ and \% as written); SQLite gets ESCAPE '\'.
//   - <=> (MySQL's NULL-safe equality) is SQLite's IS.
//
// # Dialect differences avoided rather than normalised
//
//   - Set operation precedence: INTERSECT binds tighter than UNION and
//     EXCEPT in gsql (and the standard; gsql asks for parentheses where the
//     two readings differ), SQLite reads a chain left to right. Generated
//     chains put INTERSECT only at their head, where both agree, and nest
//     through parentheses otherwise.
//   - Join precedence: MySQL's comma binds looser than JOIN, SQLite reads
//     "a, b RIGHT JOIN c" as "(a, b) RIGHT JOIN c". RIGHT JOIN is not
//     generated after a comma (inner and left joins mean the same either
//     way), and an ON condition only names relations after the last comma
//     (MySQL cannot see the others).
//   - Untyped NULL: MySQL and gsql type MIN/MAX of a bare NULL literal as a
//     string (BINARY(0) in MySQL), so a set operation with a number turns
//     the number into text; SQLite has no column types. NULLs in select
//     items and under aggregates and window functions are typed
//     (CAST(NULL AS BIGINT)); bare NULLs appear in predicates and IN lists.
//   - NULL ordering: MySQL, gsql and SQLite all sort NULLs first ascending
//     and last descending by default. Most keys still say NULLS FIRST or
//     NULLS LAST explicitly; a fifth use the default.
//   - USING joins have one relation on their left (MySQL calls a column
//     that two of them have ambiguous; SQLite takes the first), and a
//     subquery over a grouped query reads key columns only (MySQL's
//     ONLY_FULL_GROUP_BY refuses columns under a key expression).
//   - SQLite lacks INTERSECT ALL and EXCEPT ALL, so they are not
//     generated. It lacks comparisons with ANY/SOME/ALL (subquery) too:
//     gsql gets x op ANY|SOME|ALL (SELECT e ...), correlated or not, and
//     SQLite the definition spelled with EXISTS (CASE WHEN EXISTS (...
//     AND x op e) THEN 1 WHEN NOT EXISTS (...) THEN 0 WHEN EXISTS (... AND
//     (x op e) IS NULL) THEN NULL ELSE 0 END for ANY, and the dual for
//     ALL; gen.go's quantifiedPred). Row values are generated: (x, y)
//     [NOT] IN (SELECT a, b ...), correlated or not,
//     (x, y) [NOT] IN ((1, 2), ...), NULL components included, row
//     comparisons (x, y) op (u, v) with =, <>, <, <=, >, >=, <=> (SQLite's
//     IS), and (x, y) op (SELECT a, b ... ORDER BY id LIMIT 1).
//
// # SQLite bugs avoided
//
//   - A window function over an aggregate in a query without GROUP BY,
//     read from a derived table or CTE, fails in SQLite 3.45 and 3.54 with
//     "HAVING clause on a non-aggregate query": windows over groups are
//     generated only with GROUP BY keys, and HAVING without GROUP BY only
//     over plain aggregates.
//   - SQLite 3.45 (modernc v1.29) answered SELECT * FROM (SELECT ... UNION
//     ALL SELECT ... RIGHT JOIN ...) with a row too many; hence 3.54.
//
// # On a mismatch
//
// The test prints the data seed, the query for each engine, the data after
// dropping every row that the mismatch does not need, and both results.
// Shapes that expose a gsql bug too large to fix at once are switched off
// in shapes (gen.go) by name. None is off now: deepCorrelation (a
// subquery inside a subquery reading the outermost query's columns) was
// until 2026-11-26, when gsql learned to bind such columns through the
// enclosing subquery.
//
// # Bugs found so far (fixed, with regression tests)
//
//   - A CTE named after a JOIN's ON condition and a comma was "unknown
//     table" (sql/cte.go).
//   - A correlated subquery in a grouped query's select list or HAVING read
//     the FROM clause's column positions from the Aggregate's output: index
//     out of range, or wrong values (planner/subquery.go).
//   - '\_' and '\%' in a string literal lost their backslash, so LIKE
//     '%\_%' matched any character (sql/rewrite.go).
package difftest
