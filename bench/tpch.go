package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// The TPC-H suite (--suite tpch): the 22 queries of datagen/tpch/queries
// over the tables of datagen/tpch (dbgen's rows) at each --sf scale
// factor, every engine loaded with the same records, answers checked
// against DuckDB's. Q15's CREATE VIEW runs untimed before its query and
// its DROP VIEW after.

// tpchQueries are the suite's queries, named q01 ... q22; Table holds the
// query number.
func tpchQueries(names string) ([]benchQuery, error) {
	var all []benchQuery
	for n := 1; n <= queries.Count; n++ {
		st, err := queries.Statements(n)
		if err != nil {
			return nil, err
		}
		all = append(all, benchQuery{Name: fmt.Sprintf("q%02d", n), Table: "tpch", SQL: st[queries.Answer(n)]})
	}
	return pickNumbered(all, names, "TPC-H")
}

// parseScaleFactors parses "0.1,1,10" as TPC-H scale factors.
func parseScaleFactors(s string) ([]float64, error) {
	return parseFactors(s, func(v float64) error {
		_, err := tpch.New(v)
		return err
	})
}

// parseFactors parses comma-separated scale factors, each checked by
// valid (the suite's generator).
func parseFactors(s string, valid func(float64) error) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("bad scale factor %q", f)
		}
		if err := valid(v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scale factors")
	}
	return out, nil
}

// runTPCH measures the TPC-H queries at every scale factor. A result's
// Rows is the scale factor's lineitem row count.
func runTPCH(ctx context.Context, cfg *config, rep *report, engines []engine, stderr io.Writer) error {
	defer func(d int) { floatDigits = d }(floatDigits)
	floatDigits = 5
	rep.ScaleFactors = cfg.sfs
	for _, sf := range cfg.sfs {
		g, err := tpch.New(sf)
		if err != nil {
			return err
		}
		runs, err := tpchRuns(cfg, sf)
		if err != nil {
			return err
		}
		sets, lineitems, err := tpchSets(ctx, cfg, g, stderr)
		if err != nil {
			return err
		}
		rep.Rows = append(rep.Rows, lineitems)
		if err := loadSets(ctx, engines, sets, fmt.Sprintf("TPC-H SF %g", sf), stderr); err != nil {
			for _, s := range sets {
				release(s.recs)
			}
			return err
		}
		for _, tr := range runs {
			q, st, a := tr.query, tr.stmts, queries.Answer(tr.number)
			for _, e := range engines {
				for _, s := range st[:a] {
					if err := e.Exec(ctx, s); err != nil {
						fmt.Fprintf(stderr, "%s on %s: %s: %v\n", q.Name, e.Name(), s, err)
					}
				}
			}
			rows, err := measureQuery(ctx, cfg, q, lineitems, nil, engines, stderr)
			if err != nil {
				return err
			}
			for _, e := range engines {
				for _, s := range st[a+1:] {
					if err := e.Exec(ctx, s); err != nil {
						fmt.Fprintf(stderr, "%s on %s: %s: %v\n", q.Name, e.Name(), s, err)
					}
				}
			}
			for i := range rows {
				rows[i].ParamSet, rows[i].Params = tr.set, tr.params
			}
			rep.add(cfg, rows)
		}
		for _, s := range sets {
			release(s.recs)
		}
	}
	return nil
}

// tpchRun is one query of the TPC-H suite as measured: its number, the
// statements of its text (Q15's view around its query), and with
// random parameters the set's number and its substituted values.
type tpchRun struct {
	query  benchQuery
	number int
	stmts  []string
	set    int
	params string
}

// tpchRuns are the runs of the selected queries at scale factor sf: once
// each with the validation parameters, or (--params random) once per
// parameter set, named qNN/pS, set after set.
func tpchRuns(cfg *config, sf float64) ([]tpchRun, error) {
	numbers := make([]int, len(cfg.queries))
	for i, q := range cfg.queries {
		n, err := strconv.Atoi(strings.TrimPrefix(q.Name, "q"))
		if err != nil {
			return nil, fmt.Errorf("TPC-H query %q: %w", q.Name, err)
		}
		numbers[i] = n
	}
	var out []tpchRun
	if cfg.params != paramsRandom {
		for i, q := range cfg.queries {
			st, err := queries.Statements(numbers[i])
			if err != nil {
				return nil, err
			}
			out = append(out, tpchRun{query: q, number: numbers[i], stmts: st})
		}
		return out, nil
	}
	sets, err := qgenSets(cfg.seed, cfg.sets, sf)
	if err != nil {
		return nil, err
	}
	for _, set := range sets {
		for i, q := range cfg.queries {
			n := numbers[i]
			st := splitStatements(set.Text[n-1])
			q.Name = fmt.Sprintf("%s/p%d", q.Name, set.Number)
			q.SQL = st[queries.Answer(n)]
			out = append(out, tpchRun{query: q, number: n, stmts: st, set: set.Number, params: formatParams(set.Params[n-1])})
		}
	}
	return out, nil
}

// splitStatements splits a query file's text at its semicolons (no
// TPC-H query has one inside a literal).
func splitStatements(text string) []string {
	var out []string
	for _, s := range strings.Split(text, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// tpchSets generates the eight tables at g's scale factor, in memory or
// (--data) as Parquet files written once, and returns them with
// lineitem's row count.
func tpchSets(ctx context.Context, cfg *config, g *tpch.Generator, stderr io.Writer) ([]loadSet, int, error) {
	sf := g.ScaleFactor()
	// The generator's 300 MiB text pool would otherwise stay in the heap
	// the queries of gsql measure (raising its GC goal by twice that); a
	// next scale factor rebuilds it.
	defer tpch.ReleaseTextPool()
	if cfg.data != "" {
		d, err := openDataSet(ctx, cfg.data, tpchKey(sf), tpchGens(g), stderr)
		if err != nil {
			return nil, 0, err
		}
		return d.sets(), int(d.table(tpch.LineItem.String()).Rows), nil
	}
	t0 := time.Now()
	sets, lineitems, err := generatedSets(ctx, tpch.Tables, tpch.LineItem, g.Records, tpch.Schema)
	if err != nil {
		return nil, 0, err
	}
	fmt.Fprintf(stderr, "generated TPC-H SF %g (%d lineitems) in %.1fs\n", sf, lineitems, time.Since(t0).Seconds())
	return sets, lineitems, nil
}

// pickNumbered picks queries q01, q02, ... of a numbered suite by
// comma-separated names (empty: all of them, in order).
func pickNumbered(all []benchQuery, names, suite string) ([]benchQuery, error) {
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []benchQuery
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(name), "q"))
		if err != nil || n < 1 || n > len(all) {
			return nil, fmt.Errorf("unknown %s query %q (q01 ... q%02d)", suite, name, len(all))
		}
		out = append(out, all[n-1])
	}
	return out, nil
}

// generatedSets generates a suite's tables in memory, in order, and
// returns them with the fact table's row count; a failure releases what
// was made.
func generatedSets[T interface {
	comparable
	String() string
}](ctx context.Context, tables []T, fact T, records func(context.Context, T) ([]arrow.Record, error), schema func(T) *arrow.Schema) ([]loadSet, int, error) {
	var sets []loadSet
	rows := 0
	for _, t := range tables {
		recs, err := records(ctx, t)
		if err != nil {
			for _, s := range sets {
				release(s.recs)
			}
			return nil, 0, err
		}
		sets = append(sets, memorySet(t.String(), schema(t), recs))
		if t == fact {
			rows = int(sets[len(sets)-1].rows)
		}
	}
	return sets, rows, nil
}
