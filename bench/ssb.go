package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen/ssb"
)

// The Star Schema Benchmark suite (--suite ssb): the 13 queries Q1.1 ...
// Q4.3 of datagen/ssb over its five tables (lineorder and the customer,
// supplier, part and dates dimensions) at each --sf scale factor from
// --seed, every engine loaded with the same records, answers checked
// against DuckDB's by checksum.

// ssbQueries are the suite's queries, named as the specification numbers
// them (Q1.1 ...); names picks some, by those names (case and the Q
// optional), all when empty.
func ssbQueries(names string) ([]benchQuery, error) {
	var all []benchQuery
	for _, q := range ssb.Queries {
		all = append(all, benchQuery{Name: q.Name, Table: "ssb", SQL: q.SQL})
	}
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []benchQuery
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		want := "Q" + strings.TrimPrefix(strings.ToUpper(name), "Q")
		i := 0
		for i < len(all) && all[i].Name != want {
			i++
		}
		if i == len(all) {
			return nil, fmt.Errorf("unknown SSB query %q (Q1.1 ... Q4.3)", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// parseSSBScaleFactors parses --sf for the SSB suite.
func parseSSBScaleFactors(s string) ([]float64, error) {
	return parseFactors(s, func(v float64) error {
		_, err := ssb.New(v, 0)
		return err
	})
}

// runSSB measures the SSB queries at every scale factor. A result's Rows
// is the scale factor's lineorder row count.
func runSSB(ctx context.Context, cfg *config, rep *report, engines []engine, stderr io.Writer) error {
	rep.ScaleFactors = cfg.sfs
	for _, sf := range cfg.sfs {
		g, err := ssb.New(sf, cfg.seed)
		if err != nil {
			return err
		}
		sets, lineorders, err := ssbSets(ctx, cfg, g, stderr)
		if err != nil {
			return err
		}
		rep.Rows = append(rep.Rows, lineorders)
		err = loadSets(ctx, engines, sets, fmt.Sprintf("SSB SF %g", sf), stderr)
		for _, q := range cfg.queries {
			if err != nil {
				break
			}
			var rows []resultRow
			if rows, err = measureQuery(ctx, cfg, q, lineorders, nil, engines, stderr); err == nil {
				rep.add(cfg, rows)
			}
		}
		for _, s := range sets {
			release(s.recs)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ssbSets generates the five tables of g, in memory or (--data) as
// Parquet files written once, and returns them with lineorder's row
// count.
func ssbSets(ctx context.Context, cfg *config, g *ssb.Generator, stderr io.Writer) ([]loadSet, int, error) {
	sf := g.ScaleFactor()
	if cfg.data != "" {
		d, err := openDataSet(ctx, cfg.data, ssbKey(sf, cfg.seed), ssbGens(g), stderr)
		if err != nil {
			return nil, 0, err
		}
		return d.sets(), int(d.table(ssb.LineOrder.String()).Rows), nil
	}
	t0 := time.Now()
	sets, lineorders, err := generatedSets(ctx, ssb.Tables, ssb.LineOrder, g.Records, ssb.Schema)
	if err != nil {
		return nil, 0, err
	}
	fmt.Fprintf(stderr, "generated SSB SF %g (%d lineorders) in %.1fs\n", sf, lineorders, time.Since(t0).Seconds())
	return sets, lineorders, nil
}

// ssbKey is the SSB data set's key: its rows depend on the scale factor
// and the seed.
func ssbKey(sf float64, seed int64) string {
	return "ssb-sf" + strconv.FormatFloat(sf, 'g', -1, 64) + "-seed" + strconv.FormatInt(seed, 10)
}

// ssbGens generate the five SSB tables in parallel ranges.
func ssbGens(g *ssb.Generator) []tableGen {
	out := make([]tableGen, 0, len(ssb.Tables))
	for _, t := range ssb.Tables {
		out = append(out, tableGen{name: t.String(), schema: ssb.Schema(t),
			gen: rangeGen(1, g.RangeRows(t), dataChunk, func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
				return g.GenerateRange(ctx, t, start, n, 0, emit)
			})})
	}
	return out
}
