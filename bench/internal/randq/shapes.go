package randq

// Shapes are the fixed regression queries of issue 40 over hits: five
// shapes gsql lost to DuckDB when the issue was filed. Each keeps the
// issue's form, with the tie-breakers a determined answer needs.
func Shapes() []Query {
	qs := []Query{
		{
			// (a) GROUP BY counts per (day, key) in a CTE, ROW_NUMBER per
			// day by count, keep the top 3.
			Name:     "shape_a_top3_per_day",
			Features: []string{"cte", "window", "window-over-groups", "rank", "top-n-per-group", "date-bucket"},
			SQL: "WITH c AS (SELECT EventDate AS d, CounterID AS k, COUNT(*) AS c FROM hits GROUP BY EventDate, CounterID) " +
				"SELECT d, k, c, rn FROM (SELECT d, k, c, ROW_NUMBER() OVER (PARTITION BY d ORDER BY c DESC, k) AS rn FROM c) t " +
				"WHERE rn <= 3 ORDER BY 1 NULLS LAST, 4 NULLS LAST, 2 NULLS LAST, 3 NULLS LAST",
			Keys: []int{0, 3, 1, 2},
		},
		{
			// (b) A join of two SELECT DISTINCT derived tables (user x
			// counter, and mobile users), then GROUP BY.
			Name:     "shape_b_distinct_join",
			Features: []string{"join", "derived", "distinct", "hits-self-join", "topk", "order-by-agg"},
			SQL: "SELECT a.CounterID AS k, COUNT(*) AS users FROM (SELECT DISTINCT UserID, CounterID FROM hits) a " +
				"JOIN (SELECT DISTINCT UserID FROM hits WHERE IsMobile = 1) m ON a.UserID = m.UserID " +
				"GROUP BY a.CounterID ORDER BY 2 DESC NULLS LAST, 1 NULLS LAST LIMIT 10",
			Keys: []int{1, 0}, Limited: true,
		},
		{
			// (c) IN over a large inner side: most rows pass its filter.
			Name:     "shape_c_in_large",
			Features: []string{"in", "topk", "order-by-agg"},
			SQL: "SELECT CounterID AS k, COUNT(*) AS c FROM hits WHERE UserID IN (SELECT UserID FROM hits WHERE IsRefresh = 0) " +
				"GROUP BY CounterID ORDER BY 2 DESC NULLS LAST, 1 NULLS LAST LIMIT 10",
			Keys: []int{1, 0}, Limited: true,
		},
		{
			// (d) NOT EXISTS correlated by UserID over a DISTINCT derived
			// table: users never seen on a mobile.
			Name:     "shape_d_not_exists_distinct",
			Features: []string{"not-exists", "correlated", "derived", "distinct"},
			SQL: "SELECT COUNT(*) AS n FROM (SELECT DISTINCT UserID FROM hits WHERE SearchPhrase <> '') u " +
				"WHERE NOT EXISTS (SELECT 1 FROM hits h WHERE h.UserID = u.UserID AND h.IsMobile = 1) ORDER BY 1 NULLS LAST",
			Keys: []int{0},
		},
		{
			// (e) GROUP BY a key of many values, top 10 by a sum.
			Name:     "shape_e_topk_high_card",
			Features: []string{"topk", "order-by-agg"},
			SQL:      "SELECT UserID AS k, SUM(ResolutionWidth) AS s FROM hits GROUP BY UserID ORDER BY 2 DESC NULLS LAST, 1 NULLS LAST LIMIT 10",
			Keys:     []int{1, 0}, Limited: true,
		},
	}
	for i := range qs {
		qs[i].Tables = []string{"hits"}
	}
	return qs
}
