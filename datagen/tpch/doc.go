// Package tpch generates the eight tables of the TPC-H benchmark the way
// the reference generator dbgen does: the same random streams, seeds,
// per-row stream boundaries, text grammar and value distributions, so
// that a scale factor yields, row for row, the data dbgen writes into its
// .tbl files. Rows are produced in Arrow record batches with the
// specification's column types (DECIMAL(15,2) money and quantities, DATE
// dates), so a table of any scale factor goes straight into a database
// without text files in between.
//
// The rules come from reading dbgen 2.17 (build.c, rnd.c, text.c,
// bm_utils.c, speed_seed.c) and the TPC-H specification, clause 4.2; the
// code is our own. The 22 queries with their validation parameters live
// in the queries subpackage.
package tpch
