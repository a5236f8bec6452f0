package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
)

// Result statuses.
const (
	statusOK    = "ok"    // agrees with the reference engine (or is the reference)
	statusFail  = "FAIL"  // ran, but its rows differ from the reference's
	statusError = "ERROR" // the engine returned an error
)

// runSuite opens the engines, and for each data size loads the table into
// every engine and measures the queries that read it.
func runSuite(ctx context.Context, cfg *config, stdout, stderr io.Writer) (*report, error) {
	rep := newReport(cfg)
	engines, hasGPU, err := openEngines(ctx, cfg, rep, stderr)
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	switch cfg.suite {
	case "random", "shapes":
		err := runRandom(ctx, cfg, rep, engines, stderr)
		rep.finish()
		return rep, err
	case "tpch":
		err := runTPCH(ctx, cfg, rep, engines, stderr)
		rep.finish()
		return rep, err
	case "ssb":
		err := runSSB(ctx, cfg, rep, engines, stderr)
		rep.finish()
		return rep, err
	case "clickbench":
		// Cold runs regenerate and reload hits for every query and
		// engine: only at the sizes --cold-rows names.
		var cold *coldRunner
		if cfg.cold && cfg.coldRows != nil {
			if cold, err = newColdRunner(ctx, rep.Engines, stderr); err != nil {
				return nil, err
			}
			defer cold.Close()
		}
		err := runClickBench(ctx, cfg, rep, engines, cold, stderr)
		rep.finish()
		return rep, err
	}
	redactRows := cfg.redactRows
	if redactRows == nil {
		if hasGPU {
			redactRows = []int{600_000, 10_000_000, 100_000_000}
		} else {
			redactRows = append([]int{600_000}, cfg.rows...)
			slices.Sort(redactRows)
			redactRows = slices.Compact(redactRows)
		}
	}
	rep.Rows, rep.RedactRows = cfg.rows, redactRows

	type dataset struct {
		table string
		rows  int
	}
	var sets []dataset
	for _, table := range []string{"logs", "people"} {
		counts := cfg.rows
		if table == "people" {
			counts = redactRows
		}
		if !slices.ContainsFunc(cfg.queries, func(q benchQuery) bool { return q.Table == table }) {
			continue
		}
		for _, n := range counts {
			sets = append(sets, dataset{table, n})
		}
	}
	var cold *coldRunner
	if cfg.cold {
		var err error
		if cold, err = newColdRunner(ctx, rep.Engines, stderr); err != nil {
			return nil, err
		}
		defer cold.Close()
	}
	coldAt := func(table string, rows int) bool {
		if cfg.coldRows != nil {
			return slices.Contains(cfg.coldRows, rows)
		}
		smallest := -1
		for _, ds := range sets {
			if ds.table == table && (smallest < 0 || ds.rows < smallest) {
				smallest = ds.rows
			}
		}
		return rows == smallest
	}
	for _, ds := range sets {
		set, err := microSet(ctx, cfg, ds.table, ds.rows, stderr)
		if err != nil {
			return nil, err
		}
		if err := loadSets(ctx, engines, []loadSet{set}, ds.table, stderr); err != nil {
			release(set.recs)
			return nil, err
		}
		for _, q := range cfg.queries {
			if q.Table != ds.table {
				continue
			}
			rows, err := measureQuery(ctx, cfg, q, ds.rows, set.cols, engines, stderr)
			if err != nil {
				return nil, err
			}
			if cold != nil && coldAt(ds.table, ds.rows) {
				cold.measure(ctx, "", q, ds.rows, cfg.seed, rows, stderr)
			}
			rep.add(cfg, rows)
		}
		release(set.recs)
	}
	sortResults(rep.Results, cfg.queries, cfg.engines)
	rep.finish()
	return rep, nil
}

// sortResults orders results by query (suite order), rows, then engine
// (command-line order).
func sortResults(rs []resultRow, queries []benchQuery, engines []string) {
	qi := map[string]int{}
	for i, q := range queries {
		qi[q.Name] = i
	}
	ei := map[string]int{}
	for i, e := range engines {
		ei[e] = i
	}
	sort.SliceStable(rs, func(a, b int) bool {
		x, y := rs[a], rs[b]
		if qi[x.Query] != qi[y.Query] {
			return qi[x.Query] < qi[y.Query]
		}
		if x.Rows != y.Rows {
			return x.Rows < y.Rows
		}
		return ei[x.Engine] < ei[y.Engine]
	})
}

