// Command bench runs gsql's benchmark suite side by side with DuckDB: it
// generates the data sets deterministically (the redact people table of
// DESIGN.md and a log-like table), loads them into every engine, runs each
// query warm several times, checks that all engines return the same rows
// (a checksum of the canonical output rows) and writes a table on stdout, a
// JSON report and an SVG chart of the speedups over DuckDB.
//
// It lives in its own Go module so that the engine never depends on DuckDB.
// See README.md for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/internal/bytesize"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gsqlengine/gsql/datagen/clickbench"
)

// clickbenchDefaultRows is --rows for --suite clickbench when not given:
// small enough for a CPU run of every query on every engine.
const clickbenchDefaultRows = "1000000"

// config holds the parsed command line.
type config struct {
	engines    []string
	rows       []int
	redactRows []int
	runs       int
	out        string
	queries    []benchQuery
	seed       int64
	keepRows   int
	command    string
	// cold: also time each query's first run in a fresh process, at the
	// coldRows sizes (nil: the smallest of each table).
	cold     bool
	coldRows []int
	suite    string    // "micro" (the queries of queries.go), "tpch", "ssb", "clickbench", "random" or "shapes"
	sfs      []float64 // TPC-H or SSB scale factors
	// profileDir, when set, receives a CPU profile of each query's timed
	// runs per gsql engine (QUERY-ROWS-ENGINE.prof).
	profileDir string
	// count is the number of generated queries (--suite random).
	count int
	// data, when set, is the directory of the Parquet files the engines
	// load from (written once per data set and reused).
	data string
	// timeout bounds each run of a query on an engine (0: none), so a
	// query that one engine cannot finish is an ERROR, not a hung run.
	timeout time.Duration
	// params is the TPC-H substitution parameters: paramsValidation (the
	// specification's) or paramsRandom (qgen's draws from seed, sets of
	// them).
	params string
	sets   int
}

