package ssb

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/datagen/tpch"
)

// table is one generated table's columns by name.
type table struct {
	rows int
	ints map[string][]int64
	strs map[string][]string
}

func generate(t *testing.T, g *Generator, tb Table) table {
	t.Helper()
	recs, err := g.Records(context.Background(), tb)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return columns(recs)
}

func columns(recs []arrow.Record) table {
	out := table{ints: map[string][]int64{}, strs: map[string][]string{}}
	for _, r := range recs {
		out.rows += int(r.NumRows())
		for i, f := range r.Schema().Fields() {
			switch a := r.Column(i).(type) {
			case *array.Int64:
				out.ints[f.Name] = append(out.ints[f.Name], a.Int64Values()...)
			case *array.String:
				for j := 0; j < a.Len(); j++ {
					out.strs[f.Name] = append(out.strs[f.Name], a.Value(j))
				}
			}
		}
	}
	return out
}

func TestScaleFactorRows(t *testing.T) {
	for _, c := range []struct {
		sf                                  float64
		customers, suppliers, parts, orders int64
	}{
		{0.01, 300, 20, 2000, 15000},
		{0.1, 3000, 200, 20000, 150000},
		{1, 30000, 2000, 200000, 1500000},
		{2, 60000, 4000, 400000, 3000000},
		{10, 300000, 20000, 800000, 15000000},
		{100, 3000000, 200000, 1400000, 150000000},
	} {
		g, err := New(c.sf, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := [5]int64{g.Rows(Customer), g.Rows(Supplier), g.Rows(Part), g.Orders(), g.Rows(Dates)}
		if want := [5]int64{c.customers, c.suppliers, c.parts, c.orders, 2557}; got != want {
			t.Errorf("SF %g: customer, supplier, part, orders, dates = %v, want %v", c.sf, got, want)
		}
		if g.Rows(LineOrder) != -1 || g.RangeRows(LineOrder) != c.orders {
			t.Errorf("SF %g: lineorder rows %d, range rows %d", c.sf, g.Rows(LineOrder), g.RangeRows(LineOrder))
		}
	}
	for _, sf := range []float64{0, -1, 0.0001, 1e9} {
		if _, err := New(sf, 1); err == nil {
			t.Errorf("New(%g): no error", sf)
		}
	}
}

// TestTables checks every table's row counts, key ranges, the fact
// table's references into every dimension and SSB's derived columns.
func TestTables(t *testing.T) {
	for _, sf := range []float64{0.01, 0.02} {
		t.Run(fmt.Sprint(sf), func(t *testing.T) {
			g, err := New(sf, 7)
			if err != nil {
				t.Fatal(err)
			}
			tabs := map[Table]table{}
			for _, tb := range Tables {
				tabs[tb] = generate(t, g, tb)
				if n := g.Rows(tb); n >= 0 && int64(tabs[tb].rows) != n {
					t.Errorf("%s: %d rows, want %d", tb, tabs[tb].rows, n)
				}
			}
			keys := func(tb Table, col string) map[int64]bool {
				m := map[int64]bool{}
				for i, k := range tabs[tb].ints[col] {
					if tb != Dates && k != int64(i+1) {
						t.Fatalf("%s.%s[%d] = %d, want %d", tb, col, i, k, i+1)
					}
					m[k] = true
				}
				return m
			}
			cust, supp, part, date := keys(Customer, "c_custkey"), keys(Supplier, "s_suppkey"), keys(Part, "p_partkey"), keys(Dates, "d_datekey")
			lo := tabs[LineOrder]
			if int64(lo.rows) < g.Orders() || int64(lo.rows) > maxLines*g.Orders() {
				t.Errorf("lineorder: %d rows for %d orders", lo.rows, g.Orders())
			}
			orders := map[int64]int64{} // order key -> lines
			totals := map[int64]int64{}
			for i := 0; i < lo.rows; i++ {
				col := func(name string) int64 { return lo.ints[name][i] }
				ok, cu := col("lo_orderkey"), col("lo_custkey")
				if ok%32 >= 8 {
					t.Fatalf("row %d: order key %d is not sparse", i, ok)
				}
				orders[ok]++
				if col("lo_linenumber") != orders[ok] {
					t.Fatalf("row %d: line %d of order %d, want %d", i, col("lo_linenumber"), ok, orders[ok])
				}
				if tot, seen := totals[ok]; seen && tot != col("lo_ordtotalprice") {
					t.Fatalf("row %d: order %d total %d, earlier line %d", i, ok, col("lo_ordtotalprice"), tot)
				}
				totals[ok] = col("lo_ordtotalprice")
				if !cust[cu] || cu%custMortality == 0 {
					t.Fatalf("row %d: customer %d (of %d, none a multiple of 3)", i, cu, len(cust))
				}
				if !supp[col("lo_suppkey")] || !part[col("lo_partkey")] {
					t.Fatalf("row %d: supplier %d or part %d unknown", i, col("lo_suppkey"), col("lo_partkey"))
				}
				if !date[col("lo_orderdate")] || !date[col("lo_commitdate")] || col("lo_commitdate") <= col("lo_orderdate") {
					t.Fatalf("row %d: order date %d, commit date %d", i, col("lo_orderdate"), col("lo_commitdate"))
				}
				q, d, tax := col("lo_quantity"), col("lo_discount"), col("lo_tax")
				if q < 1 || q > 50 || d < 0 || d > 10 || tax < 0 || tax > 8 {
					t.Fatalf("row %d: quantity %d, discount %d, tax %d", i, q, d, tax)
				}
				retail := tpch.RetailPrice(col("lo_partkey"))
				ext := col("lo_extendedprice")
				if ext != retail*q || col("lo_revenue") != ext*(100-d)/100 || col("lo_supplycost") != 6*retail/10 {
					t.Fatalf("row %d: extended %d, revenue %d, supply cost %d for retail %d", i, ext, col("lo_revenue"), col("lo_supplycost"), retail)
				}
			}
			if int64(len(orders)) != g.Orders() {
				t.Errorf("%d orders, want %d", len(orders), g.Orders())
			}
			region := map[string]string{}
			for _, n := range tpch.Nations() {
				region[n.Name] = tpch.Regions()[n.Region]
			}
			for _, p := range []string{"c", "s"} {
				tab := tabs[Customer]
				if p == "s" {
					tab = tabs[Supplier]
				}
				for i := 0; i < tab.rows; i++ {
					nation, city := tab.strs[p+"_nation"][i], tab.strs[p+"_city"][i]
					if region[nation] == "" || tab.strs[p+"_region"][i] != region[nation] {
						t.Fatalf("%s row %d: nation %q in region %q", p, i, nation, tab.strs[p+"_region"][i])
					}
					if len(city) != 10 || city[:9] != fmt.Sprintf("%-9.9s", nation) || city[9] < '0' || city[9] > '9' {
						t.Fatalf("%s row %d: city %q of %q", p, i, city, nation)
					}
				}
			}
			pt := tabs[Part]
			for i := 0; i < pt.rows; i++ {
				m, c, b := pt.strs["p_mfgr"][i], pt.strs["p_category"][i], pt.strs["p_brand1"][i]
				if len(m) != 6 || m < "MFGR#1" || m > "MFGR#5" || len(c) != 7 || c[:6] != m || len(b) != 9 || b[:7] != c ||
					b[7:] < "01" || b[7:] > "40" || c[6] < '1' || c[6] > '5' {
					t.Fatalf("part %d: mfgr %q, category %q, brand %q", i+1, m, c, b)
				}
			}
		})
	}
}

// TestDates spot-checks the date dimension.
func TestDates(t *testing.T) {
	g, _ := New(0.01, 1)
	d := generate(t, g, Dates)
	at := func(key int64) int {
		for i, k := range d.ints["d_datekey"] {
			if k == key {
				return i
			}
		}
		t.Fatalf("no date %d", key)
		return -1
	}
	for _, c := range []struct {
		key                                 int64
		date, dayOfWeek, yearMonth, season  string
		yearMonthNum, dayInYear, week, wkdy int64
	}{
		{19920101, "January 1, 1992", "Wednesday", "Jan1992", "Winter", 199201, 1, 1, 1},
		{19940208, "February 8, 1994", "Tuesday", "Feb1994", "Winter", 199402, 39, 6, 1},
		{19971227, "December 27, 1997", "Saturday", "Dec1997", "Christmas", 199712, 361, 52, 0},
		{19981231, "December 31, 1998", "Thursday", "Dec1998", "Christmas", 199812, 365, 53, 1},
	} {
		i := at(c.key)
		got := fmt.Sprint(d.strs["d_date"][i], d.strs["d_dayofweek"][i], d.strs["d_yearmonth"][i], d.strs["d_sellingseason"][i],
			d.ints["d_yearmonthnum"][i], d.ints["d_daynuminyear"][i], d.ints["d_weeknuminyear"][i], d.ints["d_weekdayfl"][i])
		want := fmt.Sprint(c.date, c.dayOfWeek, c.yearMonth, c.season, c.yearMonthNum, c.dayInYear, c.week, c.wkdy)
		if got != want {
			t.Errorf("%d: %s, want %s", c.key, got, want)
		}
	}
	if n := d.ints["d_datekey"]; n[0] != 19920101 || n[len(n)-1] != 19981231 {
		t.Errorf("dates %d .. %d", n[0], n[len(n)-1])
	}
}

// TestDeterministic: a seed yields the same tables however they are cut
// into ranges; another seed other tables.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	release := func(recs []arrow.Record) {
		for _, r := range recs {
			r.Release()
		}
	}
	same := func(a, b table) bool {
		return a.rows == b.rows && fmt.Sprint(a.ints) == fmt.Sprint(b.ints) && fmt.Sprint(a.strs) == fmt.Sprint(b.strs)
	}
	for _, tb := range []Table{Customer, Supplier, Part, LineOrder} {
		g1, _ := New(0.005, 3)
		g2, _ := New(0.005, 3)
		g3, _ := New(0.005, 4)
		var whole, ranged []arrow.Record
		if err := g1.GenerateRange(ctx, tb, 1, -1, 1<<30, func(r arrow.Record) error { whole = append(whole, r); return nil }); err != nil {
			t.Fatal(err)
		}
		for start := int64(1); start <= g2.RangeRows(tb); start += 97 {
			if err := g2.GenerateRange(ctx, tb, start, 97, 1<<30, func(r arrow.Record) error { ranged = append(ranged, r); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		other, err := g3.Records(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		w, r, o := columns(whole), columns(ranged), columns(other)
		release(whole)
		release(ranged)
		release(other)
		if w.rows == 0 || !same(w, r) {
			t.Errorf("%s: generated whole (%d rows) and in ranges of 97 (%d rows) differ", tb, w.rows, r.rows)
		}
		if same(w, o) {
			t.Errorf("%s: seeds 3 and 4 give the same table", tb)
		}
	}
}

func BenchmarkLineOrder(b *testing.B) {
	g, _ := New(0.1, 1)
	rows := int64(0)
	for i := 0; i < b.N; i++ {
		if err := g.GenerateRange(context.Background(), LineOrder, 1, -1, 0, func(r arrow.Record) error {
			rows += r.NumRows()
			r.Release()
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
