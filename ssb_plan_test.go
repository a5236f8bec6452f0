package gsql_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/ssb"
)

// ssbDB loads the SSB tables at scale factor sf into a CPU database.
func ssbDB(t *testing.T, sf float64) *gsql.DB {
	t.Helper()
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	g, err := ssb.New(sf, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range ssb.Tables {
		recs, err := g.Records(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RegisterTable(tb.String(), ssb.Schema(tb), recs); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Release()
		}
	}
	return db
}

var scanLine = regexp.MustCompile(`Scan (\w+)`)

// scanOrder returns the tables an EXPLAIN scans, top to bottom.
func scanOrder(plan []string) []string {
	var out []string
	for _, l := range plan {
		if m := scanLine.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestSSBJoinOrder checks that the star joins of SSB meet their most
// selective dimension first, which needs the tables' column statistics:
// with a flat 0.1 for every `col = constant`, Q2.1's supplier (s_region:
// 1 of 5 values) and part (p_category: 1 of 25) filters looked alike
// and lineorder was joined with the supplier first, five times the rows.
// The joins are left-deep over lineorder, so the dimension scanned right
// after it in EXPLAIN (the innermost join's build side) is met first.
// GSQL_SSB_PLANS=1 logs every query's plan.
func TestSSBJoinOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SSB")
	}
	db := ssbDB(t, 0.05)
	first := map[string]string{
		"Q2.1": "part",     // p_category: 1/25, s_region: 1/5
		"Q2.3": "part",     // one brand of 1,000; s_region 1/5
		"Q3.1": "supplier", // supplier and customer 1/5 (supplier's the smaller build), years 6/7
		"Q3.2": "supplier", // s_nation and c_nation 1/25, years 6/7
		"Q4.1": "supplier", // c_region, s_region 1/5; p_mfgr 2/5
	}
	for _, q := range ssb.Queries {
		plan := queryStrings(t, db, "EXPLAIN "+q.SQL)
		if os.Getenv("GSQL_SSB_PLANS") != "" {
			t.Logf("%s:\n%s", q.Name, strings.Join(plan, "\n"))
		}
		scans := scanOrder(plan)
		t.Logf("%s scans %v", q.Name, scans)
		if want, ok := first[q.Name]; ok {
			i := 0
			for i < len(scans) && scans[i] != "lineorder" {
				i++
			}
			if i+1 >= len(scans) || scans[i+1] != want {
				t.Errorf("%s: lineorder meets %v first, want %s:\n%s", q.Name, scans, want, strings.Join(plan, "\n"))
			}
		}
	}
}
