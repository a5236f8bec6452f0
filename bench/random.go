package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/bench/internal/randq"
	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// The random suite (--suite random): --count queries of
// bench/internal/randq from --seed over hits (--rows) and the TPC-H
// tables (--sf), and the shapes suite (--suite shapes): issue 40's five
// fixed regression shapes over hits. Every engine runs every query; the
// answers are checked against DuckDB's under the query's ORDER BY with a
// tolerance for numbers (compareOrdered), and the report lists the
// queries where gsql (gsql-gpu when it ran, else gsql-cpu) is slower than
// DuckDB, each with gsql's EXPLAIN ANALYZE.

// Defaults of the random and shapes suites where the flags are not given:
// one size of each table (the suite compares engines, not sizes), three
// timed runs, and a limit per run so that a query one engine cannot
// finish is an ERROR instead of a hung run.
const (
	randomDefaultRows    = 1_000_000
	randomDefaultRuns    = 3
	randomDefaultTimeout = 2 * time.Minute
)

// randomConfig completes the configuration of --suite random or shapes.
func randomConfig(cfg *config, set map[string]bool, sf, names string) error {
	if !set["rows"] {
		cfg.rows = []int{randomDefaultRows}
	}
	if len(cfg.rows) != 1 {
		return fmt.Errorf("--rows: --suite %s takes one size of hits, got %d", cfg.suite, len(cfg.rows))
	}
	var err error
	if cfg.sfs, err = parseScaleFactors(sf); err != nil {
		return fmt.Errorf("--sf: %w", err)
	}
	if len(cfg.sfs) != 1 {
		return fmt.Errorf("--sf: --suite %s takes one scale factor, got %d", cfg.suite, len(cfg.sfs))
	}
	if !set["runs"] {
		cfg.runs = randomDefaultRuns
	}
	if !set["timeout"] {
		cfg.timeout = randomDefaultTimeout
	}
	if cfg.count < 1 {
		return fmt.Errorf("--count must be at least 1, got %d", cfg.count)
	}
	// Cold runs would regenerate both data sets per query and engine.
	cfg.cold = false
	var qs []randq.Query
	if cfg.suite == "shapes" {
		qs = randq.Shapes()
	} else {
		qs = randq.Generate(cfg.seed, cfg.count)
	}
	all := make([]benchQuery, len(qs))
	for i := range qs {
		all[i] = randomBenchQuery(qs[i])
	}
	cfg.queries, err = pickNamed(all, names)
	return err
}

// randomBenchQuery makes a suite query of a generated one.
func randomBenchQuery(q randq.Query) benchQuery {
	b := benchQuery{Name: q.Name, Table: strings.Join(q.Tables, ","), SQL: q.SQL, random: &q}
	if strings.Contains(","+b.Table+",", ",hits,") {
		b.Cols = hitsColumns(q.SQL)
	}
	if q.Duck != "" && q.Duck != q.SQL {
		b.Variants = map[string]string{"duckdb": q.Duck}
		b.VariantWhy = "DuckDB's dialect differs: it runs its own text of the query"
	}
	return b
}

// pickNamed picks queries by comma-separated names (empty: all).
func pickNamed(all []benchQuery, names string) ([]benchQuery, error) {
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []benchQuery
	index := func(n string) (int, error) {
		i := slices.IndexFunc(all, func(q benchQuery) bool { return strings.EqualFold(q.Name, n) })
		if i < 0 {
			return 0, fmt.Errorf("unknown query %q (have %s ... %s)", n, all[0].Name, all[len(all)-1].Name)
		}
		return i, nil
	}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		// FIRST-LAST picks a run of queries in generated order, so that a
		// long suite can be measured a slice per call (r051-r100).
		if first, last, ok := strings.Cut(n, "-"); ok {
			i, err := index(strings.TrimSpace(first))
			if err != nil {
				return nil, err
			}
			j, err := index(strings.TrimSpace(last))
			if err != nil {
				return nil, err
			}
			if j < i {
				return nil, fmt.Errorf("%q: %s comes after %s", n, all[i].Name, all[j].Name)
			}
			out = append(out, all[i:j+1]...)
			continue
		}
		i, err := index(n)
		if err != nil {
			return nil, err
		}
		out = append(out, all[i])
	}
	return out, nil
}

