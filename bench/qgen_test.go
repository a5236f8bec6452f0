package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// emptyAtTinySF are the TPC-H queries whose random parameters may select
// nothing at SF 0.01: Q11 keeps the parts worth more than FRACTION =
// 0.0001/SF (1%) of a nation's stock, which at 80 parts a nation none
// may be; Q18 the orders of more than 312..315 items, 7 lines of 45 on
// average, of which SF 0.01's 15,000 orders have none.
var emptyAtTinySF = map[int]bool{11: true, 18: true}

// TestTPCHRandomParamsOnCPU runs the 22 TPC-H queries under four random
// parameter sets (two seeds, two sets each) on gsql's CPU backend at SF
// 0.01: every query plans and runs, and returns rows except where the
// specification's ranges select nothing at so small a scale.
func TestTPCHRandomParamsOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF 0.01")
	}
	ctx := context.Background()
	e, err := openGSQL("gsql-cpu", "cpu", false)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const sf = 0.01
	g, err := tpch.New(sf)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tpch.Tables {
		recs, err := g.Records(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		err = e.Load(ctx, tb.String(), tpch.Schema(tb), recs)
		release(recs)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, seed := range []int64{1, 2} {
		sets, err := qgenSets(seed, 2, sf)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range sets {
			for n := 1; n <= queries.Count; n++ {
				name := fmt.Sprintf("seed %d set %d q%02d (%s)", seed, set.Number, n, formatParams(set.Params[n-1]))
				st := splitStatements(set.Text[n-1])
				var rows int64
				for i, s := range st {
					c := newChecksum(0)
					res, err := e.Run(ctx, s, c)
					if err != nil {
						t.Errorf("%s: statement %d: %v", name, i+1, err)
					}
					if i == queries.Answer(n) {
						rows = res.Rows
					}
				}
				if rows == 0 && !emptyAtTinySF[n] {
					t.Errorf("%s: no rows", name)
				}
			}
		}
	}
}

// TestQgenRanges draws many parameter sets and checks every value
// against the specification's range for it (clause 2.4.N.3).
func TestQgenRanges(t *testing.T) {
	in := func(lo, hi int) func(string) bool {
		return func(v string) bool {
			n, err := strconv.Atoi(v)
			return err == nil && n >= lo && n <= hi
		}
	}
	oneOf := func(list []string) func(string) bool {
		return func(v string) bool { return slices.Contains(list, v) }
	}
	date := func(from, to string, firstOfMonth, jan1 bool) func(string) bool {
		return func(v string) bool {
			d, err := time.Parse("2006-01-02", v)
			return err == nil && v >= from && v <= to && (!firstOfMonth || d.Day() == 1) && (!jan1 || d.YearDay() == 1)
		}
	}
	brand := func(v string) bool {
		return len(v) == 8 && strings.HasPrefix(v, "Brand#") && v[6] >= '1' && v[6] <= '5' && v[7] >= '1' && v[7] <= '5'
	}
	var nations []string
	for _, n := range tpch.Nations() {
		nations = append(nations, n.Name)
	}
	syl := typeSyllables()
	cont := containerSyllables()
	year := date("1993-01-01", "1997-01-01", true, true)
	check := map[string]func(string) bool{
		"q01 DELTA": in(60, 120), "q02 SIZE": in(1, 50), "q02 TYPE": oneOf([]string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}),
		"q02 REGION": oneOf(tpch.Regions()), "q03 SEGMENT": oneOf(tpch.Segments()),
		"q03 DATE": date("1995-03-01", "1995-03-31", false, false), "q04 DATE": date("1993-01-01", "1997-10-01", true, false),
		"q05 REGION": oneOf(tpch.Regions()), "q05 DATE": year, "q06 DATE": year,
		"q06 DISCOUNT": oneOf([]string{"0.02", "0.03", "0.04", "0.05", "0.06", "0.07", "0.08", "0.09"}),
		"q06 QUANTITY": in(24, 25), "q07 NATION1": oneOf(nations), "q07 NATION2": oneOf(nations),
		"q08 NATION": oneOf(nations), "q08 REGION": oneOf(tpch.Regions()), "q08 TYPE": oneOf(tpch.Types()),
		"q09 COLOR": oneOf(tpch.Colors()), "q10 DATE": date("1993-02-01", "1995-01-01", true, false),
		"q11 NATION": oneOf(nations), "q11 FRACTION": oneOf([]string{"0.0001000000"}),
		"q12 SHIPMODE1": oneOf(tpch.ShipModes()), "q12 SHIPMODE2": oneOf(tpch.ShipModes()), "q12 DATE": year,
		"q13 WORD1": oneOf([]string{"special", "pending", "unusual", "express"}),
		"q13 WORD2": oneOf([]string{"packages", "requests", "accounts", "deposits"}),
		"q14 DATE":  date("1993-01-01", "1997-12-01", true, false), "q15 DATE": date("1993-01-01", "1997-10-01", true, false),
		"q16 BRAND": brand, "q17 BRAND": brand, "q18 QUANTITY": in(312, 315),
		"q19 QUANTITY1": in(1, 10), "q19 QUANTITY2": in(10, 20), "q19 QUANTITY3": in(20, 30),
		"q19 BRAND1": brand, "q19 BRAND2": brand, "q19 BRAND3": brand,
		"q20 COLOR": oneOf(tpch.Colors()), "q20 DATE": year, "q20 NATION": oneOf(nations), "q21 NATION": oneOf(nations),
		"q16 TYPE": func(v string) bool {
			w := strings.Fields(v)
			return len(w) == 2 && slices.Contains(syl[0], w[0]) && slices.Contains(syl[1], w[1])
		},
		"q17 CONTAINER": func(v string) bool {
			w := strings.Fields(v)
			return len(w) == 2 && slices.Contains(cont[0], w[0]) && slices.Contains(cont[1], w[1])
		},
	}
	for i := 1; i <= 8; i++ {
		check[fmt.Sprintf("q16 SIZE%d", i)] = in(1, 50)
	}
	for i := 1; i <= 7; i++ {
		check[fmt.Sprintf("q22 I%d", i)] = in(10, 34)
	}
	seen := map[string]map[string]bool{}
	for seed := int64(0); seed < 40; seed++ {
		sets, err := qgenSets(seed, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range sets {
			for q, params := range set.Params {
				for _, p := range params {
					key := fmt.Sprintf("q%02d %s", q+1, p.Name)
					ok, known := check[key]
					if !known || !ok(p.Value) {
						t.Fatalf("seed %d set %d: %s = %q is out of range", seed, set.Number, key, p.Value)
					}
					if seen[key] == nil {
						seen[key] = map[string]bool{}
					}
					seen[key][p.Value] = true
				}
				// Q7's nations, Q12's modes, Q16's sizes and Q22's codes
				// are distinct draws.
				group := map[int]string{7: "NATION", 12: "SHIPMODE", 16: "SIZE", 22: "I"}[q+1]
				drawn := map[string]bool{}
				for _, p := range params {
					if group != "" && strings.HasPrefix(p.Name, group) {
						if drawn[p.Value] {
							t.Errorf("seed %d set %d: Q%d repeats %s: %s", seed, set.Number, q+1, p.Value, formatParams(params))
						}
						drawn[p.Value] = true
					}
				}
				if q+1 == 8 && tpch.Regions()[nationRegion(params[0].Value)] != params[1].Value {
					t.Errorf("Q8: region %s is not nation %s's", params[1].Value, params[0].Value)
				}
			}
		}
	}
	if len(seen) != len(check) {
		t.Errorf("drew %d parameters, checked %d", len(seen), len(check))
	}
	// 200 draws reach both ends of the small ranges.
	for key, want := range map[string][]string{"q01 DELTA": {"60", "120"}, "q18 QUANTITY": {"312", "315"},
		"q03 DATE": {"1995-03-01", "1995-03-31"}, "q10 DATE": {"1993-02-01", "1995-01-01"}, "q05 DATE": {"1993-01-01", "1997-01-01"}} {
		for _, v := range want {
			if !seen[key][v] {
				t.Errorf("%s never drew %s", key, v)
			}
		}
	}
}

func nationRegion(name string) int64 {
	for _, n := range tpch.Nations() {
		if n.Name == name {
			return n.Region
		}
	}
	return -1
}

// TestQgenDeterministic: a seed gives the same sets; other seeds and
// other sets differ; the texts carry the drawn values and no validation
// constant the draw replaced.
func TestQgenDeterministic(t *testing.T) {
	a, err := qgenSets(7, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := qgenSets(7, 3, 1)
	c, _ := qgenSets(8, 3, 1)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("seed 7 drew different sets twice")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) || fmt.Sprint(a[0].Params) == fmt.Sprint(a[1].Params) {
		t.Error("seeds 7 and 8, or sets 1 and 2, drew the same parameters")
	}
	for _, set := range a {
		for q := 1; q <= queries.Count; q++ {
			text := set.Text[q-1]
			for _, p := range set.Params[q-1] {
				if !strings.Contains(text, p.Value) {
					t.Errorf("set %d Q%d: text lacks %s=%s", set.Number, q, p.Name, p.Value)
				}
			}
			if strings.Contains(text, "\x00") || strings.Contains(text, "{") {
				t.Errorf("set %d Q%d: a marker or template is left:\n%s", set.Number, q, text)
			}
		}
	}
	// Q11's fraction follows the scale factor.
	s, _ := qgenSets(7, 1, 10)
	if p := s[0].Params[10]; p[1].Value != "0.0000100000" {
		t.Errorf("Q11 at SF 10: %s", formatParams(p))
	}
}

// TestQgenTextChecksCounts: a constant the query no longer has (or has
// more often) is an error, not a query left with its validation value.
func TestQgenTextChecksCounts(t *testing.T) {
	saved := qgenQueries[0]
	defer func() { qgenQueries[0] = saved }()
	for _, sub := range []qgenSub{{"interval '90' day", 2, "x"}, {"interval '91' day", 1, "x"}, {"interval '90' day", 1, "{NOPE}"}} {
		qgenQueries[0].subs = []qgenSub{sub}
		if _, err := qgenText(1, []qgenParam{{"DELTA", "70"}}); err == nil {
			t.Errorf("%+v: no error", sub)
		}
	}
	qgenQueries[0] = saved
	text, err := qgenText(1, []qgenParam{{"DELTA", "70"}})
	if err != nil || !strings.Contains(text, "interval '70' day") || strings.Contains(text, "'90'") {
		t.Errorf("Q1 with DELTA=70: %v\n%s", err, text)
	}
}

// TestTPCHRandomSuiteEndToEnd runs --suite tpch --params random with two
// sets (with gsql's GPU backend and DuckDB beside its CPU backend where
// this build and machine have them): every run is named by its set, the
// report carries the set and its values, and the engines agree.
func TestTPCHRandomSuiteEndToEnd(t *testing.T) {
	engines := "gsql-cpu,gsql-gpu"
	if duckdbAvailable {
		engines += ",duckdb"
	}
	args := []string{"--suite", "tpch", "--sf", "0.01", "--params", "random", "--seed", "5", "--sets", "2",
		"--queries", "q01,q15,q22", "--engines", engines, "--runs", "1"}
	out := t.TempDir()
	var stdout, stderr strings.Builder
	if err := run(context.Background(), append(args, "--out", out), &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	sets, err := qgenSets(5, 2, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range sets {
		for _, q := range []int{1, 15, 22} {
			want = append(want, fmt.Sprintf("q%02d/p%d %d %s", q, s.Number, s.Number, formatParams(s.Params[q-1])))
			if !strings.Contains(stdout.String(), formatParams(s.Params[q-1])) {
				t.Errorf("the report does not list set %d's Q%d parameters", s.Number, q)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	must(t, err)
	var rep report
	must(t, json.Unmarshal(b, &rep))
	var got []string
	for _, r := range rep.Results {
		if r.Status != statusOK {
			t.Errorf("%s on %s: %s %s%s", r.Query, r.Engine, r.Status, r.Error, r.Diff)
		}
		if r.Engine == "gsql-cpu" {
			got = append(got, fmt.Sprintf("%s %d %s", r.Query, r.ParamSet, r.Params))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
