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

// parseScaleFactors parses "0.1,1,10".
func parseScaleFactors(s string) ([]float64, error) {
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
		if _, err := tpch.New(v); err != nil {
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
		t0 := time.Now()
		tables := make([][]arrow.Record, len(tpch.Tables))
		var lineitems int
		for i, t := range tpch.Tables {
			if tables[i], err = g.Records(ctx, t); err != nil {
				return err
			}
			if t == tpch.LineItem {
				for _, r := range tables[i] {
					lineitems += int(r.NumRows())
				}
			}
		}
		fmt.Fprintf(stderr, "generated TPC-H SF %g (%d lineitems) in %.1fs\n", sf, lineitems, time.Since(t0).Seconds())
		// The generator's 300 MiB text pool would otherwise stay in the
		// heap the queries of gsql measure (raising its GC goal by twice
		// that); a next scale factor rebuilds it.
		tpch.ReleaseTextPool()
		rep.Rows = append(rep.Rows, lineitems)
		for _, e := range engines {
			t0 := time.Now()
			for i, t := range tpch.Tables {
				if err := e.Load(ctx, t.String(), tpch.Schema(t), tables[i]); err != nil {
					return err
				}
			}
			fmt.Fprintf(stderr, "loaded TPC-H SF %g into %s in %.1fs\n", sf, e.Name(), time.Since(t0).Seconds())
		}
		for _, q := range cfg.queries {
			n, _ := strconv.Atoi(strings.TrimPrefix(q.Name, "q"))
			st, err := queries.Statements(n)
			if err != nil {
				return err
			}
			a := queries.Answer(n)
			for _, e := range engines {
				for _, s := range st[:a] {
					if err := e.Exec(ctx, s); err != nil {
						fmt.Fprintf(stderr, "%s on %s: %s: %v\n", q.Name, e.Name(), s, err)
					}
				}
			}
			rows, err := measureQuery(ctx, cfg, q, lineitems, nil, nil, engines, stderr)
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
			rep.Results = append(rep.Results, rows...)
		}
		for _, recs := range tables {
			for _, r := range recs {
				r.Release()
			}
		}
	}
	return nil
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
