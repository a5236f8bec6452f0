package randq

// The tables the generator reads, as far as it needs to know them: which
// columns identify a row (for total orders inside windows and LIMITs),
// which make group keys of few or many values, which are numbers to
// aggregate, which are dates, and filters that keep a useful share of the
// rows. The value ranges are datagen/clickbench's and datagen/tpch's.

// table describes one base table.
type table struct {
	name string
	// ids together identify a row.
	ids []string
	// dims are keys of few values (tens to a few thousand groups), his
	// keys of many (up to one a row).
	dims, his []string
	// ints and decs are numbers to aggregate: BIGINT and DECIMAL(15,2).
	// Sums of them stay far from overflow (no identifiers among them).
	ints, decs []string
	// dates are DATE columns, times TIMESTAMP columns.
	dates, times []string
	// filters are predicates over the table's columns; $ stands for the alias.
	filters []string
	// parents are the foreign keys of the table: the parent table and
	// the column pairs (child column, parent column).
	parents []fk
}

// fk is a foreign key to a parent table.
type fk struct {
	parent string
	cols   [][2]string // child column, parent column
}

var hits = &table{
	name:  "hits",
	ids:   []string{"WatchID"},
	dims:  []string{"CounterID", "RegionID", "OS", "TraficSourceID", "SearchEngineID", "AdvEngineID", "IsMobile", "Age", "Sex", "MobilePhoneModel", "ResolutionWidth", "UserAgent"},
	his:   []string{"UserID", "URL", "ClientIP", "SearchPhrase"},
	ints:  []string{"ResolutionWidth", "IsRefresh", "Age", "Income", "HistoryLength", "SendTiming", "FetchTiming", "ResponseEndTiming", "IsMobile", "DNSTiming"},
	dates: []string{"EventDate"},
	times: []string{"EventTime"},
	filters: []string{
		"$.IsRefresh = 0", "$.SearchPhrase <> ''", "$.IsMobile = 1", "$.AdvEngineID <> 0",
		"$.EventDate >= DATE '2013-07-10'", "$.EventDate < DATE '2013-07-20'", "$.ResolutionWidth > 1000",
		"$.TraficSourceID IN (0, 1, 2)", "$.URL LIKE '%mail%'", "$.Age BETWEEN 20 AND 40",
		"$.CounterID < 100", "$.DontCountHits = 0", "$.SendTiming < 500", "$.MobilePhoneModel <> ''",
	},
}

// tpchTables are the TPC-H tables; lineitem first (the largest fact).
var tpchTables = []*table{
	{
		name: "lineitem", ids: []string{"l_orderkey", "l_linenumber"},
		dims:  []string{"l_returnflag", "l_linestatus", "l_shipmode", "l_shipinstruct", "l_linenumber"},
		his:   []string{"l_orderkey", "l_partkey", "l_suppkey"},
		ints:  []string{"l_linenumber"},
		decs:  []string{"l_quantity", "l_extendedprice", "l_discount", "l_tax"},
		dates: []string{"l_shipdate", "l_commitdate", "l_receiptdate"},
		filters: []string{"$.l_shipdate >= DATE '1995-01-01'", "$.l_shipdate < DATE '1994-06-01'",
			"$.l_discount BETWEEN 0.02 AND 0.06", "$.l_quantity < 24", "$.l_shipmode IN ('AIR', 'MAIL')",
			"$.l_returnflag = 'R'", "$.l_commitdate < $.l_receiptdate"},
		parents: []fk{
			{"orders", [][2]string{{"l_orderkey", "o_orderkey"}}},
			{"part", [][2]string{{"l_partkey", "p_partkey"}}},
			{"supplier", [][2]string{{"l_suppkey", "s_suppkey"}}},
			{"partsupp", [][2]string{{"l_partkey", "ps_partkey"}, {"l_suppkey", "ps_suppkey"}}},
		},
	},
	{
		name: "orders", ids: []string{"o_orderkey"},
		dims:  []string{"o_orderstatus", "o_orderpriority", "o_clerk"},
		his:   []string{"o_orderkey", "o_custkey"},
		decs:  []string{"o_totalprice"},
		dates: []string{"o_orderdate"},
		filters: []string{"$.o_orderdate < DATE '1995-03-15'", "$.o_orderdate >= DATE '1993-01-01'",
			"$.o_orderstatus = 'F'", "$.o_totalprice > 100000", "$.o_orderpriority IN ('1-URGENT', '2-HIGH')"},
		parents: []fk{{"customer", [][2]string{{"o_custkey", "c_custkey"}}}},
	},
	{
		name: "customer", ids: []string{"c_custkey"},
		dims:    []string{"c_mktsegment", "c_nationkey"},
		his:     []string{"c_custkey", "c_name"},
		decs:    []string{"c_acctbal"},
		filters: []string{"$.c_acctbal > 0", "$.c_mktsegment = 'BUILDING'", "$.c_nationkey < 10"},
		parents: []fk{{"nation", [][2]string{{"c_nationkey", "n_nationkey"}}}},
	},
	{
		name: "part", ids: []string{"p_partkey"},
		dims:    []string{"p_brand", "p_mfgr", "p_container", "p_size", "p_type"},
		his:     []string{"p_partkey", "p_name"},
		ints:    []string{"p_size"},
		decs:    []string{"p_retailprice"},
		filters: []string{"$.p_size < 20", "$.p_brand = 'Brand#23'", "$.p_type LIKE '%BRASS'", "$.p_container LIKE 'SM%'"},
	},
	{
		name: "supplier", ids: []string{"s_suppkey"},
		dims:    []string{"s_nationkey"},
		his:     []string{"s_suppkey", "s_name"},
		decs:    []string{"s_acctbal"},
		filters: []string{"$.s_acctbal > 0", "$.s_nationkey IN (1, 3, 5, 7)"},
		parents: []fk{{"nation", [][2]string{{"s_nationkey", "n_nationkey"}}}},
	},
	{
		name: "partsupp", ids: []string{"ps_partkey", "ps_suppkey"},
		his:     []string{"ps_partkey", "ps_suppkey"},
		ints:    []string{"ps_availqty"},
		decs:    []string{"ps_supplycost"},
		filters: []string{"$.ps_availqty < 5000", "$.ps_supplycost > 500"},
		parents: []fk{
			{"part", [][2]string{{"ps_partkey", "p_partkey"}}},
			{"supplier", [][2]string{{"ps_suppkey", "s_suppkey"}}},
		},
	},
	{
		name: "nation", ids: []string{"n_nationkey"},
		dims:    []string{"n_name", "n_regionkey"},
		filters: []string{"$.n_regionkey <> 2", "$.n_name < 'M'"},
		parents: []fk{{"region", [][2]string{{"n_regionkey", "r_regionkey"}}}},
	},
	{
		name: "region", ids: []string{"r_regionkey"},
		dims:    []string{"r_name"},
		filters: []string{"$.r_name <> 'ASIA'"},
	},
}

func tpchTable(name string) *table {
	for _, t := range tpchTables {
		if t.name == name {
			return t
		}
	}
	panic("randq: no table " + name)
}

// children are the foreign keys that point at a table, with the child
// table's name: the tables an EXISTS or IN over a parent's key can read.
func children(parent string) []childFK {
	var out []childFK
	for _, t := range tpchTables {
		for _, f := range t.parents {
			if f.parent == parent && len(f.cols) == 1 {
				out = append(out, childFK{t, f.cols[0][0], f.cols[0][1]})
			}
		}
	}
	return out
}

type childFK struct {
	child           *table
	childCol, pkCol string
}
