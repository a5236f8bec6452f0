package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/tests"
)

// Report is what one run writes: its setting, its counts and every
// query's latency.
type Report struct {
	Device      string    `json:"device"`
	OnDisk      bool      `json:"on_disk"`
	Shard       int       `json:"shard"`
	Shards      int       `json:"shards"`
	PID         int       `json:"pid"`
	Files       []string  `json:"files"`
	Started     time.Time `json:"started"`
	WallSeconds float64   `json:"wall_seconds"`
	Statements  int       `json:"statements"`
	Queries     int       `json:"queries"`
	Skipped     int       `json:"skipped"`
	Failed      int       `json:"failed"`
	// Cut says the run stopped at its -deadline: the counts cover what ran.
	Cut bool `json:"cut,omitempty"`
	// Latencies of the queries, in milliseconds.
	P50MS     float64 `json:"p50_ms"`
	P99MS     float64 `json:"p99_ms"`
	MaxMS     float64 `json:"max_ms"`
	TotalMS   float64 `json:"total_ms"`
	Latencies []Query `json:"latencies"`
	// StatementMS is the time of the statements (CREATE, INSERT): the
	// setup each file's queries stand on.
	StatementMS float64 `json:"statement_ms"`
	// Failures lists every failed statement and query.
	Failures []Failure `json:"failures"`
	// GPU holds the process's device counters after its last file (the
	// device is shared by the process's databases), when on the GPU.
	GPU *GPUCounters `json:"gpu,omitempty"`
}

// Query is one query's wall time, from sending it to its last row.
type Query struct {
	File string  `json:"file"`
	Line int     `json:"line"`
	MS   float64 `json:"ms"`
	OK   bool    `json:"ok"`
	// Waits is what the query waited for on the shared device (GPU runs).
	Waits *QueryWaits `json:"waits,omitempty"`
}

// QueryWaits is the part of a query's time spent waiting on the shared
// device, read as the difference of the process's device counters around
// it (a process runs one record at a time): for kernel compiles (its own
// or another's holding the same kernel), for the context thread, for pool
// memory; and how many compiles the process finished meanwhile (its own
// and background ones).
type QueryWaits struct {
	CompileMS float64 `json:"compile_ms,omitempty"`
	ThreadMS  float64 `json:"thread_ms,omitempty"`
	MemoryMS  float64 `json:"memory_ms,omitempty"`
	Compiles  uint64  `json:"compiles,omitempty"`
}

// deviceMark is the counters QueryWaits are differences of.
type deviceMark struct {
	waits    gpuexec.WaitTotals
	compiles uint64
}

func markOf(db *gsql.DB) (deviceMark, bool) {
	st := db.Stats().GPU
	if st == nil {
		return deviceMark{}, false
	}
	return deviceMark{st.Waits, st.Compiles}, true
}

// since is what was waited for between m and now.
func (m deviceMark) since(now deviceMark) *QueryWaits {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	q := &QueryWaits{CompileMS: ms(now.waits.Compile - m.waits.Compile), ThreadMS: ms(now.waits.Thread - m.waits.Thread),
		MemoryMS: ms(now.waits.Memory - m.waits.Memory), Compiles: now.compiles - m.compiles}
	if *q == (QueryWaits{}) {
		return nil
	}
	return q
}

