// Package clickbench generates the hits table of the ClickBench benchmark
// (github.com/ClickHouse/ClickBench): its 105 published columns with
// value shapes like those of the original Yandex.Metrica sample, but
// synthetic and deterministic by seed. URL, Referer and Title share
// prefixes drawn from pools of domains and paths, SearchPhrase is mostly
// empty, UserID, CounterID, RegionID and AdvEngineID are skewed (Zipf-like,
// AdvEngineID mostly 0), and EventDate/EventTime spread over July 2013 as
// in the original.
//
// The column names and order follow ClickBench's create.sql; its integer
// types (BIGINT, INTEGER, SMALLINT) are gsql BIGINT, TEXT, VARCHAR and
// CHAR are VARCHAR, DATE is DATE and TIMESTAMP is TIMESTAMP. No value is
// NULL. Every row is a pure function of the seed and the row's number, so
// ranges of rows can be generated in parallel and any range reproduces
// the same rows. The 43 published queries are in the queries subpackage.
package clickbench
