package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const corpus = `hash-threshold 8

statement ok
CREATE TABLE t1(a INTEGER, b INTEGER)

statement ok
INSERT INTO t1 VALUES(1,2),(3,4),(5,NULL)

query I rowsort
SELECT a FROM t1
----
1
3
5

query T valuesort
SELECT a FROM t1 UNION SELECT 7
----
1
3
5
7

query II nosort
SELECT a, b FROM t1 ORDER BY a
----
6 values hashing to 4b0e966e5364a83e87bb61dd35edf24d

query I nosort
SELECT COUNT(*) FROM t1 WHERE b IS NULL
----
2

query I nosort
SELECT nope FROM t1
----
1
`

func writeCorpus(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.test")
	if err := os.WriteFile(p, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseRunFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"a.test"}, ""},
		{[]string{"-device", "gpu", "-shard", "15", "-shards", "16", "a.test"}, ""},
		{nil, "no test files"},
		{[]string{"-shards", "0", "a.test"}, "-shards 0"},
		{[]string{"-shard", "2", "-shards", "2", "a.test"}, "-shard 2"},
		{[]string{"-shard", "-1", "a.test"}, "-shard -1"},
		{[]string{"-device", "tpu", "a.test"}, `-device "tpu"`},
		{[]string{"-timeout", "0s", "a.test"}, "-timeout"},
	}
	for _, tc := range tests {
		_, err := parseRunFlags(tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
		}
	}
}

// TestRunShard runs both shards of a small corpus on the CPU, in memory
// and on disk: every query is timed once across the shards, the wrong
// answer and the bad column are failures with their SQL, and the on-disk
// databases are removed.
func TestRunShard(t *testing.T) {
	file := writeCorpus(t)
	for _, disk := range []bool{false, true} {
		dir := ""
		if disk {
			dir = t.TempDir()
		}
		var lines []int
		var failed []string
		for shard := 0; shard < 2; shard++ {
			var progress strings.Builder
			rep, err := runShard(context.Background(), runConfig{device: "cpu", path: dir, shard: shard, shards: 2,
				timeout: 30 * time.Second, files: []string{file}}, &progress)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Statements != 2 || rep.Queries != len(rep.Latencies) || rep.Failed != len(rep.Failures) || rep.OnDisk != disk || rep.Cut {
				t.Fatalf("shard %d: %+v", shard, rep)
			}
			if !strings.Contains(progress.String(), fmt.Sprintf("shard %d/2: ", shard)) {
				t.Errorf("no progress line: %q", progress.String())
			}
			for _, q := range rep.Latencies {
				lines = append(lines, q.Line)
				if q.MS < 0 || q.MS > rep.MaxMS {
					t.Errorf("latency %v outside [0, max %v]", q.MS, rep.MaxMS)
				}
			}
			for _, f := range rep.Failures {
				failed = append(failed, f.SQL+": "+f.Msg+" "+f.Actual)
			}
		}
		if len(lines) != 5 {
			t.Errorf("disk=%v: queries at lines %v, want all 5 once", disk, lines)
		}
		got := strings.Join(failed, "\n")
		if len(failed) != 2 || !strings.Contains(got, "b IS NULL") || !strings.Contains(got, "SELECT nope FROM t1: query failed") {
			t.Errorf("disk=%v: failures\n%s", disk, got)
		}
		if disk {
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("on-disk databases left behind: %v", left)
			}
		}
	}
}

func TestPercentile(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		vals []float64
		p    float64
		want float64
	}{
		{nil, 99, 0},
		{[]float64{4}, 50, 4},
		{s, 50, 5},
		{s, 99, 10},
		{s, 10, 1},
		{s, 0, 1},
	}
	for _, tc := range tests {
		if got := percentile(tc.vals, tc.p); got != tc.want {
			t.Errorf("p%v of %v = %v, want %v", tc.p, tc.vals, got, tc.want)
		}
	}
}

func writeReports(t *testing.T, reps ...*Report) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range reps {
		b, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+r.Shard))+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func rep(shard int, ms ...float64) *Report {
	r := &Report{Device: "gpu", Shard: shard, Shards: 2}
	for i, v := range ms {
		r.Latencies = append(r.Latencies, Query{File: "f.test", Line: shard*100 + i, MS: v, OK: true})
	}
	r.Queries = len(ms)
	return r
}

