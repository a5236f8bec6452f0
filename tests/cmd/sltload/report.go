package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gsqlengine/gsql/gpuexec"
)

// reportConfig is the report command's flags.
type reportConfig struct {
	loaded, alone string
	compileLogs   []string
	maxRatio      float64
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func reportCmd(args []string, stdout io.Writer) error {
	var c reportConfig
	fs := flag.NewFlagSet("sltload report", flag.ContinueOnError)
	fs.StringVar(&c.loaded, "loaded", "", "directory of the loaded run's JSON reports (required)")
	fs.StringVar(&c.alone, "alone", "", "directory of the same shards' reports, each run alone")
	fs.Var((*listFlag)(&c.compileLogs), "compile-log", "a GSQL_COMPILE_LOG file to summarise (repeatable)")
	fs.Float64Var(&c.maxRatio, "max-ratio", 3, "the loaded/alone p99 ratio the check allows")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.loaded == "" {
		return errors.New("report: -loaded is required")
	}
	loaded, err := readReports(c.loaded)
	if err != nil {
		return err
	}
	var alone []*Report
	if c.alone != "" {
		if alone, err = readReports(c.alone); err != nil {
			return err
		}
	}
	var logs []gpuexec.CompileRecord
	for _, p := range c.compileLogs {
		recs, err := readCompileLog(p)
		if err != nil {
			return err
		}
		logs = append(logs, recs...)
	}
	ok := writeReport(stdout, loaded, alone, c.compileLogs, logs, c.maxRatio)
	if !ok {
		return errors.New("report: checks failed (see above)")
	}
	return nil
}

// readReports reads every *.json report of dir, by shard.
func readReports(dir string) ([]*Report, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list reports: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.json reports in %s", dir)
	}
	var out []*Report
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read report: %w", err)
		}
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("report %s: %w", p, err)
		}
		out = append(out, &r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Shard < out[j].Shard })
	return out, nil
}

func readCompileLog(path string) ([]gpuexec.CompileRecord, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no compiles: nothing was logged
	}
	if err != nil {
		return nil, fmt.Errorf("compile log: %w", err)
	}
	defer f.Close()
	recs, err := gpuexec.ParseCompileLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// queryKey names a query across runs.
type queryKey struct {
	file string
	line int
}

