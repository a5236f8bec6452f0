package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// report is the whole run, as written to results.json.
type report struct {
	Date          string      `json:"date"`
	Command       string      `json:"command"`
	Host          string      `json:"host"`
	CPUModel      string      `json:"cpu_model"`
	Cores         int         `json:"cores"`
	LoadBefore    string      `json:"load_average_before,omitempty"`
	LoadAfter     string      `json:"load_average_after,omitempty"`
	GoVersion     string      `json:"go_version"`
	OSArch        string      `json:"os_arch"`
	DuckDBVersion string      `json:"duckdb_version,omitempty"`
	CopyBandwidth string      `json:"copy_bandwidth,omitempty"`
	CopyGBps      float64     `json:"copy_gbps,omitempty"`
	Seed          int64       `json:"seed"`
	RunsPerQuery  int         `json:"runs_per_query"`
	Rows          []int       `json:"rows"`
	ScaleFactors  []float64   `json:"scale_factors,omitempty"`
	RedactRows    []int       `json:"redact_rows"`
	Engines       []string    `json:"engines"`
	Skipped       []skipped   `json:"skipped_engines,omitempty"`
	Queries       []queryInfo `json:"queries"`
	Results       []resultRow `json:"results"`
	// Summary is each engine's total and geometric mean at each size.
	Summary []summaryRow `json:"summary,omitempty"`
}

// summaryRow is one engine's totals at one size, over the queries every
// engine answered correctly at that size (so that the engines' totals add
// up the same queries); OK, Failed and Errors count all its queries.
type summaryRow struct {
	Rows      int     `json:"rows"`
	Engine    string  `json:"engine"`
	Queries   int     `json:"queries"` // in the totals
	TotalMs   float64 `json:"total_ms"`
	GeomeanMs float64 `json:"geomean_ms"`
	// SpeedupVsDuckDB is DuckDB's geometric mean over the engine's: the
	// geometric mean of the per-query speedups.
	SpeedupVsDuckDB float64 `json:"geomean_speedup_vs_duckdb,omitempty"`
	OK              int     `json:"ok"`
	Failed          int     `json:"failed"`
	Errors          int     `json:"errors"`
}

type skipped struct {
	Engine string `json:"engine"`
	Reason string `json:"reason"`
}

type queryInfo struct {
	Name     string            `json:"name"`
	Table    string            `json:"table"`
	SQL      string            `json:"sql"`
	Variants map[string]string `json:"variants,omitempty"`
	Why      string            `json:"variant_reason,omitempty"`
	// Features are a generated query's feature tags (--suite random).
	Features []string `json:"features,omitempty"`
}

// resultRow is one query at one size on one engine.
type resultRow struct {
	Query           string   `json:"query"`
	Table           string   `json:"table"`
	Rows            int      `json:"rows"`
	Engine          string   `json:"engine"`
	Status          string   `json:"status"` // ok, FAIL or ERROR
	Error           string   `json:"error,omitempty"`
	Diff            string   `json:"diff,omitempty"`
	Reference       string   `json:"reference,omitempty"` // engine compared against
	Variant         string   `json:"variant,omitempty"`
	Runs            int      `json:"runs"`
	MedianMs        float64  `json:"median_ms"`
	MinMs           float64  `json:"min_ms"`
	MaxMs           float64  `json:"max_ms"`
	RowsPerSec      float64  `json:"rows_per_sec"`
	GBPerSec        float64  `json:"gb_per_sec"`
	InputBytes      int64    `json:"input_bytes"`
	OutputBytes     int64    `json:"output_bytes"`
	OutRows         int64    `json:"out_rows"`
	Checksum        string   `json:"checksum,omitempty"`
	SpeedupVsDuckDB float64  `json:"speedup_vs_duckdb,omitempty"`
	LaunchesPerRun  *float64 `json:"launches_per_run,omitempty"`
	GPUOps          *int     `json:"gpu_operators,omitempty"`
	CPUOps          *int     `json:"cpu_operators,omitempty"`
	// ColdMs is the query's first run in a fresh process (see cold.go);
	// ColdError says why there is none where the cold run failed.
	ColdMs    *float64 `json:"cold_ms,omitempty"`
	ColdError string   `json:"cold_error,omitempty"`
	// ParamSet and Params are the TPC-H parameter set the run used and
	// its substituted values (--params random).
	ParamSet int    `json:"param_set,omitempty"`
	Params   string `json:"params,omitempty"`
	// Plan is EXPLAIN ANALYZE of the query on a GPU engine (per-operator
	// device, rows, time and launches), run once after the warm-up run.
	Plan string `json:"plan,omitempty"`
}

