package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// Random TPC-H substitution parameters (--suite tpch --params random):
// qgen's draws of the specification's clause 2.4.N.3 for each query,
// from a generator seeded by --seed and the set's number, so a seed
// always yields the same sets. The query text is the validation text of
// datagen/tpch/queries with each validation constant replaced: every
// replaced constant must occur exactly as often as the query uses it, so
// a change to the query files fails loudly instead of silently keeping a
// validation value.

// qgenParam is one substituted parameter of a query.
type qgenParam struct {
	Name, Value string
}

// qgenSub replaces a validation constant (old, occurring count times)
// with a template whose {NAME}s are the parameters' values.
type qgenSub struct {
	old   string
	count int
	tmpl  string
}

// qgenQuery draws one query's parameters and says where they go.
type qgenQuery struct {
	draw func(r *rand.Rand, sf float64) []qgenParam
	subs []qgenSub
}

// typeSyllables are p_type's three words: qgen draws a TYPE by
// syllable, and the syllables are those of datagen/tpch's types.
func typeSyllables() [3][]string {
	var out [3][]string
	seen := [3]map[string]bool{{}, {}, {}}
	for _, t := range tpch.Types() {
		for i, w := range strings.Fields(t) {
			if i < 3 && !seen[i][w] {
				seen[i][w] = true
				out[i] = append(out[i], w)
			}
		}
	}
	return out
}

// containerSyllables are p_container's two words.
func containerSyllables() [2][]string {
	var out [2][]string
	seen := [2]map[string]bool{{}, {}}
	for _, c := range tpch.Containers() {
		for i, w := range strings.Fields(c) {
			if i < 2 && !seen[i][w] {
				seen[i][w] = true
				out[i] = append(out[i], w)
			}
		}
	}
	return out
}

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func pickOne(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

// pickDistinct draws n distinct elements of list, in draw order.
func pickDistinct(r *rand.Rand, list []string, n int) []string {
	idx := r.Perm(len(list))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = list[j]
	}
	return out
}

func nationNames() []string {
	var out []string
	for _, n := range tpch.Nations() {
		out = append(out, n.Name)
	}
	return out
}

// monthStart is the first day of the k-th month (0-based) from January
// of year.
func monthStart(year, k int) string {
	return fmt.Sprintf("%04d-%02d-01", year+k/12, k%12+1)
}

// yearStart is January 1 of a year in [1993, 1997].
func yearStart(r *rand.Rand) string { return fmt.Sprintf("%d-01-01", between(r, 1993, 1997)) }

// brand is Brand#MN with M and N in [1, 5].
func brand(r *rand.Rand) string { return fmt.Sprintf("Brand#%d%d", between(r, 1, 5), between(r, 1, 5)) }

