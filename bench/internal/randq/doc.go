// Package randq generates random analytic queries for the bench program's
// random suite: joins, subqueries, window functions, top-k, CTEs and set
// operations over ClickBench's hits table and the TPC-H tables, composed
// at random from a seed. The suite runs them on every engine to find the
// queries where gsql is slower than DuckDB, so the queries aim at the
// work an analytic engine meets (large scans, hash joins on real keys,
// grouped windows, correlated subqueries) rather than at the corner cases
// of difftest's correctness generator.
//
// Every query's answer is determined by the data: the top-level ORDER BY
// names every output column (the columns Query.Keys lists, in order), so
// its LIMIT cuts a fixed set of rows; window functions whose value depends
// on the order among peers (ROW_NUMBER, LAG, LEAD, ROWS frames) order by
// a key that identifies the row; a LIMIT inside a subquery follows a total
// order too; sums never run over identifiers (which would overflow
// BIGINT). Float and DECIMAL results may still differ in their last
// digits between engines (gsql answers AVG of an integer as a DECIMAL with
// four more digits of scale, DuckDB as a DOUBLE), so answers compare with
// a tolerance (the bench's random suite comparison).
//
// The SQL is the dialect both gsql and DuckDB accept: DATE 'yyyy-mm-dd'
// literals, EXTRACT(unit FROM x), DATE_TRUNC('unit', x), CASE, window
// frames, ORDER BY ordinals and window ORDER BY keys with NULLS LAST (gsql
// orders NULLs first ascending, as MySQL does; DuckDB last). Query.Duck carries a DuckDB
// text where the dialects differ: DuckDB 1.1 has no row-value IN over a
// subquery, and gets the EXISTS it means.
package randq