func newReport(cfg *config) *report {
	host, _ := os.Hostname()
	rep := &report{
		Date:         time.Now().UTC().Format(time.RFC3339),
		Command:      cfg.command,
		Host:         host,
		CPUModel:     cpuModel(),
		Cores:        runtime.NumCPU(),
		LoadBefore:   loadAverage(),
		GoVersion:    runtime.Version(),
		OSArch:       runtime.GOOS + "/" + runtime.GOARCH,
		Seed:         cfg.seed,
		RunsPerQuery: cfg.runs,
	}
	for _, q := range cfg.queries {
		qi := queryInfo{Name: q.Name, Table: q.Table, SQL: q.SQL, Variants: q.Variants, Why: q.VariantWhy}
		if q.random != nil {
			qi.Features = q.random.Features
		}
		rep.Queries = append(rep.Queries, qi)
	}
	return rep
}

// finish records the load average after the run and the summary.
func (rep *report) finish() {
	rep.LoadAfter = loadAverage()
	rep.Summary = summarize(rep.Results, rep.Engines)
}

// summarize computes the summary rows of results, by size then engine
// (in engines' order).
func summarize(results []resultRow, engines []string) []summaryRow {
	type key struct {
		rows   int
		engine string
	}
	var sizes []int
	byKey := map[key][]resultRow{}
	// allOK[rows][query]: every engine answered the query correctly.
	allOK := map[int]map[string]bool{}
	for _, r := range results {
		if allOK[r.Rows] == nil {
			allOK[r.Rows] = map[string]bool{}
			sizes = append(sizes, r.Rows)
		}
		if _, seen := allOK[r.Rows][r.Query]; !seen {
			allOK[r.Rows][r.Query] = true
		}
		if r.Status != statusOK || r.MedianMs <= 0 {
			allOK[r.Rows][r.Query] = false
		}
		k := key{r.Rows, r.Engine}
		byKey[k] = append(byKey[k], r)
	}
	var out []summaryRow
	for _, rows := range sizes {
		geo := map[string]float64{}
		start := len(out)
		for _, e := range engines {
			rs := byKey[key{rows, e}]
			if len(rs) == 0 {
				continue
			}
			s := summaryRow{Rows: rows, Engine: e}
			logSum := 0.0
			for _, r := range rs {
				switch r.Status {
				case statusOK:
					s.OK++
				case statusFail:
					s.Failed++
				case statusError:
					s.Errors++
				}
				if allOK[rows][r.Query] {
					s.Queries++
					s.TotalMs += r.MedianMs
					logSum += math.Log(r.MedianMs)
				}
			}
			if s.Queries > 0 {
				s.GeomeanMs = math.Exp(logSum / float64(s.Queries))
				geo[e] = s.GeomeanMs
			}
			out = append(out, s)
		}
		if d := geo["duckdb"]; d > 0 {
			for i := start; i < len(out); i++ {
				if out[i].GeomeanMs > 0 {
					out[i].SpeedupVsDuckDB = d / out[i].GeomeanMs
				}
			}
		}
	}
	return out
}