// runRandom loads hits (and the TPC-H tables when a query reads one)
// into every engine, then measures every query.
func runRandom(ctx context.Context, cfg *config, rep *report, engines []engine, stderr io.Writer) error {
	rows, sf := cfg.rows[0], cfg.sfs[0]
	rep.Rows = []int{rows}
	needTPCH := slices.ContainsFunc(cfg.queries, func(q benchQuery) bool {
		return slices.ContainsFunc(q.random.Tables, func(t string) bool { return t != clickbench.TableName })
	})
	g, err := clickbench.New(int64(rows), uint64(cfg.seed))
	if err != nil {
		return err
	}
	hits, err := hitsSet(ctx, cfg, g, stderr)
	if err != nil {
		return err
	}
	defer release(hits.recs)
	sets := []loadSet{hits}
	if needTPCH {
		rep.ScaleFactors = []float64{sf}
		tg, err := tpch.New(sf)
		if err != nil {
			return err
		}
		ts, _, err := tpchSets(ctx, cfg, tg, stderr)
		if err != nil {
			return err
		}
		for _, s := range ts {
			defer release(s.recs)
		}
		sets = append(sets, ts...)
	}
	if err := loadSets(ctx, engines, sets, "the tables", stderr); err != nil {
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	for _, q := range cfg.queries {
		res, err := measureQuery(ctx, cfg, q, rows, hits.cols, engines, stderr)
		if err != nil {
			return err
		}
		explainSlow(ctx, cfg, q, res, engines)
		rep.add(cfg, res)
	}
	return nil
}

func release(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

// queryContext bounds one run of a query by --timeout.
func queryContext(ctx context.Context, cfg *config) (context.Context, context.CancelFunc) {
	if cfg.timeout > 0 {
		return context.WithTimeout(ctx, cfg.timeout)
	}
	return ctx, func() {}
}

// timeoutText is an engine's error, saying so when it ran past --timeout.
func timeoutText(cfg *config, err error) string {
	if errors.Is(err, context.DeadlineExceeded) || (cfg.timeout > 0 && strings.Contains(err.Error(), "deadline exceeded")) {
		return fmt.Sprintf("timed out after %v: %v", cfg.timeout, err)
	}
	return err.Error()
}

// gsqlUnderTest is the engine whose speed the random suite reports:
// gsql-gpu when it ran, else gsql-cpu.
func gsqlUnderTest(engines []string) string {
	if slices.Contains(engines, "gsql-gpu") {
		return "gsql-gpu"
	}
	return "gsql-cpu"
}

// explainer is an engine that shows its plan with run times.
type explainer interface {
	Explain(ctx context.Context, query string) (string, error)
}

// explainSlow keeps gsql's EXPLAIN ANALYZE of a query it ran slower than
// DuckDB (a GPU engine's plan is already there: the placement check ran
// it).
func explainSlow(ctx context.Context, cfg *config, q benchQuery, res []resultRow, engines []engine) {
	var names []string
	for _, e := range engines {
		names = append(names, e.Name())
	}
	target := gsqlUnderTest(names)
	var duck *resultRow
	for i := range res {
		if res[i].Engine == "duckdb" && res[i].Status == statusOK {
			duck = &res[i]
		}
	}
	for i := range res {
		r := &res[i]
		if r.Engine != target || duck == nil || r.Status == statusError || r.MedianMs <= duck.MedianMs || r.Plan != "" {
			continue
		}
		for _, e := range engines {
			x, ok := e.(explainer)
			if e.Name() != target || !ok {
				continue
			}
			qctx, cancel := queryContext(ctx, cfg)
			plan, err := x.Explain(qctx, q.sqlFor(target))
			cancel()
			if err != nil {
				plan = "EXPLAIN ANALYZE failed: " + err.Error()
			}
			r.Plan = plan
		}
	}
}

// compareRandom marks engines whose answers differ from the reference's
// (DuckDB when it answered, else the first engine that did).
func compareRandom(out []resultRow, ans []*answers.Answer, q *randq.Query) {
	ref := -1
	for i := range out {
		if ans[i] != nil && (ref < 0 || out[i].Engine == "duckdb") {
			ref = i
			if out[i].Engine == "duckdb" {
				break
			}
		}
	}
	if ref < 0 {
		return
	}
	for i := range out {
		if ans[i] == nil {
			continue
		}
		out[i].Reference = out[ref].Engine
		if i == ref {
			continue
		}
		if err := compareOrdered(*ans[i], *ans[ref], q.Keys, q.Limited); err != nil {
			out[i].Status, out[i].Diff = statusFail, err.Error()
		}
	}
}

// compareOrdered says how got differs from want, answers to a query
// whose ORDER BY names every output column (keys, in order), or nil.
//
// Values compare as text, numbers within answers.SameValue's tolerance
// (AVG and divisions are DECIMALs in gsql, DOUBLEs in DuckDB), a midnight
// timestamp equal to its date (DATE_TRUNC of a TIMESTAMP). The rows
// compare as runs of equal first ORDER BY key (equal within the
// tolerance): the first key row by row, each run as a multiset, since
// values equal within the tolerance may sort either way on the later
// keys. Where a LIMIT cuts the last run and that run holds inexact
// numbers, the engines may keep different rows of near-equal values at
// the cut: that run compares by its first key only.
func compareOrdered(got, want answers.Answer, keys []int, limited bool) error {
	if len(got.Columns) != len(want.Columns) {
		return fmt.Errorf("%d columns, want %d (%v vs %v)", len(got.Columns), len(want.Columns), got.Columns, want.Columns)
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Errorf("%d rows, want %d (first got %v, want %v)", len(got.Rows), len(want.Rows), first(got.Rows), first(want.Rows))
	}
	if len(keys) == 0 {
		keys = []int{0}
	}
	k0 := keys[0]
	if k0 < 0 || k0 >= len(want.Columns) {
		return fmt.Errorf("ORDER BY key column %d out of range (%d columns)", k0, len(want.Columns))
	}
	g, w := got.Rows, want.Rows
	for r := range w {
		if len(g[r]) != len(w[r]) {
			return fmt.Errorf("row %d: %d values, want %d", r+1, len(g[r]), len(w[r]))
		}
		if !sameValue(g[r][k0], w[r][k0]) {
			return fmt.Errorf("row %d: first ORDER BY key %s is %q, want %q\n got row %v\nwant row %v", r+1, want.Columns[k0], g[r][k0], w[r][k0], g[r], w[r])
		}
	}
	for a := 0; a < len(w); {
		b := a + 1
		for b < len(w) && sameValue(w[b][k0], w[b-1][k0]) {
			b++
		}
		if msg := sameMultiset(g[a:b], w[a:b]); msg != "" {
			cut := limited && b == len(w)
			if !cut || !inexact(w[a:b], keys) {
				return fmt.Errorf("rows %d..%d (first ORDER BY key %q): %s", a+1, b, w[a][k0], msg)
			}
		}
		a = b
	}
	return nil
}

func first(rows [][]string) []string {
	if len(rows) > 0 {
		return rows[0]
	}
	return nil
}

// sameValue is answers.SameValue with a midnight timestamp equal to its
// date: DATE_TRUNC of a TIMESTAMP is a TIMESTAMP in gsql, and DuckDB's
// answer reads it as a date.
func sameValue(a, b string) bool {
	return answers.SameValue(midnight(a), midnight(b))
}

func midnight(s string) string {
	if len(s) == len("2006-01-02 00:00:00") && strings.HasSuffix(s, " 00:00:00") && s[4] == '-' {
		return s[:10]
	}
	return s
}

func sameRow(g, w []string) bool {
	if len(g) != len(w) {
		return false
	}
	for c := range w {
		if !sameValue(g[c], w[c]) {
			return false
		}
	}
	return true
}

// sameMultiset says how got and want differ as multisets of rows, or "".
// Rows equal as text match first (sorted, linear); the rest match within
// the tolerance, pairwise.
func sameMultiset(got, want [][]string) string {
	join := func(rows [][]string) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = strings.Join(r, "\t")
		}
		sort.Strings(out)
		return out
	}
	gs, ws := join(got), join(want)
	var gl, wl []string // rows left after the exact matches
	i, j := 0, 0
	for i < len(gs) && j < len(ws) {
		switch {
		case gs[i] == ws[j]:
			i++
			j++
		case gs[i] < ws[j]:
			gl = append(gl, gs[i])
			i++
		default:
			wl = append(wl, ws[j])
			j++
		}
	}
	gl, wl = append(gl, gs[i:]...), append(wl, ws[j:]...)
	if len(wl) > 2000 {
		return fmt.Sprintf("%d rows differ; first want row %q, got %q", len(wl), wl[0], gl[0])
	}
	used := make([]bool, len(gl))
	for _, wr := range wl {
		wv := strings.Split(wr, "\t")
		found := false
		for k, gr := range gl {
			if !used[k] && sameRow(strings.Split(gr, "\t"), wv) {
				used[k], found = true, true
				break
			}
		}
		if !found {
			left := ""
			for k, gr := range gl {
				if !used[k] {
					left = gr
					break
				}
			}
			return fmt.Sprintf("want row %q is missing (got %q unmatched)", wr, left)
		}
	}
	return ""
}