// Failure is one failed record with its SQL and error.
type Failure struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Kind     string `json:"kind"`
	SQL      string `json:"sql"`
	Msg      string `json:"msg"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
}

// GPUCounters are a process's compile and kernel-cache counters.
type GPUCounters struct {
	Compiles        uint64  `json:"compiles"`
	CompileSeconds  float64 `json:"compile_seconds"`
	MemoryCacheHits uint64  `json:"memory_cache_hits"`
	DiskCacheHits   uint64  `json:"disk_cache_hits"`
	Launches        uint64  `json:"launches"`
}

// runConfig is the run command's flags.
type runConfig struct {
	device  string
	path    string
	keep    bool
	shard   int
	shards  int
	out     string
	timeout time.Duration
	// deadline bounds the whole run (0: none): past it the run stops
	// and reports what it did, so that a run cut short is still read.
	deadline time.Duration
	files    []string
}

func parseRunFlags(args []string) (runConfig, error) {
	var c runConfig
	fs := flag.NewFlagSet("sltload run", flag.ContinueOnError)
	fs.StringVar(&c.device, "device", "cpu", "device: cpu, gpu or auto")
	fs.StringVar(&c.path, "path", "", "on disk: a directory to make each file's database in (removed afterwards unless -keep); empty: in memory")
	fs.BoolVar(&c.keep, "keep", false, "keep the on-disk databases")
	fs.IntVar(&c.shard, "shard", 0, "which shard of the queries to run, 0-based")
	fs.IntVar(&c.shards, "shards", 1, "how many shards the queries are split into (by index mod shards)")
	fs.StringVar(&c.out, "out", "", "write the JSON report here (default: stdout)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "deadline of each statement and query")
	fs.DurationVar(&c.deadline, "deadline", 0, "stop after this long and report what ran (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.files = fs.Args()
	switch {
	case len(c.files) == 0:
		return c, errors.New("run: no test files given")
	case c.shards < 1:
		return c, fmt.Errorf("run: -shards %d: must be at least 1", c.shards)
	case c.shard < 0 || c.shard >= c.shards:
		return c, fmt.Errorf("run: -shard %d: must be in [0,%d)", c.shard, c.shards)
	case c.device != "cpu" && c.device != "gpu" && c.device != "auto":
		return c, fmt.Errorf("run: -device %q: want cpu, gpu or auto", c.device)
	case c.timeout <= 0:
		return c, fmt.Errorf("run: -timeout %v: must be positive", c.timeout)
	case c.deadline < 0:
		return c, fmt.Errorf("run: -deadline %v: must not be negative", c.deadline)
	}
	return c, nil
}

func runCmd(args []string, stdout io.Writer) error {
	c, err := parseRunFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if c.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	rep, err := runShard(ctx, c, os.Stderr)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	if c.out == "" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(c.out, b, 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	cut := ""
	if rep.Cut {
		cut = " (cut at the deadline)"
	}
	fmt.Fprintf(stdout, "shard %d/%d on %s: %d queries, %d failed, p50 %.2f ms, p99 %.2f ms, %.1f s%s\n",
		rep.Shard, rep.Shards, rep.Device, rep.Queries, rep.Failed, rep.P50MS, rep.P99MS, rep.WallSeconds, cut)
	return nil
}

// runShard runs every file's statements and this shard's queries, each
// file in a fresh database, with a line per file on progress. When ctx
// ends (the -deadline) it stops and reports what ran, marked Cut.
func runShard(ctx context.Context, c runConfig, progress io.Writer) (*Report, error) {
	rep := &Report{Device: c.device, OnDisk: c.path != "", Shard: c.shard, Shards: c.shards,
		PID: os.Getpid(), Files: c.files, Started: time.Now().UTC(),
		Latencies: []Query{}, Failures: []Failure{}}
	if c.device != "cpu" {
		// Each file opens and closes its own database: keep the process's
		// device state (context, compiled kernels) across the gaps.
		defer gpuexec.SetLinger(gpuexec.SetLinger(time.Minute))
	}
	dir := ""
	if c.path != "" {
		if err := os.MkdirAll(c.path, 0o755); err != nil {
			return nil, fmt.Errorf("database directory: %w", err)
		}
		d, err := os.MkdirTemp(c.path, fmt.Sprintf("sltload-%d-", c.shard))
		if err != nil {
			return nil, fmt.Errorf("database directory: %w", err)
		}
		dir = d
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	for i, file := range c.files {
		if ctx.Err() != nil {
			rep.Cut = true
			break
		}
		fileStart, queriesBefore, failedBefore := time.Now(), rep.Queries, len(rep.Failures)
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read test file: %w", err)
		}
		script, err := tests.ParseScript(filepath.Base(file), src)
		if err != nil {
			return nil, err
		}
		opts := gsql.Options{Device: c.device}
		if dir != "" {
			opts.Path = filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(file)))
		}
		db, err := gsql.Open(opts)
		if err != nil {
			return nil, fmt.Errorf("open database on device %q: %w", c.device, err)
		}
		mark, onGPU := markOf(db)
		r := &tests.Runner{
			Engine:  engine{db},
			Names:   append(append([]string(nil), tests.DefaultEngineNames...), "gsql-"+c.device),
			Timeout: c.timeout,
			// SQLite's corpus: its answers are read through the type letters.
			SQLiteTypes: true,
			KeepQuery:   func(q int) bool { return q%c.shards == c.shard },
			Observe: func(rec *tests.Record, elapsed time.Duration, f *tests.Failure) {
				if ctx.Err() != nil {
					return // cut by the deadline, not failed
				}
				var waits *QueryWaits
				if onGPU {
					now, _ := markOf(db)
					waits, mark = mark.since(now), now
				}
				ms := float64(elapsed) / float64(time.Millisecond)
				if rec.Kind == tests.KindQuery {
					rep.Latencies = append(rep.Latencies, Query{File: script.Name, Line: rec.Line,
						MS: ms, OK: f == nil, Waits: waits})
				} else {
					rep.StatementMS += ms
				}
				if f != nil {
					rep.Failures = append(rep.Failures, Failure{File: f.File, Line: f.Line, Kind: rec.Kind.String(),
						SQL: f.SQL, Msg: f.Msg, Expected: f.Expected, Actual: f.Actual})
				}
			},
		}
		sum := r.Run(ctx, script)
		rep.Statements += sum.Statements
		rep.Queries += sum.Queries
		rep.Skipped += sum.Skipped
		if ctx.Err() != nil {
			rep.Cut = true
		}
		if progress != nil {
			fmt.Fprintf(progress, "%s shard %d/%d: %s: %d queries, %d failures, %.1f s%s\n", time.Now().UTC().Format(time.TimeOnly),
				c.shard, c.shards, script.Name, rep.Queries-queriesBefore, len(rep.Failures)-failedBefore,
				time.Since(fileStart).Seconds(), map[bool]string{true: " (cut at the deadline)"}[rep.Cut])
		}
		if st := db.Stats(); st.GPU != nil {
			rep.GPU = &GPUCounters{Compiles: st.GPU.Compiles, CompileSeconds: st.GPU.CompileTime.Seconds(),
				MemoryCacheHits: st.GPU.MemoryCacheHits, DiskCacheHits: st.GPU.DiskCacheHits, Launches: st.GPU.Launches}
		}
		if err := db.Close(); err != nil {
			return nil, fmt.Errorf("close database of %s: %w", file, err)
		}
	}
	rep.Failed = len(rep.Failures)
	rep.WallSeconds = time.Since(rep.Started).Seconds()
	ms := make([]float64, len(rep.Latencies))
	for i, q := range rep.Latencies {
		ms[i] = q.MS
		rep.TotalMS += q.MS
	}
	sort.Float64s(ms)
	rep.P50MS, rep.P99MS = percentile(ms, 50), percentile(ms, 99)
	if len(ms) > 0 {
		rep.MaxMS = ms[len(ms)-1]
	}
	return rep, nil
}

// engine adapts *gsql.DB to the runner.
type engine struct{ db *gsql.DB }

func (e engine) Exec(ctx context.Context, sql string) error {
	_, err := e.db.Exec(ctx, sql)
	return err
}

func (e engine) Query(ctx context.Context, sql string) (array.RecordReader, error) {
	return e.db.Query(ctx, sql)
}

// percentile is the nearest-rank p-th percentile of sorted values (0
// when there are none).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(float64(len(sorted)) * p / 100))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}