// latencies pools the query latencies of reports, sorted.
func latencies(reps []*Report) []float64 {
	var ms []float64
	for _, r := range reps {
		for _, q := range r.Latencies {
			ms = append(ms, q.MS)
		}
	}
	sort.Float64s(ms)
	return ms
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// writeReport prints the per-shard and overall comparison, the failures
// and the compile summary, and says whether the load checks hold: no
// failure, overall p99 within maxRatio of alone, one compile per kernel.
func writeReport(w io.Writer, loaded, alone []*Report, logPaths []string, logs []gpuexec.CompileRecord, maxRatio float64) bool {
	byShard := map[int]*Report{}
	for _, r := range alone {
		byShard[r.Shard] = r
	}
	dev := loaded[0].Device
	fmt.Fprintf(w, "sqllogictest load: %d processes on device %s (on disk: %v)\n\n", len(loaded), dev, loaded[0].OnDisk)
	fmt.Fprintf(w, "%-6s %8s %7s %7s %11s %11s %11s %11s %8s %9s %9s\n",
		"shard", "queries", "failed", "alone", "p50 loaded", "p50 alone", "p99 loaded", "p99 alone", "p99 x", "wall s", "alone s")
	failed := 0
	for _, r := range loaded {
		failed += r.Failed
		a := byShard[r.Shard]
		if a == nil {
			fmt.Fprintf(w, "%-6d %8d %7d %7s %11.2f %11s %11.2f %11s %8s %9.1f %9s\n",
				r.Shard, r.Queries, r.Failed, "-", r.P50MS, "-", r.P99MS, "-", "-", r.WallSeconds, "-")
			continue
		}
		fmt.Fprintf(w, "%-6d %8d %7d %7d %11.2f %11.2f %11.2f %11.2f %8.2f %9.1f %9.1f\n",
			r.Shard, r.Queries, r.Failed, a.Failed, r.P50MS, a.P50MS, r.P99MS, a.P99MS, ratio(r.P99MS, a.P99MS), r.WallSeconds, a.WallSeconds)
	}
	lms := latencies(loaded)
	var total float64
	for _, v := range lms {
		total += v
	}
	fmt.Fprintf(w, "\nloaded: %d queries, %d failed, p50 %.2f ms, p99 %.2f ms, max %.2f ms, query time %.1f s\n",
		len(lms), failed, percentile(lms, 50), percentile(lms, 99), last(lms), total/1000)
	whereTimeWent(w, loaded)
	ok := failed == 0
	p99Ratio := 0.0
	if len(alone) > 0 {
		ams := latencies(alone)
		var atotal float64
		afailed := 0
		for _, v := range ams {
			atotal += v
		}
		for _, r := range alone {
			afailed += r.Failed
		}
		fmt.Fprintf(w, "alone:  %d queries, %d failed, p50 %.2f ms, p99 %.2f ms, max %.2f ms, query time %.1f s\n",
			len(ams), afailed, percentile(ams, 50), percentile(ams, 99), last(ams), atotal/1000)
		p99Ratio = ratio(percentile(lms, 99), percentile(ams, 99))
		fmt.Fprintf(w, "overall p99 ratio (loaded/alone): %.2f\n", p99Ratio)
		slowest(w, loaded, alone, maxRatio)
		if p99Ratio > maxRatio {
			ok = false
		}
	}
	if failed > 0 {
		fmt.Fprintf(w, "\nfailures of the loaded run:\n")
		n := 0
		for _, r := range loaded {
			for _, f := range r.Failures {
				if n++; n > 20 {
					break
				}
				fmt.Fprintf(w, "  shard %d %s:%d (%s) %s\n    %s\n", r.Shard, f.File, f.Line, f.Kind, firstLine(f.Actual+" "+f.Msg), firstLine(f.SQL))
			}
		}
		if n > 20 {
			fmt.Fprintf(w, "  ... %d more in the JSON reports\n", failed-20)
		}
	}
	if len(logPaths) > 0 {
		s := gpuexec.SummarizeCompiles(logs)
		fmt.Fprintf(w, "\ncompiles (%s): %d compiles of %d distinct kernels by %d processes, %.1f s in NVRTC; %d kernels compiled more than once\n",
			strings.Join(logPaths, ", "), s.Compiles, s.Kernels, s.Processes, s.Time.Seconds(), len(s.Repeated))
		for i, r := range s.Repeated {
			if i == 10 {
				fmt.Fprintf(w, "  ... %d more\n", len(s.Repeated)-10)
				break
			}
			fmt.Fprintf(w, "  %dx %s %s by pids %v\n", r.Count, r.Key, r.Name, r.PIDs)
		}
		if len(s.Repeated) > 0 {
			ok = false
		}
	}
	cut := 0
	for _, r := range append(append([]*Report(nil), loaded...), alone...) {
		if r.Cut {
			cut++
		}
	}
	if cut > 0 {
		// A run stopped at its deadline left queries out: no verdict on
		// the whole corpus.
		fmt.Fprintf(w, "\n%d of the runs stopped at their -deadline: the figures cover what ran\n", cut)
		ok = false
	}
	verdict := "PASS"
	if !ok {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: %d failures (want 0), %d runs cut (want 0)", verdict, failed, cut)
	if len(alone) > 0 {
		fmt.Fprintf(w, ", p99 ratio %.2f (want <= %.1f)", p99Ratio, maxRatio)
	}
	if len(logPaths) > 0 {
		fmt.Fprintf(w, ", %d kernels compiled more than once (want 0)", len(gpuexec.SummarizeCompiles(logs).Repeated))
	}
	fmt.Fprintln(w)
	return ok
}

// slowest prints how many queries ran more than maxRatio times slower
// loaded than alone, and the worst five.
func slowest(w io.Writer, loaded, alone []*Report, maxRatio float64) {
	aloneMS := map[queryKey]float64{}
	for _, r := range alone {
		for _, q := range r.Latencies {
			aloneMS[queryKey{q.File, q.Line}] = q.MS
		}
	}
	type slow struct {
		k           queryKey
		load, alone float64
	}
	var over []slow
	matched := 0
	for _, r := range loaded {
		for _, q := range r.Latencies {
			a, ok := aloneMS[queryKey{q.File, q.Line}]
			if !ok {
				continue
			}
			matched++
			if q.MS > maxRatio*a {
				over = append(over, slow{queryKey{q.File, q.Line}, q.MS, a})
			}
		}
	}
	sort.Slice(over, func(i, j int) bool { return over[i].load-over[i].alone > over[j].load-over[j].alone })
	fmt.Fprintf(w, "queries more than %.1fx slower loaded than alone: %d of %d\n", maxRatio, len(over), matched)
	for i, s := range over {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  %s:%d %.2f ms loaded, %.2f ms alone\n", s.k.file, s.k.line, s.load, s.alone)
	}
}

// whereTimeWent splits the loaded run's query time into its waits on the
// shared device and the rest, and lists the ten slowest queries so: the
// first question under contention is what a slow query waited for.
func whereTimeWent(w io.Writer, loaded []*Report) {
	type entry struct {
		q     Query
		shard int
	}
	var all []entry
	var sum QueryWaits
	var total, stmts float64
	for _, r := range loaded {
		stmts += r.StatementMS
		for _, q := range r.Latencies {
			total += q.MS
			all = append(all, entry{q, r.Shard})
			if q.Waits != nil {
				sum.CompileMS += q.Waits.CompileMS
				sum.ThreadMS += q.Waits.ThreadMS
				sum.MemoryMS += q.Waits.MemoryMS
				sum.Compiles += q.Waits.Compiles
			}
		}
	}
	if sum == (QueryWaits{}) {
		return // a CPU run, or reports without waits
	}
	other := total - sum.CompileMS - sum.ThreadMS - sum.MemoryMS
	fmt.Fprintf(w, "loaded query time %.1f s: compile waits %.1f s, context thread %.1f s, pool memory %.1f s, the rest %.1f s; %d compiles finished during queries; statements %.1f s\n",
		total/1000, sum.CompileMS/1000, sum.ThreadMS/1000, sum.MemoryMS/1000, other/1000, sum.Compiles, stmts/1000)
	sort.Slice(all, func(i, j int) bool { return all[i].q.MS > all[j].q.MS })
	for i, e := range all {
		if i == 10 {
			break
		}
		qw := QueryWaits{}
		if e.q.Waits != nil {
			qw = *e.q.Waits
		}
		fmt.Fprintf(w, "  shard %d %s:%d %.1f ms: compile %.1f, thread %.1f, memory %.1f ms, %d compiles\n",
			e.shard, e.q.File, e.q.Line, e.q.MS, qw.CompileMS, qw.ThreadMS, qw.MemoryMS, qw.Compiles)
	}
}

func last(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