// inexact says whether a key column of rows holds a fractional number.
func inexact(rows [][]string, keys []int) bool {
	for _, r := range rows {
		for _, k := range keys {
			if k < len(r) && strings.ContainsAny(r[k], ".eE") {
				if _, err := strconv.ParseFloat(r[k], 64); err == nil {
					return true
				}
			}
		}
	}
	return false
}

// slowRow is one query gsql ran slower than DuckDB.
type slowRow struct {
	query            string
	gsqlMs, duckMs   float64
	ratio            float64
	features, sql    string
	plan             string
	engine, duckNote string
}

// writeRandomReport lists, after the table, the queries where gsql is
// slower than DuckDB (slowest first, with the SQL and EXPLAIN ANALYZE),
// the queries gsql rejected and DuckDB's errors (generator bugs); it also
// writes the list to slow.md in the output directory.
func writeRandomReport(w io.Writer, cfg *config, rep *report) error {
	target := gsqlUnderTest(rep.Engines)
	info := map[string]queryInfo{}
	for _, q := range rep.Queries {
		info[q.Name] = q
	}
	byQuery := map[string]map[string]resultRow{}
	var order []string
	for _, r := range rep.Results {
		if byQuery[r.Query] == nil {
			byQuery[r.Query] = map[string]resultRow{}
			order = append(order, r.Query)
		}
		byQuery[r.Query][r.Engine] = r
	}
	var slow []slowRow
	var rejected, duckErrs, fails []string
	faster := 0
	for _, name := range order {
		rs := byQuery[name]
		t, d := rs[target], rs["duckdb"]
		q := info[name]
		if d.Status == statusError {
			duckErrs = append(duckErrs, fmt.Sprintf("%s: %s\n    %s", name, oneLine(d.Error), q.SQL))
		}
		for _, e := range rep.Engines {
			r := rs[e]
			if r.Status == statusError && e != "duckdb" {
				rejected = append(rejected, fmt.Sprintf("%s on %s [%s]: %s\n    %s", name, e, strings.Join(q.Features, " "), oneLine(r.Error), q.SQL))
			}
			if r.Status == statusFail {
				fails = append(fails, fmt.Sprintf("%s on %s differs from %s: %s\n    %s", name, e, r.Reference, r.Diff, q.SQL))
			}
		}
		if t.Status != statusOK || d.Status != statusOK || t.MedianMs <= 0 || d.MedianMs <= 0 {
			continue
		}
		if t.MedianMs <= d.MedianMs {
			faster++
			continue
		}
		slow = append(slow, slowRow{query: name, gsqlMs: t.MedianMs, duckMs: d.MedianMs, ratio: t.MedianMs / d.MedianMs,
			features: strings.Join(q.Features, " "), sql: q.SQL, plan: t.Plan, engine: target})
	}
	sort.SliceStable(slow, func(a, b int) bool { return slow[a].ratio > slow[b].ratio })
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s vs DuckDB: %d queries slower, %d as fast or faster (of those both answered correctly)\n\n", target, len(slow), faster)
	if len(slow) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "query\t%s ms\tduckdb ms\tslower by\tfeatures\n", target)
		for _, s := range slow {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%s\n", s.query, fmtMs(s.gsqlMs), fmtMs(s.duckMs), s.ratio, s.features)
		}
		tw.Flush()
	}
	if len(fails) > 0 {
		fmt.Fprintf(&b, "\n## Answers that differ from DuckDB's (%d)\n\n", len(fails))
		for _, f := range fails {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	if len(rejected) > 0 {
		fmt.Fprintf(&b, "\n## Queries gsql did not answer (%d)\n\n", len(rejected))
		for _, f := range rejected {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	if len(duckErrs) > 0 {
		fmt.Fprintf(&b, "\n## Queries DuckDB rejected: generator bugs (%d)\n\n", len(duckErrs))
		for _, f := range duckErrs {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	if len(slow) > 0 {
		fmt.Fprintf(&b, "\n## The slower queries, with %s's EXPLAIN ANALYZE\n", target)
		for _, s := range slow {
			fmt.Fprintf(&b, "\n### %s: %s ms vs DuckDB %s ms (%.2fx)\n\n    %s\n\n", s.query, fmtMs(s.gsqlMs), fmtMs(s.duckMs), s.ratio, s.sql)
			for _, l := range strings.Split(strings.TrimRight(s.plan, "\n"), "\n") {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if cfg.out == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	head := fmt.Sprintf("# %s suite: %s\n\n%s, %s, %d cores; seed %d; hits %d rows; TPC-H SF %v; %d timed runs (median)\n",
		cfg.suite, rep.Command, rep.Date, rep.CPUModel, rep.Cores, rep.Seed, cfg.rows[0], cfg.sfs[0], rep.RunsPerQuery)
	return os.WriteFile(filepath.Join(cfg.out, "slow.md"), []byte(head+b.String()), 0o644)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}
