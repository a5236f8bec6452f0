package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/clickbench/queries"
)

// The ClickBench suite (--suite clickbench): the 43 published queries of
// datagen/clickbench/queries over the hits table of datagen/clickbench
// at each --rows size, every engine loaded with the same records, answers
// compared with DuckDB's under datagen/clickbench/answers's tie-tolerant
// rules (the rules of gsql's ClickBench test).

// gsqlEngines are the engines that run gsql's dialect of the queries.
var gsqlEngines = []string{"gsql-cpu", "gsql-gpu", "gsql-gpu-all", "gsql-gpu-capped", "gsql-gpu-library", "gsql-auto"}

// clickbenchVariantWhy says why gsql runs another text than the
// published one (queries.Query against queries.Published).
const clickbenchVariantWhy = "gsql's string literals take MySQL's backslash escapes, so its text doubles the backslashes of the published '(?:www\\.)?' and '\\1' (datagen/clickbench/queries/README.md); DuckDB runs the published text"

// clickbenchQueries are the suite's queries, named q01 ... q43: SQL is the
// published text (DuckDB's), with gsql's dialect as the gsql engines'
// variant where it differs (Q29); Cols are the hits columns each reads.
func clickbenchQueries(names string) ([]benchQuery, error) {
	var all []benchQuery
	for n := 1; n <= queries.Count; n++ {
		pub, err := queries.Published(n)
		if err != nil {
			return nil, err
		}
		own, err := queries.Query(n)
		if err != nil {
			return nil, err
		}
		q := benchQuery{Name: fmt.Sprintf("q%02d", n), Table: clickbench.TableName, SQL: pub,
			Cols: hitsColumns(pub), clickbench: n}
		if own != pub {
			q.Variants = map[string]string{}
			for _, e := range gsqlEngines {
				q.Variants[e] = own
			}
			q.VariantWhy = clickbenchVariantWhy
		}
		all = append(all, q)
	}
	return pickNumbered(all, names, "ClickBench")
}

// hitsColumns are the columns of hits that q names (all of them for
// SELECT *), for the input bytes of GB/s.
func hitsColumns(q string) []string {
	var out []string
	for _, f := range clickbench.Schema().Fields() {
		if strings.Contains(q, "SELECT *") || regexp.MustCompile(`\b`+f.Name+`\b`).MatchString(q) {
			out = append(out, f.Name)
		}
	}
	return out
}

// runClickBench measures the ClickBench queries at every --rows size.
//
// Memory: hits is generated once per size as Arrow records; the gsql
// engines register those records without copying them (one copy however
// many gsql engines run), and DuckDB copies them into its own storage
// through a zero-copy Arrow scan. So a size needs its Arrow bytes (printed
// when generated, ~0.9 KB a row: every integer column is a BIGINT) plus
// DuckDB's table. The previous size's tables are dropped before the next
// is generated.
//
// With cold != nil, each query's first run in a fresh process is timed at
// the --cold-rows sizes (the child generates and loads hits itself).
func runClickBench(ctx context.Context, cfg *config, rep *report, engines []engine, cold *coldRunner, stderr io.Writer) error {
	rep.Rows = cfg.rows
	for si, rows := range cfg.rows {
		if si > 0 {
			for _, e := range engines {
				if err := e.Exec(ctx, "DROP TABLE IF EXISTS "+clickbench.TableName); err != nil {
					return fmt.Errorf("%s: drop %s: %w", e.Name(), clickbench.TableName, err)
				}
			}
			runtime.GC()
			debug.FreeOSMemory()
		}
		g, err := clickbench.New(int64(rows), uint64(cfg.seed))
		if err != nil {
			return err
		}
		set, err := hitsSet(ctx, cfg, g, stderr)
		if err != nil {
			return err
		}
		if err := loadSets(ctx, engines, []loadSet{set}, clickbench.TableName, stderr); err != nil {
			release(set.recs)
			return err
		}
		for _, q := range cfg.queries {
			res, err := measureQuery(ctx, cfg, q, rows, set.cols, engines, stderr)
			if err != nil {
				return err
			}
			if cold != nil && slices.Contains(cfg.coldRows, rows) {
				cold.measure(ctx, "clickbench", q, rows, cfg.seed, res, stderr)
			}
			rep.add(cfg, res)
		}
		release(set.recs)
	}
	return nil
}

// hitsSet generates hits, in memory or (--data) as a Parquet file written
// once (its records released as they are written).
func hitsSet(ctx context.Context, cfg *config, g *clickbench.Generator, stderr io.Writer) (loadSet, error) {
	rows := int(g.Rows())
	heapGoal(rows, stderr)
	if cfg.data != "" {
		d, err := openDataSet(ctx, cfg.data, countKey(clickbench.TableName, rows, cfg.seed), []tableGen{hitsGen(g)}, stderr)
		if err != nil {
			return loadSet{}, err
		}
		return d.sets()[0], nil
	}
	t0 := time.Now()
	recs, err := g.Records(ctx)
	if err != nil {
		return loadSet{}, err
	}
	fmt.Fprintf(stderr, "generated hits: %d rows (%.2f GB of Arrow buffers) in %.1fs\n", rows, float64(recordsBytes(recs))/1e9, time.Since(t0).Seconds())
	return memorySet(clickbench.TableName, clickbench.Schema(), recs), nil
}

// recordsBytes sums the Arrow buffer bytes of records.
func recordsBytes(recs []arrow.Record) int64 {
	var b int64
	for _, r := range recs {
		b += recordBytesV17(r)
	}
	return b
}

// bigHeapRows is the table size from which the bench lowers the
// collector's growth target: at 100M rows hits is ~84 GB of live Go
// memory, and the default target (twice the live heap) leaves room for
// ~84 GB of garbage beside DuckDB's ~116 GB, more than a 256 GiB host
// has. Its buffers hold no pointers, so collecting more often is cheap.
// A limit near the live heap (GOMEMLIMIT) would instead collect without
// pause.
const bigHeapRows = 50_000_000

// heapGoal sets GOGC to 20 for tables of bigHeapRows and more, unless the
// environment sets GOGC.
func heapGoal(rows int, stderr io.Writer) {
	if rows < bigHeapRows || os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(20)
	fmt.Fprintf(stderr, "%d rows: GOGC=20 (the collector runs when the heap grows 20%% past the live data)\n", rows)
}