// writeSummary prints the summary table.
func writeSummary(w io.Writer, rep *report) error {
	if len(rep.Summary) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\ntotals over the queries every engine answered correctly at each size (sum and geometric mean of the medians)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "rows\tengine\tqueries\ttotal ms\tgeomean ms\tvs duckdb\tok\tFAIL\tERROR\t\n")
	for _, s := range rep.Summary {
		speed := "-"
		if s.SpeedupVsDuckDB > 0 && s.Engine != "duckdb" {
			speed = fmt.Sprintf("%.2fx", s.SpeedupVsDuckDB)
		}
		geo := "-"
		if s.GeomeanMs > 0 {
			geo = fmtMs(s.GeomeanMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t\n", human(float64(s.Rows)), s.Engine, s.Queries, fmtMs(s.TotalMs), geo, speed, s.OK, s.Failed, s.Errors)
	}
	return tw.Flush()
}

// cpuModel reads the CPU model name from /proc/cpuinfo (Linux), else GOARCH.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// loadAverage reads the 1, 5 and 15 minute load averages (Linux), so that
// a run on a busy machine says so.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// partialName is the report rewritten after every query while the run
// goes on, so that a run cut short (a device call's time limit) still
// leaves what it measured, plans included; the finished run removes it.
const partialName = "results.partial.json"

// add appends a query's rows and, with --out, rewrites the partial
// report. A failed write costs only the partial file: the finished run
// reports its own errors.
func (rep *report) add(cfg *config, rows []resultRow) {
	rep.Results = append(rep.Results, rows...)
	if cfg.out == "" || os.MkdirAll(cfg.out, 0o755) != nil {
		return
	}
	path := filepath.Join(cfg.out, partialName)
	if writeJSONFile(path+".tmp", rep) == nil {
		_ = os.Rename(path+".tmp", path)
	}
}

// writeJSONFile writes the report as indented JSON.
func writeJSONFile(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	return nil
}

// writeTable prints the results as an aligned table, then every error and
// mismatch in full.
func writeTable(w io.Writer, rep *report) error {
	fmt.Fprintf(w, "gsql benchmark suite — %s — %s, %d cores — %s\n", rep.Date, rep.CPUModel, rep.Cores, rep.OSArch)
	if rep.LoadBefore != "" {
		note := ""
		for _, l := range []string{rep.LoadBefore, rep.LoadAfter} {
			var one float64
			if _, err := fmt.Sscan(l, &one); err == nil && one > float64(rep.Cores) {
				note = " — above the core count: other work disturbed these timings"
			}
		}
		fmt.Fprintf(w, "load average before: %s, after: %s%s\n", rep.LoadBefore, rep.LoadAfter, note)
	}
	if rep.DuckDBVersion != "" {
		fmt.Fprintf(w, "DuckDB %s\n", rep.DuckDBVersion)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.Engine, s.Reason)
	}
	if rep.CopyBandwidth != "" {
		fmt.Fprintln(w, rep.CopyBandwidth)
	}
	fmt.Fprintf(w, "median of %d warm runs (min..max); cold = the first run in a fresh process (table loaded and resident, no kernel of the query compiled); GB/s = (input column bytes + output bytes) / median; placement = operators on [gpu]/[cpu] from EXPLAIN ANALYZE\n\n", rep.RunsPerQuery)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "query\trows\tengine\tmedian ms\tmin..max ms\tcold ms\trows/s\tGB/s\tof copy\tvs duckdb\tlaunches\tplacement\tcheck\t\n")
	for _, r := range rep.Results {
		check := r.Status
		if r.Status == statusOK && r.Reference != "" && r.Reference != r.Engine {
			check = "ok=" + r.Reference
		} else if r.Status == statusOK {
			check = "ref " + shortSum(r.Checksum)
		}
		if r.Variant != "" {
			check += " *"
		}
		if r.Status == statusError {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t%s\t-\t-\t-\t-\t-\t%s\t%s\t\n", r.Query, human(float64(r.Rows)), r.Engine, coldCell(r), placement(r), check)
			continue
		}
		speed := "-"
		if r.SpeedupVsDuckDB > 0 && r.Engine != "duckdb" {
			speed = fmt.Sprintf("%.2fx", r.SpeedupVsDuckDB)
		}
		launches := "-"
		if r.LaunchesPerRun != nil {
			launches = fmt.Sprintf("%.1f", *r.LaunchesPerRun)
		}
		pct := "-"
		if r.LaunchesPerRun != nil && rep.CopyGBps > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*r.GBPerSec/rep.CopyGBps)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s..%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Query, human(float64(r.Rows)), r.Engine, fmtMs(r.MedianMs), fmtMs(r.MinMs), fmtMs(r.MaxMs), coldCell(r),
			human(r.RowsPerSec), r.GBPerSec, pct, speed, launches, placement(r), check)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeSummary(w, rep); err != nil {
		return err
	}
	variants := map[string]bool{}
	for _, r := range rep.Results {
		if r.Variant != "" && !variants[r.Query+r.Engine] {
			variants[r.Query+r.Engine] = true
			fmt.Fprintf(w, "* %s on %s ran a documented variant: %s\n", r.Query, r.Engine, r.Variant)
		}
	}
	var problems []string
	for _, r := range rep.Results {
		switch r.Status {
		case statusError:
			problems = append(problems, fmt.Sprintf("ERROR %s @ %d rows on %s: %s", r.Query, r.Rows, r.Engine, r.Error))
		case statusFail:
			problems = append(problems, fmt.Sprintf("FAIL %s @ %d rows on %s differs from %s: %s", r.Query, r.Rows, r.Engine, r.Reference, r.Diff))
		}
		if r.ColdError != "" {
			problems = append(problems, fmt.Sprintf("COLD %s @ %d rows on %s: %s", r.Query, r.Rows, r.Engine, r.ColdError))
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "\n%d problem(s):\n", len(problems))
		for _, p := range problems {
			fmt.Fprintln(w, "  "+p)
		}
	} else {
		fmt.Fprintln(w, "\nall engines agree on every query")
	}
	return nil
}

// coldCell renders the cold run: its time, "error", or "-" where none ran.
func coldCell(r resultRow) string {
	switch {
	case r.ColdMs != nil:
		return fmtMs(*r.ColdMs)
	case r.ColdError != "":
		return "error"
	}
	return "-"
}

// placement renders the operator placement of a GPU engine's query.
func placement(r resultRow) string {
	if r.GPUOps == nil {
		if strings.HasPrefix(r.Engine, "gsql-gpu") {
			return "unknown"
		}
		return "-"
	}
	s := fmt.Sprintf("gpu %d/cpu %d", *r.GPUOps, *r.CPUOps)
	if *r.GPUOps == 0 {
		s += " (ALL CPU)"
	}
	return s
}

func shortSum(s string) string {
	if _, h, ok := strings.Cut(s, ":"); ok && len(h) >= 8 {
		return h[:8]
	}
	return s
}

func fmtMs(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// human renders a count with a K/M/G suffix.
func human(v float64) string {
	switch {
	case v >= 1e9:
		return trimZero(fmt.Sprintf("%.2f", v/1e9)) + "G"
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case v >= 1e3:
		return trimZero(fmt.Sprintf("%.2f", v/1e3)) + "K"
	}
	return fmt.Sprintf("%.0f", v)
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