// microSet generates a table of the micro suite, in memory or (--data)
// as a Parquet file written once.
func microSet(ctx context.Context, cfg *config, table string, rows int, stderr io.Writer) (loadSet, error) {
	gen := func() (*arrow.Schema, []arrow.Record) {
		t0 := time.Now()
		schema, recs := generate(table, rows, cfg.seed)
		fmt.Fprintf(stderr, "generated %s: %d rows in %.1fs\n", table, rows, time.Since(t0).Seconds())
		return schema, recs
	}
	if cfg.data == "" {
		schema, recs := gen()
		return memorySet(table, schema, recs), nil
	}
	schema, _ := generate(table, 0, cfg.seed)
	tg := tableGen{name: table, schema: schema, gen: func(ctx context.Context, emit func(arrow.Record) error) error {
		_, recs := gen()
		return recordsGen(recs)(ctx, emit)
	}}
	d, err := openDataSet(ctx, cfg.data, countKey(table, rows, cfg.seed), []tableGen{tg}, stderr)
	if err != nil {
		return loadSet{}, err
	}
	return d.sets()[0], nil
}

// generate builds a table of the suite.
func generate(table string, rows int, seed int64) (*arrow.Schema, []arrow.Record) {
	if table == "people" {
		return datagen.People(rows, seed)
	}
	return Logs(rows, seed)
}

