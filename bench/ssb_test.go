package main

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/datagen/ssb"
)

// loadSSB generates the SSB tables at sf and seed into a gsql-cpu engine
// and returns it with the records (for oracles), which the caller
// releases.
func loadSSB(t *testing.T, sf float64, seed int64) (engine, map[ssb.Table][]arrow.Record) {
	t.Helper()
	ctx := context.Background()
	e, err := openGSQL("gsql-cpu", "cpu", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	g, err := ssb.New(sf, seed)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[ssb.Table][]arrow.Record{}
	for _, tb := range ssb.Tables {
		if recs[tb], err = g.Records(ctx, tb); err != nil {
			t.Fatal(err)
		}
		if err := e.Load(ctx, tb.String(), ssb.Schema(tb), recs[tb]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, rs := range recs {
			release(rs)
		}
	})
	return e, recs
}

// int64Col is a column of records by name.
func int64Col(recs []arrow.Record, name string) []int64 {
	var out []int64
	for _, r := range recs {
		idx := r.Schema().FieldIndices(name)
		out = append(out, r.Column(idx[0]).(*array.Int64).Int64Values()...)
	}
	return out
}

// TestSSBQueriesOnCPU runs the 13 SSB queries on gsql's CPU backend at
// SF 0.1 (600,000 lineorder rows): the loaded tables have the
// generator's counts and every fact row's references resolve; every query
// plans and runs and
// returns rows (Q3.3 and Q3.4, whose two cities select a few dozen rows
// at SF 1, exactly when the data has rows for them: with seed 1 both
// have), and flight 1's revenues equal those computed from the
// generated records.
func TestSSBQueriesOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SSB SF 0.1")
	}
	ctx := context.Background()
	e, recs := loadSSB(t, 0.1, 1)
	// Flight 1 by hand: the fact rows of a date, discount and quantity.
	type day struct{ year, yearMonth, week int64 }
	days := map[int64]day{}
	d := recs[ssb.Dates]
	for i, k := range int64Col(d, "d_datekey") {
		days[k] = day{int64Col(d, "d_year")[i], int64Col(d, "d_yearmonthnum")[i], int64Col(d, "d_weeknuminyear")[i]}
	}
	lo := recs[ssb.LineOrder]
	date, price, disc, qty := int64Col(lo, "lo_orderdate"), int64Col(lo, "lo_extendedprice"), int64Col(lo, "lo_discount"), int64Col(lo, "lo_quantity")
	revenue := func(keep func(d day, disc, qty int64) bool) string {
		var sum int64
		for i := range date {
			if keep(days[date[i]], disc[i], qty[i]) {
				sum += price[i] * disc[i]
			}
		}
		return itoa(sum)
	}
	want := map[string]string{
		"Q1.1": revenue(func(d day, disc, qty int64) bool { return d.year == 1993 && disc >= 1 && disc <= 3 && qty < 25 }),
		"Q1.2": revenue(func(d day, disc, qty int64) bool {
			return d.yearMonth == 199401 && disc >= 4 && disc <= 6 && qty >= 26 && qty <= 35
		}),
		"Q1.3": revenue(func(d day, disc, qty int64) bool {
			return d.week == 6 && d.year == 1994 && disc >= 5 && disc <= 7 && qty >= 26 && qty <= 35
		}),
	}
	// Q3.3 and Q3.4 need a customer and a supplier in two cities of 250:
	// at small scale factors there may be no such pair; count the fact
	// rows that have one.
	cityOf := func(tb ssb.Table, col string) map[int64]string {
		m := map[int64]string{}
		for _, r := range recs[tb] {
			keys := r.Column(0).(*array.Int64)
			cities := r.Column(r.Schema().FieldIndices(col)[0]).(*array.String)
			for i := 0; i < keys.Len(); i++ {
				m[keys.Value(i)] = cities.Value(i)
			}
		}
		return m
	}
	custCity, suppCity := cityOf(ssb.Customer, "c_city"), cityOf(ssb.Supplier, "s_city")
	cust, supp := int64Col(lo, "lo_custkey"), int64Col(lo, "lo_suppkey")
	ki := func(c string) bool { return c == "UNITED KI1" || c == "UNITED KI5" }
	facts := map[string]int{"Q3.3": 0, "Q3.4": 0}
	for i := range date {
		if ki(custCity[cust[i]]) && ki(suppCity[supp[i]]) {
			if y := days[date[i]].year; y >= 1992 && y <= 1997 {
				facts["Q3.3"]++
			}
			if days[date[i]].yearMonth == 199712 {
				facts["Q3.4"]++
			}
		}
	}
	// The tables as the engine holds them: the generator's row counts,
	// every fact row's keys found in its dimensions.
	g, _ := ssb.New(0.1, 1)
	for _, c := range []struct{ sql, want string }{
		{"select count(*) from customer", itoa(g.Rows(ssb.Customer))},
		{"select count(*) from supplier", itoa(g.Rows(ssb.Supplier))},
		{"select count(*) from part", itoa(g.Rows(ssb.Part))},
		{"select count(*) from dates", "2557"},
		{"select count(distinct lo_orderkey) from lineorder", itoa(g.Orders())},
		{"select count(*) from lineorder", itoa(int64(len(date)))},
		{`select count(*) from lineorder
			left join customer on lo_custkey = c_custkey left join supplier on lo_suppkey = s_suppkey
			left join part on lo_partkey = p_partkey left join dates d1 on lo_orderdate = d1.d_datekey
			left join dates d2 on lo_commitdate = d2.d_datekey
			where c_custkey is null or s_suppkey is null or p_partkey is null or d1.d_datekey is null or d2.d_datekey is null`, "0"},
	} {
		a, _, err := e.Answer(ctx, c.sql)
		if err != nil || len(a.Rows) != 1 || a.Rows[0][0] != c.want {
			t.Errorf("%s: %v %v, want %s", c.sql, a.Rows, err, c.want)
		}
	}
	for _, q := range ssb.Queries {
		a, res, err := e.Answer(ctx, q.SQL)
		if err != nil {
			t.Errorf("%s: %v", q.Name, err)
			continue
		}
		n, selective := facts[q.Name]
		if (res.Rows == 0) != (selective && n == 0) {
			t.Errorf("%s: %d rows (fact rows it selects: %d)", q.Name, res.Rows, n)
		}
		if w, ok := want[q.Name]; ok && (len(a.Rows) != 1 || a.Rows[0][0] != w) {
			t.Errorf("%s: %v, want %s", q.Name, a.Rows, w)
		}
	}
}

func TestSSBFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--suite", "ssb", "--queries", "Q1.1,4.3,q2.2", "--sf", "0.01,1"}, io.Discard)
	if err != nil || len(cfg.queries) != 3 || cfg.queries[1].Name != "Q4.3" || cfg.queries[2].Name != "Q2.2" || len(cfg.sfs) != 2 {
		t.Fatalf("parseFlags: %+v %v", cfg, err)
	}
	if cfg, err := parseFlags([]string{"--suite", "ssb"}, io.Discard); err != nil || len(cfg.queries) != 13 {
		t.Fatalf("parseFlags: %+v %v", cfg, err)
	}
	for _, args := range [][]string{
		{"--suite", "ssb", "--queries", "Q5.1"},
		{"--suite", "ssb", "--sf", "0"},
		{"--suite", "ssb", "--params", "random"},
		{"--suite", "tpch", "--params", "qgen"},
		{"--suite", "tpch", "--sets", "2"},
		{"--suite", "tpch", "--params", "random", "--sets", "0"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestSSBSuiteEndToEnd runs the SSB suite at SF 0.01 (seed 1) on gsql's
// CPU backend, its GPU backend where this build and machine have one,
// and DuckDB, and requires every answer to agree.
func TestSSBSuiteEndToEnd(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	rep, _ := runReport(t, []string{"--suite", "ssb", "--sf", "0.01", "--seed", "1", "--engines", "gsql-cpu,gsql-gpu,duckdb", "--runs", "1"})
	if want := 13 * len(rep.Engines); len(rep.Results) != want || len(rep.Engines) < 2 {
		t.Errorf("%d results of engines %v, want %d", len(rep.Results), rep.Engines, want)
	}
	for _, r := range rep.Results {
		if r.Status != statusOK || r.Reference != "duckdb" {
			t.Errorf("%s on %s: %s %s%s (reference %q)", r.Query, r.Engine, r.Status, r.Error, r.Diff, r.Reference)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
