// Package ssb generates the five tables of the Star Schema Benchmark
// (O'Neil, O'Neil and Chen, "Star Schema Benchmark", revision 3):
// lineorder, the fact table, and the dimensions customer, supplier, part
// and dates (the specification's DATE table, renamed because DATE is a
// type name in SQL).
//
// The rules are TPC-H's (datagen/tpch), as the benchmark's own dbgen
// derives them: lineorder is the denormalized orders and lineitem (1 to 7
// lines an order, sparse order keys, a third of the customers without
// orders, quantities 1..50, discounts 0..10, taxes 0..8, commit dates 30
// to 90 days after the order date, extended price = quantity × the part's
// retail price), with SSB's columns: revenue = extended price × (100 −
// discount) / 100, supply cost = 6/10 of the retail price, order total =
// the sum of the lines' discounted and taxed prices. Money is integer
// cents and dates of the fact table are yyyymmdd integers joined to
// d_datekey, as in SSB's own generator.
//
// Cardinalities at scale factor SF: customer 30,000×SF, supplier
// 2,000×SF, part 200,000×⌊1+log2 SF⌋ (200,000×SF below 1), orders
// 1,500,000×SF (about 6,000,000×SF lineorder rows), dates 2,557 (every
// day of 1992–1998).
//
// Values come from a counter-based generator: each is a hash of the
// seed, the table, the row and the column, so any range of rows is
// generated independently (in parallel) and a seed always yields the
// same tables.
package ssb