// measureQuery runs one query on every engine: an untimed warm-up run whose
// rows are checksummed, the placement (GPU engines), then cfg.runs timed
// runs. It then compares every engine's checksum with the reference's.
// cols holds the Arrow bytes of each column of the query's table (the
// input bytes of GB/s; nil for TPC-H, whose queries read several tables).
func measureQuery(ctx context.Context, cfg *config, q benchQuery, rows int, cols map[string]int64,
	engines []engine, stderr io.Writer) ([]resultRow, error) {
	in := inputBytes(cols, q.Cols)
	out := make([]resultRow, 0, len(engines))
	sums := make([]*Checksum, len(engines))
	ans := make([]*answers.Answer, len(engines))
	for i, e := range engines {
		r := resultRow{Query: q.Name, Table: q.Table, Rows: rows, Engine: e.Name(), InputBytes: in, Runs: cfg.runs}
		text := q.sqlFor(e.Name())
		if text != q.SQL {
			r.Variant = q.VariantWhy
		}
		fmt.Fprintf(stderr, "%s @ %d rows on %s ...\n", q.Name, rows, e.Name())
		c := newChecksum(cfg.keepRows)
		var res result
		var err error
		warmStart := time.Now()
		qctx, cancel := queryContext(ctx, cfg)
		if q.clickbench > 0 || q.random != nil {
			var a answers.Answer
			if a, res, err = e.Answer(qctx, text); err == nil {
				ans[i] = &a
				for _, row := range a.Rows {
					c.AddRow([]byte(strings.Join(row, "\t")))
				}
			}
		} else {
			res, err = e.Run(qctx, text, c)
		}
		cancel()
		if err != nil {
			r.Status, r.Error = statusError, timeoutText(cfg, err)
			out = append(out, r)
			continue
		}
		sums[i] = c
		r.OutRows, r.OutputBytes, r.Checksum = res.Rows, res.OutBytes, c.String()
		if g, ok := e.(gpuEngine); ok {
			// Warm means the fused kernels: the warm-up run may have been
			// answered by the interpreter while they compiled.
			if err := g.Settle(ctx); err != nil {
				return nil, err
			}
			plan, err := g.Explain(ctx, text)
			if err != nil {
				r.Status, r.Error = statusError, fmt.Sprintf("placement: %v", err)
				out = append(out, r)
				continue
			}
			gpuOps, cpuOps := countPlacement(plan)
			r.GPUOps, r.CPUOps, r.Plan = &gpuOps, &cpuOps, plan
		}
		var before uint64
		if g, ok := e.(gpuEngine); ok {
			if before, err = g.Launches(); err != nil {
				return nil, err
			}
		}
		warmUp := time.Since(warmStart)
		times := make([]time.Duration, 0, cfg.runs)
		stopProfile, err := startProfile(cfg, q.Name, rows, e.Name())
		if err != nil {
			return nil, err
		}
		for k := 0; k < cfg.runs && err == nil; k++ {
			qctx, cancel := queryContext(ctx, cfg)
			t0 := time.Now()
			_, err = e.Run(qctx, text, nil)
			times = append(times, time.Since(t0))
			cancel()
		}
		stopProfile()
		// Progress with times, so that a run cut short still tells where
		// its time went.
		fmt.Fprintf(stderr, "  %s on %s: checked run and placement %v, timed %v\n", q.Name, e.Name(), warmUp.Round(time.Microsecond), times)
		if err != nil {
			r.Status, r.Error = statusError, fmt.Sprintf("timed run: %v", timeoutText(cfg, err))
			out = append(out, r)
			continue
		}
		if g, ok := e.(gpuEngine); ok {
			after, err := g.Launches()
			if err != nil {
				return nil, err
			}
			l := float64(after-before) / float64(cfg.runs)
			r.LaunchesPerRun = &l
		}
		sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
		r.MedianMs = ms(median(times))
		r.MinMs, r.MaxMs = ms(times[0]), ms(times[len(times)-1])
		r.Status = statusOK
		out = append(out, r)
	}
	switch {
	case q.random != nil:
		compareRandom(out, ans, q.random)
	case q.clickbench > 0:
		compareAnswers(ctx, q, rows, out, ans, engines)
	default:
		compareResults(out, sums)
	}
	// The verdict as progress too: a run cut short by its caller's limit
	// never reaches the report, but still tells which answers agreed.
	verdicts := make([]string, len(out))
	for i, r := range out {
		verdicts[i] = r.Engine + "=" + r.Status
	}
	fmt.Fprintf(stderr, "  %s checked: %s\n", q.Name, strings.Join(verdicts, " "))
	// One output size for every engine: the first gsql engine's (DuckDB's
	// Arrow types can be wider, e.g. SUM as a 128-bit decimal).
	outBytes := int64(-1)
	for _, r := range out {
		if r.Status != statusError && r.Engine != "duckdb" {
			outBytes = r.OutputBytes
			break
		}
	}
	for _, r := range out {
		if outBytes < 0 && r.Status != statusError {
			outBytes = r.OutputBytes
		}
	}
	duckMs := 0.0
	for _, r := range out {
		if r.Engine == "duckdb" && r.Status == statusOK {
			duckMs = r.MedianMs
		}
	}
	for i := range out {
		r := &out[i]
		if r.Status == statusError || r.MedianMs <= 0 {
			continue
		}
		if outBytes >= 0 {
			r.GBPerSec = float64(r.InputBytes+outBytes) / (r.MedianMs / 1e3) / 1e9
		}
		r.RowsPerSec = float64(rows) / (r.MedianMs / 1e3)
		if duckMs > 0 {
			r.SpeedupVsDuckDB = duckMs / r.MedianMs
		}
	}
	return out, nil
}

