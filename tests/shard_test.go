package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

// TestRunnerShardsQueries checks KeepQuery and Observe: every shard runs
// every statement, the shards' queries partition the file's (skipped
// records keep their index), and each executed record is observed once
// with its failure.
func TestRunnerShardsQueries(t *testing.T) {
	eng := &fakeEngine{
		results: map[string]arrow.Record{
			"q0": record(t, []any{0}), "q1": record(t, []any{1}),
			"q2": record(t, []any{2}), "q3": record(t, []any{3}),
			"q4": record(t, []any{4}),
		},
		errs: map[string]error{"q5": errors.New("no such column x")},
	}
	src := `hash-threshold 8

statement ok
CREATE TABLE t (a INT)

query I nosort
q0
----
0

skipif gsql
query I nosort
q1
----
1

statement ok
INSERT INTO t VALUES (1)

query I nosort
q2
----
2

query I nosort
q3
----
99

query I nosort
q4
----
4

query I nosort
q5
----
5
`
	s, err := ParseScript("shard.test", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		shard, of int
		want      []string // observed records: SQL and pass/fail
	}{
		{0, 1, []string{"CREATE TABLE t (a INT) ok", "q0 ok", "INSERT INTO t VALUES (1) ok", "q2 ok", "q3 fail", "q4 ok", "q5 fail"}},
		{0, 2, []string{"CREATE TABLE t (a INT) ok", "q0 ok", "INSERT INTO t VALUES (1) ok", "q2 ok", "q4 ok"}},
		{1, 2, []string{"CREATE TABLE t (a INT) ok", "INSERT INTO t VALUES (1) ok", "q3 fail", "q5 fail"}},
		{1, 3, []string{"CREATE TABLE t (a INT) ok", "INSERT INTO t VALUES (1) ok", "q4 ok"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d_of_%d", tc.shard, tc.of), func(t *testing.T) {
			var got []string
			r := &Runner{
				Engine:    eng,
				KeepQuery: func(i int) bool { return i%tc.of == tc.shard },
				Observe: func(rec *Record, elapsed time.Duration, f *Failure) {
					if elapsed < 0 {
						t.Errorf("%s: negative elapsed %v", rec.SQL, elapsed)
					}
					st := "ok"
					if f != nil {
						st = "fail"
					}
					got = append(got, rec.SQL+" "+st)
				},
			}
			sum := r.Run(context.Background(), s)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("observed\n  %v\nwant\n  %v", got, tc.want)
			}
			fails := 0
			for _, w := range tc.want {
				if strings.HasSuffix(w, " fail") {
					fails++
				}
			}
			if len(sum.Failures) != fails {
				t.Errorf("%d failures, want %d", len(sum.Failures), fails)
			}
		})
	}
}
