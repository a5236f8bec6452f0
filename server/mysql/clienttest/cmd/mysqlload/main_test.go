package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRunFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{nil, ""},
		{[]string{"-addr", "127.0.0.1:3307", "-mix", "tpch=0,point=1,insert=0"}, ""},
		{[]string{"-clients", "0"}, "must be positive"},
		{[]string{"-duration", "0s"}, "must be positive"},
		{[]string{"-device", "tpu"}, `-device "tpu"`},
		{[]string{"-mix", "tpch=1,bogus=2"}, `unknown class "bogus"`},
		{[]string{"-mix", "tpch=x"}, "want class=weight"},
		{[]string{"-mix", "tpch=-1"}, "want class=weight"},
		{[]string{"-mix", "tpch=0,point=0"}, "all weights are zero"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		_, err := parseRunFlags(tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
		}
	}
}

// Q15's view becomes a WITH clause; every query is one statement.
func TestTPCHQueries(t *testing.T) {
	qs, err := tpchQueries()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 22 {
		t.Fatalf("%d queries", len(qs))
	}
	for i, q := range qs {
		if strings.Contains(strings.TrimRight(q, "; \n"), ";") || strings.Contains(strings.ToLower(q), "create view") {
			t.Errorf("Q%d is not one statement:\n%s", i+1, q)
		}
	}
	if !strings.HasPrefix(qs[14], "with revenue0 (supplier_no, total_revenue) as (") {
		t.Errorf("Q15:\n%s", qs[14])
	}
}

func TestRank(t *testing.T) {
	for _, tc := range []struct{ n, p, want int }{{1, 99, 0}, {100, 99, 98}, {100, 50, 49}, {10, 99, 9}, {3, 50, 1}} {
		if got := rank(tc.n, tc.p); got != tc.want {
			t.Errorf("rank(%d, %d) = %d, want %d", tc.n, tc.p, got, tc.want)
		}
	}
}

// TestRunInProcess runs a short load against an in-process server over a
// tiny generated TPC-H, on the CPU: every class runs, nothing fails, no
// acknowledged insert is lost, and compare prints the report again.
func TestRunInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a load for a second")
	}
	out := filepath.Join(t.TempDir(), "cpu.json")
	var buf bytes.Buffer
	err := runCmd([]string{"-sf", "0.01", "-clients", "4", "-duration", "1s", "-out", out}, &buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, cl := range classes {
		if rep.Classes[cl].N == 0 || rep.Classes[cl].Errors != 0 {
			t.Errorf("class %s: %+v", cl, rep.Classes[cl])
		}
	}
	if rep.Acked == 0 || rep.Lost != 0 || rep.SideRows != rep.Acked || rep.Total.Errors != 0 {
		t.Errorf("report %+v", rep)
	}
	buf.Reset()
	if err := compareCmd([]string{out, out}, &buf); err != nil || !strings.Contains(buf.String(), "inserts acked (lost)") {
		t.Errorf("compare: %v\n%s", err, buf.String())
	}
	if err := compareCmd(nil, &buf); err == nil {
		t.Error("compare without reports: no error")
	}
}

// A server without TPC-H is a clear error, not a load of failures.
func TestRunNoTPCH(t *testing.T) {
	addr, stop, err := startServer(context.Background(), config{device: "cpu", data: filepath.Join(t.TempDir(), "empty")})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, _ := parseRunFlags([]string{"-addr", addr, "-clients", "1", "-duration", "10ms"})
	_, err = runLoad(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "no TPC-H orders table") {
		t.Fatalf("error %v", err)
	}
}