// qgenQueries are the 22 queries' draws, by query number - 1.
var qgenQueries = [queries.Count]qgenQuery{
	{ // Q1: DELTA in [60, 120] days.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DELTA", strconv.Itoa(between(r, 60, 120))}}
		},
		subs: []qgenSub{{"interval '90' day", 1, "interval '{DELTA}' day"}},
	},
	{ // Q2: SIZE in [1, 50], TYPE a third syllable, REGION.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"SIZE", strconv.Itoa(between(r, 1, 50))},
				{"TYPE", pickOne(r, typeSyllables()[2])}, {"REGION", pickOne(r, tpch.Regions())}}
		},
		subs: []qgenSub{{"p_size = 15", 1, "p_size = {SIZE}"}, {"'%BRASS'", 1, "'%{TYPE}'"}, {"'EUROPE'", 2, "'{REGION}'"}},
	},
	{ // Q3: SEGMENT, DATE a day of March 1995.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"SEGMENT", pickOne(r, tpch.Segments())}, {"DATE", fmt.Sprintf("1995-03-%02d", between(r, 1, 31))}}
		},
		subs: []qgenSub{{"'BUILDING'", 1, "'{SEGMENT}'"}, {"'1995-03-15'", 2, "'{DATE}'"}},
	},
	{ // Q4: DATE the first of a month from January 1993 to October 1997
		// (clause 2.4.4.3; dbgen 2.17's qgen draws one month later, February
		// 1993 to November 1997: the specification's text is followed).
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DATE", monthStart(1993, between(r, 0, 57))}}
		},
		subs: []qgenSub{{"'1993-07-01'", 2, "'{DATE}'"}},
	},
	{ // Q5: REGION, DATE January 1 of 1993..1997.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"REGION", pickOne(r, tpch.Regions())}, {"DATE", yearStart(r)}}
		},
		subs: []qgenSub{{"'ASIA'", 1, "'{REGION}'"}, {"'1994-01-01'", 2, "'{DATE}'"}},
	},
	{ // Q6: DATE, DISCOUNT in [0.02, 0.09], QUANTITY in [24, 25].
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DATE", yearStart(r)}, {"DISCOUNT", fmt.Sprintf("0.%02d", between(r, 2, 9))},
				{"QUANTITY", strconv.Itoa(between(r, 24, 25))}}
		},
		subs: []qgenSub{{"'1994-01-01'", 2, "'{DATE}'"}, {".06 - 0.01", 1, "{DISCOUNT} - 0.01"},
			{".06 + 0.01", 1, "{DISCOUNT} + 0.01"}, {"l_quantity < 24", 1, "l_quantity < {QUANTITY}"}},
	},
	{ // Q7: two distinct nations.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			n := pickDistinct(r, nationNames(), 2)
			return []qgenParam{{"NATION1", n[0]}, {"NATION2", n[1]}}
		},
		subs: []qgenSub{{"'FRANCE'", 2, "'{NATION1}'"}, {"'GERMANY'", 2, "'{NATION2}'"}},
	},
	{ // Q8: NATION, its REGION, TYPE a whole part type.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			n := tpch.Nations()[r.IntN(len(tpch.Nations()))]
			return []qgenParam{{"NATION", n.Name}, {"REGION", tpch.Regions()[n.Region]}, {"TYPE", pickOne(r, tpch.Types())}}
		},
		subs: []qgenSub{{"'BRAZIL'", 1, "'{NATION}'"}, {"'AMERICA'", 1, "'{REGION}'"}, {"'ECONOMY ANODIZED STEEL'", 1, "'{TYPE}'"}},
	},
	{ // Q9: COLOR.
		draw: func(r *rand.Rand, _ float64) []qgenParam { return []qgenParam{{"COLOR", pickOne(r, tpch.Colors())}} },
		subs: []qgenSub{{"'%green%'", 1, "'%{COLOR}%'"}},
	},
	{ // Q10: DATE the first of a month from February 1993 to January 1995.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DATE", monthStart(1993, between(r, 1, 24))}}
		},
		subs: []qgenSub{{"'1993-10-01'", 2, "'{DATE}'"}},
	},
	{ // Q11: NATION, FRACTION 0.0001 / SF.
		draw: func(r *rand.Rand, sf float64) []qgenParam {
			return []qgenParam{{"NATION", pickOne(r, nationNames())}, {"FRACTION", strconv.FormatFloat(0.0001/sf, 'f', 10, 64)}}
		},
		subs: []qgenSub{{"'GERMANY'", 2, "'{NATION}'"}, {"0.0001000000", 1, "{FRACTION}"}},
	},
	{ // Q12: two distinct ship modes, DATE.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			m := pickDistinct(r, tpch.ShipModes(), 2)
			return []qgenParam{{"SHIPMODE1", m[0]}, {"SHIPMODE2", m[1]}, {"DATE", yearStart(r)}}
		},
		subs: []qgenSub{{"'MAIL'", 1, "'{SHIPMODE1}'"}, {"'SHIP'", 1, "'{SHIPMODE2}'"}, {"'1994-01-01'", 2, "'{DATE}'"}},
	},
	{ // Q13: WORD1, WORD2.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"WORD1", pickOne(r, []string{"special", "pending", "unusual", "express"})},
				{"WORD2", pickOne(r, []string{"packages", "requests", "accounts", "deposits"})}}
		},
		subs: []qgenSub{{"'%special%requests%'", 1, "'%{WORD1}%{WORD2}%'"}},
	},
	{ // Q14: DATE the first of a month of 1993..1997.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DATE", monthStart(1993, between(r, 0, 59))}}
		},
		subs: []qgenSub{{"'1995-09-01'", 2, "'{DATE}'"}},
	},
	{ // Q15: DATE the first of a month from January 1993 to October 1997.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"DATE", monthStart(1993, between(r, 0, 57))}}
		},
		subs: []qgenSub{{"'1996-01-01'", 2, "'{DATE}'"}},
	},
	{ // Q16: BRAND, TYPE two first syllables, eight distinct sizes in [1, 50].
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			syl := typeSyllables()
			p := []qgenParam{{"BRAND", brand(r)}, {"TYPE", pickOne(r, syl[0]) + " " + pickOne(r, syl[1])}}
			for i, s := range r.Perm(50)[:8] {
				p = append(p, qgenParam{fmt.Sprintf("SIZE%d", i+1), strconv.Itoa(s + 1)})
			}
			return p
		},
		subs: []qgenSub{{"'Brand#45'", 1, "'{BRAND}'"}, {"'MEDIUM POLISHED%'", 1, "'{TYPE}%'"},
			{"(49, 14, 23, 45, 19, 3, 36, 9)", 1, "({SIZE1}, {SIZE2}, {SIZE3}, {SIZE4}, {SIZE5}, {SIZE6}, {SIZE7}, {SIZE8})"}},
	},
	{ // Q17: BRAND, CONTAINER.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			syl := containerSyllables()
			return []qgenParam{{"BRAND", brand(r)}, {"CONTAINER", pickOne(r, syl[0]) + " " + pickOne(r, syl[1])}}
		},
		subs: []qgenSub{{"'Brand#23'", 1, "'{BRAND}'"}, {"'MED BOX'", 1, "'{CONTAINER}'"}},
	},
	{ // Q18: QUANTITY in [312, 315].
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"QUANTITY", strconv.Itoa(between(r, 312, 315))}}
		},
		subs: []qgenSub{{"> 300", 1, "> {QUANTITY}"}},
	},
	{ // Q19: QUANTITY1..3 in [1, 10], [10, 20], [20, 30]; BRAND1..3.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"QUANTITY1", strconv.Itoa(between(r, 1, 10))}, {"QUANTITY2", strconv.Itoa(between(r, 10, 20))},
				{"QUANTITY3", strconv.Itoa(between(r, 20, 30))}, {"BRAND1", brand(r)}, {"BRAND2", brand(r)}, {"BRAND3", brand(r)}}
		},
		subs: []qgenSub{{"'Brand#12'", 1, "'{BRAND1}'"}, {"'Brand#23'", 1, "'{BRAND2}'"}, {"'Brand#34'", 1, "'{BRAND3}'"},
			{"l_quantity >= 1 and l_quantity <= 1 + 10", 1, "l_quantity >= {QUANTITY1} and l_quantity <= {QUANTITY1} + 10"},
			{"l_quantity >= 10 and l_quantity <= 10 + 10", 1, "l_quantity >= {QUANTITY2} and l_quantity <= {QUANTITY2} + 10"},
			{"l_quantity >= 20 and l_quantity <= 20 + 10", 1, "l_quantity >= {QUANTITY3} and l_quantity <= {QUANTITY3} + 10"}},
	},
	{ // Q20: COLOR, DATE, NATION.
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			return []qgenParam{{"COLOR", pickOne(r, tpch.Colors())}, {"DATE", yearStart(r)}, {"NATION", pickOne(r, nationNames())}}
		},
		subs: []qgenSub{{"'forest%'", 1, "'{COLOR}%'"}, {"'1994-01-01'", 2, "'{DATE}'"}, {"'CANADA'", 1, "'{NATION}'"}},
	},
	{ // Q21: NATION.
		draw: func(r *rand.Rand, _ float64) []qgenParam { return []qgenParam{{"NATION", pickOne(r, nationNames())}} },
		subs: []qgenSub{{"'SAUDI ARABIA'", 1, "'{NATION}'"}},
	},
	{ // Q22: seven distinct country codes of the 25 nations (10..34).
		draw: func(r *rand.Rand, _ float64) []qgenParam {
			var p []qgenParam
			for i, c := range r.Perm(25)[:7] {
				p = append(p, qgenParam{fmt.Sprintf("I%d", i+1), strconv.Itoa(10 + c)})
			}
			return p
		},
		subs: []qgenSub{{"('13', '31', '23', '29', '30', '18', '17')", 2, "('{I1}', '{I2}', '{I3}', '{I4}', '{I5}', '{I6}', '{I7}')"}},
	},
}