// TestReport checks the verdict: failures, the p99 ratio and repeated
// compiles each fail it.
func TestReport(t *testing.T) {
	log := filepath.Join(t.TempDir(), "compiles.log")
	if err := os.WriteFile(log, []byte("1 k1 0.5 a.cu\n2 k2 0.5 b.cu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repeated := filepath.Join(t.TempDir(), "compiles.log")
	if err := os.WriteFile(repeated, []byte("1 k1 0.5 a.cu\n2 k1 0.5 a.cu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alone := writeReports(t, rep(0, 1, 2, 3), rep(1, 1, 1, 4))
	broken := rep(1, 1, 1, 4)
	broken.Failed, broken.Failures = 1, []Failure{{File: "f.test", Line: 7, Kind: "query", SQL: "SELECT x", Msg: "query failed", Actual: "error: boom"}}
	cut := rep(1, 1, 2, 3)
	cut.Cut = true
	tests := []struct {
		name   string
		loaded string
		log    string
		pass   bool
		want   []string
	}{
		{"pass", writeReports(t, rep(0, 2, 3, 6), rep(1, 1, 2, 8)), log, true,
			[]string{"overall p99 ratio (loaded/alone): 2.00", "2 compiles of 2 distinct kernels by 2 processes", "PASS"}},
		{"slow", writeReports(t, rep(0, 2, 3, 60), rep(1, 1, 2, 8)), log, false,
			[]string{"p99 ratio 15.00 (want <= 3.0)", "f.test:2 60.00 ms loaded, 3.00 ms alone", "FAIL"}},
		{"failure", writeReports(t, rep(0, 1, 2, 3), broken), log, false,
			[]string{"shard 1 f.test:7 (query) error: boom query failed", "SELECT x", "FAIL: 1 failures"}},
		{"cut", writeReports(t, rep(0, 1, 2, 3), cut), log, false,
			[]string{"1 of the runs stopped at their -deadline", "FAIL: 0 failures (want 0), 1 runs cut (want 0)"}},
		{"repeated compile", writeReports(t, rep(0, 1, 2, 3), rep(1, 1, 1, 4)), repeated, false,
			[]string{"2x k1 a.cu by pids [1 2]", "1 kernels compiled more than once (want 0)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := reportCmd([]string{"-loaded", tc.loaded, "-alone", alone, "-compile-log", tc.log}, &out)
			if (err == nil) != tc.pass {
				t.Errorf("error %v, want pass=%v\n%s", err, tc.pass, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	if err := reportCmd([]string{"-alone", alone}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "-loaded is required") {
		t.Errorf("no -loaded: %v", err)
	}
	if err := reportCmd([]string{"-loaded", t.TempDir()}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no *.json reports") {
		t.Errorf("empty -loaded: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.log")
	os.WriteFile(bad, []byte("garbage\n"), 0o644)
	if err := reportCmd([]string{"-loaded", alone, "-compile-log", bad}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad compile log: %v", err)
	}
}

// TestRunShardDeadline stops a run whose deadline has passed: it reports
// what ran, marked cut, with no failure for the records it never ran.
func TestRunShardDeadline(t *testing.T) {
	file := writeCorpus(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := runShard(ctx, runConfig{device: "cpu", shard: 0, shards: 1, timeout: time.Second, files: []string{file, file}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Cut || rep.Failed != 0 || len(rep.Latencies) != 0 {
		t.Fatalf("a run past its deadline: %+v", rep)
	}
	if _, err := parseRunFlags([]string{"-deadline", "-1s", file}); err == nil {
		t.Fatal("a negative -deadline was accepted")
	}
}

// The report splits the loaded query time into the device waits the
// queries recorded and names the slowest queries with theirs.
func TestReportWhereTimeWent(t *testing.T) {
	a := rep(0, 10, 200)
	a.Latencies[1].Waits = &QueryWaits{CompileMS: 150, ThreadMS: 20, Compiles: 2}
	b := rep(1, 40)
	b.Latencies[0].Waits = &QueryWaits{MemoryMS: 30}
	b.StatementMS = 500
	var out strings.Builder
	whereTimeWent(&out, []*Report{a, b})
	got := out.String()
	for _, want := range []string{
		"loaded query time 0.2 s: compile waits 0.1 s, context thread 0.0 s, pool memory 0.0 s, the rest 0.1 s; 2 compiles finished during queries; statements 0.5 s",
		"shard 0 f.test:1 200.0 ms: compile 150.0, thread 20.0, memory 0.0 ms, 2 compiles",
		"shard 1 f.test:100 40.0 ms: compile 0.0, thread 0.0, memory 30.0 ms, 0 compiles",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "f.test:1 "), strings.Index(got, "f.test:100"); i > j {
		t.Errorf("slowest first:\n%s", got)
	}
	out.Reset()
	whereTimeWent(&out, []*Report{rep(0, 1, 2)}) // no waits recorded (CPU)
	if out.Len() != 0 {
		t.Errorf("CPU run: %q", out.String())
	}
}