// The --params values.
const (
	paramsValidation = "validation"
	paramsRandom     = "random"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run is main without the process exit, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if ok, err := runChild(ctx, args, stdout); ok {
		return err
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	rep, err := runSuite(ctx, cfg, stdout, stderr)
	if err != nil {
		return err
	}
	return writeOutputs(cfg, rep, stdout)
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engines := fs.String("engines", strings.Join(defaultEngines, ","), "comma-separated engines: "+strings.Join(engineNames, ", ")+" (GPU engines are skipped, with the reason, where no GPU can be opened)")
	rows := fs.String("rows", "1000000,10000000", "row counts of the logs table (--suite micro) or of hits (--suite clickbench, default "+clickbenchDefaultRows+")")
	redact := fs.String("redact-rows", "", "row counts of the people table for the redact query (default: 600000,10000000,100000000 when a GPU engine runs, else 600000 plus the --rows counts)")
	runs := fs.Int("runs", 5, "timed runs per query and engine (after one untimed warm-up run)")
	out := fs.String("out", "out", "directory for results.json and speedup.svg")
	queries := fs.String("queries", "", "comma-separated query names (default all): "+strings.Join(queryNames(), ", "))
	seed := fs.Int64("seed", 42, "data generator seed")
	suite := fs.String("suite", "micro", "micro (gsql's own queries over generated logs and people tables), tpch (the 22 TPC-H queries), ssb (the 13 Star Schema Benchmark queries over tables generated from --seed), clickbench (the 43 ClickBench queries), random (--count generated queries over hits and TPC-H, from --seed) or shapes (issue 40's five regression shapes over hits)")
	count := fs.Int("count", 50, "number of generated queries (--suite random)")
	timeout := fs.Duration("timeout", 0, "limit on each run of a query on an engine, 0 for none (default 2m with --suite random or shapes)")
	sf := fs.String("sf", "1", "scale factors, comma-separated (--suite tpch and ssb)")
	keep := fs.Int("keep-rows", 1<<20, "results of at most this many rows are kept to show the first differing row on a mismatch")
	cold := fs.Bool("cold", true, "also time each query's first run in a fresh process (the cold column)")
	coldRows := fs.String("cold-rows", "", "table sizes at which cold runs are timed (default: the smallest size of each table)")
	sqlFile := fs.String("sql", "", "a file of extra queries over hits (--suite clickbench), one per line as NAME<tab>SQL: timed with their plans, compared across engines by checksum")
	profileDir := fs.String("cpuprofile", "", "directory for a CPU profile of each query's timed runs on each gsql engine")
	params := fs.String("params", paramsValidation, "TPC-H substitution parameters (--suite tpch): validation (the specification's) or random (qgen's ranges, drawn from --seed)")
	sets := fs.Int("sets", 1, "number of random parameter sets, each run over the selected queries (--suite tpch --params random)")
	devices := fs.String("devices", "", "GPUs the GPU engines open: all, or GPU numbers such as 0,1 (default: GPU 0)")
	poolLimit := fs.String("pool-limit", "", "cap the GPU engines' device memory pool, e.g. 8GiB (data larger than the GPU; default: no cap); with gsql-gpu-capped among --engines, only that engine's, the others uncapped in the same run")
	duckMemory := fs.String("duckdb-memory", "", "DuckDB's memory_limit, e.g. 40GiB, so that DuckDB spills to its temp directory instead of the bench process being killed when DuckDB, gsql and the generated tables share the host (default: DuckDB's own, 80% of RAM)")
	data := fs.String("data", "", "directory of Parquet files: each suite's tables are written there once (reused when complete) and every engine loads them through its own Parquet reader, so the bench process never holds the generated copy beside the engines'")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	limit, err := bytesize.Parse(*poolLimit)
	if err != nil {
		return nil, fmt.Errorf("--pool-limit: %w", err)
	}
	gsqlPoolLimit = limit
	if duckdbMemoryLimit, err = bytesize.Parse(*duckMemory); err != nil {
		return nil, fmt.Errorf("--duckdb-memory: %w", err)
	}
	if *devices != "" {
		// Checked here, so that a typo is a flag error rather than a GPU
		// engine reported unavailable.
		db, err := gsql.Open(gsql.Options{Device: "cpu", Devices: *devices})
		if err != nil {
			return nil, fmt.Errorf("--devices: %w", err)
		}
		db.Close()
	}
	gsqlDevices = *devices
	cfg := &config{runs: *runs, out: *out, seed: *seed, keepRows: *keep, cold: *cold,
		command: "bench " + strings.Join(args, " "), profileDir: *profileDir, count: *count, timeout: *timeout, data: *data, params: *params, sets: *sets}
	if cfg.runs < 1 {
		return nil, fmt.Errorf("--runs must be at least 1, got %d", cfg.runs)
	}
	for _, e := range strings.Split(*engines, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		known := false
		for _, k := range engineNames {
			known = known || k == e
		}
		if !known {
			return nil, fmt.Errorf("unknown engine %q (have %s)", e, strings.Join(engineNames, ", "))
		}
		cfg.engines = append(cfg.engines, e)
	}
	if len(cfg.engines) == 0 {
		return nil, errors.New("no engines selected")
	}
	capOnlyCapped = slices.Contains(cfg.engines, "gsql-gpu-capped")
	if capOnlyCapped && gsqlPoolLimit == 0 {
		return nil, errors.New("gsql-gpu-capped needs --pool-limit")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	rowsSet := set["rows"]
	if *suite == "clickbench" && !rowsSet {
		*rows = clickbenchDefaultRows
	}
	if cfg.rows, err = parseCounts(*rows); err != nil {
		return nil, fmt.Errorf("--rows: %w", err)
	}
	if *redact != "" {
		if cfg.redactRows, err = parseCounts(*redact); err != nil {
			return nil, fmt.Errorf("--redact-rows: %w", err)
		}
	}
	if *coldRows != "" {
		if cfg.coldRows, err = parseCounts(*coldRows); err != nil {
			return nil, fmt.Errorf("--cold-rows: %w", err)
		}
	}
	cfg.suite = *suite
	switch {
	case cfg.params != paramsValidation && cfg.params != paramsRandom:
		return nil, fmt.Errorf("--params: unknown %q (validation or random)", cfg.params)
	case cfg.params == paramsRandom && cfg.suite != "tpch":
		return nil, fmt.Errorf("--params random is for --suite tpch, not %s", cfg.suite)
	case cfg.sets < 1:
		return nil, fmt.Errorf("--sets must be at least 1, got %d", cfg.sets)
	case set["sets"] && cfg.params != paramsRandom:
		return nil, errors.New("--sets needs --params random")
	}
	switch cfg.suite {
	case "micro":
		if cfg.queries, err = selectQueries(*queries); err != nil {
			return nil, fmt.Errorf("--queries: %w", err)
		}
	case "tpch":
		if cfg.queries, err = tpchQueries(*queries); err != nil {
			return nil, fmt.Errorf("--queries: %w", err)
		}
		if cfg.sfs, err = parseScaleFactors(*sf); err != nil {
			return nil, fmt.Errorf("--sf: %w", err)
		}
	case "ssb":
		if cfg.queries, err = ssbQueries(*queries); err != nil {
			return nil, fmt.Errorf("--queries: %w", err)
		}
		if cfg.sfs, err = parseSSBScaleFactors(*sf); err != nil {
			return nil, fmt.Errorf("--sf: %w", err)
		}
	case "clickbench":
		if cfg.queries, err = clickbenchQueries(*queries); err != nil {
			return nil, fmt.Errorf("--queries: %w", err)
		}
		if *sqlFile != "" {
			extra, err := extraQueries(*sqlFile)
			if err != nil {
				return nil, fmt.Errorf("--sql: %w", err)
			}
			cfg.queries = append(cfg.queries, extra...)
		}
	case "random", "shapes":
		if err := randomConfig(cfg, set, *sf, *queries); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--suite: unknown suite %q (micro, tpch, ssb, clickbench, random or shapes)", cfg.suite)
	}
	return cfg, nil
}

// parseCounts parses "1000000,10M,1e6"-style row counts.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mult := 1.0
		switch {
		case strings.HasSuffix(f, "K"), strings.HasSuffix(f, "k"):
			mult, f = 1e3, f[:len(f)-1]
		case strings.HasSuffix(f, "M"), strings.HasSuffix(f, "m"):
			mult, f = 1e6, f[:len(f)-1]
		case strings.HasSuffix(f, "G"), strings.HasSuffix(f, "g"):
			mult, f = 1e9, f[:len(f)-1]
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v*mult < 0 || v*mult > 1e10 || v*mult != float64(int64(v*mult)) {
			return nil, fmt.Errorf("bad row count %q", f)
		}
		out = append(out, int(v*mult))
	}
	if len(out) == 0 {
		return nil, errors.New("no row counts")
	}
	return out, nil
}

// writeOutputs prints the table and writes the JSON report and the chart.
func writeOutputs(cfg *config, rep *report, stdout io.Writer) error {
	if err := writeTable(stdout, rep); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if cfg.suite == "random" || cfg.suite == "shapes" {
		if err := writeRandomReport(stdout, cfg, rep); err != nil {
			return fmt.Errorf("random suite report: %w", err)
		}
	}
	if cfg.params == paramsRandom {
		writeParamsReport(stdout, cfg, rep)
	}
	if cfg.out == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	jsonPath := filepath.Join(cfg.out, "results.json")
	if err := writeJSONFile(jsonPath, rep); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(cfg.out, partialName)) // the whole report is written
	svgPath := filepath.Join(cfg.out, "speedup.svg")
	f, err := os.Create(svgPath)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if err := writeSVG(f, chartFromReport(rep)); err != nil {
		f.Close()
		return fmt.Errorf("chart: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	fmt.Fprintf(stdout, "\nwrote %s and %s\n", jsonPath, svgPath)
	return nil
}

// extraQueries reads --sql's file: lines of NAME<tab>SQL over hits (blank
// lines and lines starting with # skipped), to time a query's parts.
func extraQueries(path string) ([]benchQuery, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []benchQuery
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, sql, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(sql) == "" {
			return nil, fmt.Errorf("%s:%d: want NAME<tab>SQL", path, i+1)
		}
		out = append(out, benchQuery{Name: strings.TrimSpace(name), Table: clickbench.TableName, SQL: sql, Cols: hitsColumns(sql)})
	}
	return out, nil
}