// qgenSet is one parameter set: the 22 queries' parameters and texts.
type qgenSet struct {
	Number int           // 1-based
	Params [][]qgenParam // by query number - 1
	Text   []string      // by query number - 1
}

// qgenSets draws n parameter sets from seed at scale factor sf.
func qgenSets(seed int64, n int, sf float64) ([]qgenSet, error) {
	out := make([]qgenSet, n)
	for s := range out {
		r := rand.New(rand.NewPCG(uint64(seed), uint64(s+1)))
		set := qgenSet{Number: s + 1}
		for q := 1; q <= queries.Count; q++ {
			params := qgenQueries[q-1].draw(r, sf)
			text, err := qgenText(q, params)
			if err != nil {
				return nil, err
			}
			set.Params = append(set.Params, params)
			set.Text = append(set.Text, text)
		}
		out[s] = set
	}
	return out, nil
}

// qgenText is query q's validation text with params substituted.
func qgenText(q int, params []qgenParam) (string, error) {
	text, err := queries.Text(q)
	if err != nil {
		return "", err
	}
	subs := qgenQueries[q-1].subs
	// Every constant becomes a marker first, so that a value equal to a
	// later constant ('GERMANY' drawn for Q7's first nation) is not
	// replaced again.
	for i, s := range subs {
		if n := strings.Count(text, s.old); n != s.count {
			return "", fmt.Errorf("qgen: TPC-H Q%d has %q %d times, want %d", q, s.old, n, s.count)
		}
		text = strings.ReplaceAll(text, s.old, fmt.Sprintf("\x00%d\x00", i))
	}
	for i, s := range subs {
		v := s.tmpl
		for _, p := range params {
			v = strings.ReplaceAll(v, "{"+p.Name+"}", p.Value)
		}
		if strings.Contains(v, "{") {
			return "", fmt.Errorf("qgen: TPC-H Q%d: %q names a parameter not drawn", q, s.tmpl)
		}
		text = strings.ReplaceAll(text, fmt.Sprintf("\x00%d\x00", i), v)
	}
	return text, nil
}

// formatParams renders parameters as NAME=value, ...
func formatParams(params []qgenParam) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Name + "=" + p.Value
	}
	return strings.Join(parts, ", ")
}

// writeParamsReport lists the parameter set and substituted values of
// each query run (--params random), once per query and set.
func writeParamsReport(w io.Writer, cfg *config, rep *report) {
	fmt.Fprintf(w, "\nTPC-H random substitution parameters (--seed %d, %d set(s)):\n", cfg.seed, cfg.sets)
	seen := map[string]bool{}
	for _, r := range rep.Results {
		key := fmt.Sprintf("%s@%d", r.Query, r.Rows)
		if r.ParamSet == 0 || seen[key] {
			continue
		}
		seen[key] = true
		fmt.Fprintf(w, "  %-9s set %d @ %d rows: %s\n", r.Query, r.ParamSet, r.Rows, r.Params)
	}
}