// compareResults marks engines whose rows differ from the reference's:
// DuckDB when it ran, else the first engine without an error.
func compareResults(out []resultRow, sums []*Checksum) {
	ref := -1
	for i := range out {
		if sums[i] != nil && (ref < 0 || out[i].Engine == "duckdb") {
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
		out[i].Reference = out[ref].Engine
		if i == ref || sums[i] == nil || sums[i].Equal(sums[ref]) {
			continue
		}
		out[i].Status = statusFail
		out[i].Diff = fmt.Sprintf("checksum %s vs %s's %s", sums[i], out[ref].Engine, sums[ref])
		a, b := sums[i].Sorted(), sums[ref].Sorted()
		if a != nil && b != nil {
			out[i].Diff += "; " + firstDifference(a, b)
		}
	}
}

// compareAnswers marks engines whose ClickBench answers differ from the
// reference's (DuckDB when it answered, else the first engine that did)
// under datagen/clickbench/answers's rules. The checks that need the data
// (Q25's witness above TieFreeRows, Q18's group counts) run on the
// reference engine, for every engine's answer, the reference's included.
func compareAnswers(ctx context.Context, q benchQuery, rows int, out []resultRow, ans []*answers.Answer, engines []engine) {
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
	check := answers.For(q.clickbench, q.SQL, int64(rows))
	var witness *answers.Answer
	if w := check.Witness; w != nil {
		a, _, err := engines[ref].Answer(ctx, w.SQL)
		if err != nil {
			for i := range out {
				if ans[i] != nil {
					out[i].Status, out[i].Diff = statusFail, fmt.Sprintf("not checked: the witness query failed on %s: %v", out[ref].Engine, err)
				}
			}
			return
		}
		witness = &a
	}
	for i := range out {
		if ans[i] == nil {
			continue
		}
		out[i].Reference = out[ref].Engine
		if err := checkAnswer(ctx, q, check, *ans[i], *ans[ref], witness, i == ref, engines[ref]); err != nil {
			out[i].Status, out[i].Diff = statusFail, err.Error()
		}
	}
}

// checkAnswer checks one engine's answer: against the reference's (unless
// it is the reference), the witness's rows and the probes' counts.
func checkAnswer(ctx context.Context, q benchQuery, check answers.Check, got, want answers.Answer, witness *answers.Answer, isRef bool, ref engine) error {
	if !isRef {
		if err := answers.Compare(got, want, check); err != nil {
			return err
		}
	}
	if witness != nil {
		if err := check.Witness.Check(got, *witness); err != nil {
			return fmt.Errorf("against the witness on %s: %w", ref.Name(), err)
		}
	}
	probes, err := answers.Probes(q.clickbench, got)
	if err != nil {
		return err
	}
	for _, p := range probes {
		a, _, err := ref.Answer(ctx, p.SQL)
		if err != nil {
			return fmt.Errorf("probe on %s: %w", ref.Name(), err)
		}
		if err := p.Check(a); err != nil {
			return fmt.Errorf("probe on %s: %w", ref.Name(), err)
		}
	}
	return nil
}

func median(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// openEngines opens the selected engines (skipping, with the reason, those
// that cannot run here) and measures the device copy bandwidth when a GPU
// engine is among them.
func openEngines(ctx context.Context, cfg *config, rep *report, stderr io.Writer) ([]engine, bool, error) {
	var engines []engine
	for _, name := range cfg.engines {
		e, err := openEngine(name)
		if errors.Is(err, errUnavailable) {
			fmt.Fprintf(stderr, "skipping %s: %v\n", name, err)
			rep.Skipped = append(rep.Skipped, skipped{Engine: name, Reason: err.Error()})
			continue
		}
		if err != nil {
			return engines, false, err
		}
		engines = append(engines, e)
		rep.Engines = append(rep.Engines, name)
		if d, ok := e.(*duckEngine); ok {
			rep.DuckDBVersion = d.Version(ctx)
		}
	}
	if len(engines) == 0 {
		return nil, false, errors.New("none of the selected engines can run here")
	}
	hasGPU := false
	for _, e := range engines {
		if _, ok := e.(gpuEngine); ok {
			hasGPU = true
		}
	}
	if hasGPU {
		rep.CopyBandwidth = "device copy bandwidth: not measured"
		for _, e := range engines {
			if g, ok := e.(*gsqlEngine); ok {
				if bw, err := g.db.CopyBandwidth(); err == nil {
					rep.CopyGBps = bw / 1e9
					rep.CopyBandwidth = fmt.Sprintf("device copy bandwidth: %.0f GB/s (1 GiB device-to-device, read + write, median of 5); 'of copy' = GB/s / that", rep.CopyGBps)
					break
				}
			}
		}
	}
	return engines, hasGPU, nil
}

// startProfile starts a CPU profile of one query's timed runs on a gsql
// engine when --cpuprofile names a directory; the returned func stops it.
func startProfile(cfg *config, query string, rows int, engine string) (func(), error) {
	if cfg.profileDir == "" || !strings.HasPrefix(engine, "gsql") {
		return func() {}, nil
	}
	if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	f, err := os.Create(filepath.Join(cfg.profileDir, fmt.Sprintf("%s-%d-%s.prof", query, rows, engine)))
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
