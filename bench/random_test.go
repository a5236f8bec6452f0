package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
)

func TestCompareOrdered(t *testing.T) {
	cols := []string{"k", "v"}
	ans := func(rows ...string) answers.Answer {
		a := answers.Answer{Columns: cols}
		for _, r := range rows {
			a.Rows = append(a.Rows, strings.Split(r, "|"))
		}
		return a
	}
	for _, tc := range []struct {
		name      string
		got, want answers.Answer
		keys      []int
		limited   bool
		ok        bool
	}{
		{"equal", ans("a|1", "b|2"), ans("a|1", "b|2"), []int{0, 1}, false, true},
		{"value differs", ans("a|1", "b|3"), ans("a|1", "b|2"), []int{0, 1}, false, false},
		{"row count", ans("a|1"), ans("a|1", "b|2"), []int{0, 1}, false, false},
		{"order of the first key", ans("b|2", "a|1"), ans("a|1", "b|2"), []int{0, 1}, false, false},
		// DuckDB's DOUBLE against gsql's DECIMAL of four more digits.
		{"within tolerance", ans("a|1.2346", "b|2"), ans("a|1.23456789", "b|2"), []int{0, 1}, false, true},
		{"beyond tolerance", ans("a|1.2350", "b|2"), ans("a|1.23456789", "b|2"), []int{0, 1}, false, false},
		{"midnight timestamp is its date", ans("2013-07-01 00:00:00|5"), ans("2013-07-01|5"), []int{0, 1}, false, true},
		{"other time is not", ans("2013-07-01 01:00:00|5"), ans("2013-07-01|5"), []int{0, 1}, false, false},
		// Rows of one first key in another order (near-equal later keys).
		{"run in any order", ans("1|b", "1|a", "2|c"), ans("1|a", "1|b", "2|c"), []int{0, 1}, false, true},
		{"run with another row", ans("1|b", "1|x", "2|c"), ans("1|a", "1|b", "2|c"), []int{0, 1}, false, false},
		// Near-equal fractional keys at a LIMIT's cut may keep other rows.
		{"inexact cut run", ans("5|x", "1.00001|b"), ans("5|x", "1.00002|a"), []int{0, 1}, true, true},
		{"exact cut run", ans("5|x", "1|b"), ans("5|x", "1|a"), []int{0, 1}, true, false},
		{"inexact run not at the cut", ans("1.00001|b", "5|x"), ans("1.00002|a", "5|x"), []int{0, 1}, true, false},
		{"NULL", ans("a|NULL"), ans("a|NULL"), []int{0, 1}, false, true},
		{"NULL against 0", ans("a|0"), ans("a|NULL"), []int{0, 1}, false, false},
		{"second key first", ans("a|2", "b|1"), ans("a|2", "b|1"), []int{1, 0}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compareOrdered(tc.got, tc.want, tc.keys, tc.limited)
			if (err == nil) != tc.ok {
				t.Fatalf("compareOrdered: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestRandomFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--suite", "random", "--seed", "3", "--count", "20"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.queries) != 20 || cfg.rows[0] != randomDefaultRows || cfg.sfs[0] != 1 || cfg.runs != randomDefaultRuns ||
		cfg.timeout != randomDefaultTimeout || cfg.cold || cfg.queries[0].random == nil || cfg.queries[0].Name != "r001" {
		t.Fatalf("defaults: %+v", cfg)
	}
	cfg, err = parseFlags([]string{"--suite", "random", "--count", "30", "--queries", "r007,R012", "--rows", "2k", "--sf", "0.01", "--runs", "2", "--timeout", "5s"}, io.Discard)
	if err != nil || len(cfg.queries) != 2 || cfg.queries[1].Name != "r012" || cfg.rows[0] != 2000 || cfg.runs != 2 || cfg.timeout != 5*time.Second {
		t.Fatalf("flags: %+v %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"--suite", "random", "--count", "30", "--queries", "r026-r030, r003"}, io.Discard)
	if err != nil || len(cfg.queries) != 6 || cfg.queries[0].Name != "r026" || cfg.queries[4].Name != "r030" || cfg.queries[5].Name != "r003" {
		t.Fatalf("a run of queries: %+v %v", cfg.queries, err)
	}
	cfg, err = parseFlags([]string{"--suite", "shapes"}, io.Discard)
	if err != nil || len(cfg.queries) != 5 || cfg.queries[0].Table != "hits" {
		t.Fatalf("shapes: %+v %v", cfg, err)
	}
	for _, bad := range [][]string{
		{"--suite", "random", "--count", "0"},
		{"--suite", "random", "--rows", "1000,2000"},
		{"--suite", "random", "--sf", "0.1,1"},
		{"--suite", "random", "--count", "5", "--queries", "r006"},
		{"--suite", "random", "--count", "9", "--queries", "r005-r002"},
		{"--suite", "random", "--count", "9", "--queries", "r005-r010"},
	} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestRandomSuiteEndToEnd runs a few generated queries and the shapes on
// gsql's CPU backend and DuckDB at a tiny scale: DuckDB must answer every
// query (a DuckDB error is a generator bug), and gsql's answers must
// agree with DuckDB's.
func TestRandomSuiteEndToEnd(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	for _, args := range [][]string{
		{"--suite", "random", "--seed", "1", "--count", "12", "--rows", "5000", "--sf", "0.01"},
		{"--suite", "shapes", "--rows", "5000"},
	} {
		t.Run(args[1], func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			args = append(args, "--engines", "gsql-cpu,duckdb", "--runs", "1", "--out", dir)
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep report
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			want := 24
			if args[1] == "shapes" {
				want = 10
			}
			if len(rep.Results) != want {
				t.Errorf("%d results, want %d", len(rep.Results), want)
			}
			for _, r := range rep.Results {
				if r.Status != statusOK || r.Reference != "duckdb" {
					t.Errorf("%s on %s: %s %s%s (reference %q)", r.Query, r.Engine, r.Status, r.Error, r.Diff, r.Reference)
				}
			}
			if !strings.Contains(stdout.String(), "vs DuckDB:") {
				t.Errorf("no slower-than-DuckDB section:\n%s", stdout.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "slow.md")); err != nil {
				t.Errorf("slow.md: %v", err)
			}
			if len(rep.Queries) == 0 || len(rep.Queries[0].Features) == 0 {
				t.Errorf("queries without features: %+v", rep.Queries)
			}
		})
	}
}
