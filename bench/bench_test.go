package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	arrow18 "github.com/apache/arrow-go/v18/arrow"
	array18 "github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	memory18 "github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
)

// TestMain lets the test binary serve as the suite's cold children (the
// suite starts its own executable for them).
func TestMain(m *testing.M) {
	if ok, err := runChild(context.Background(), os.Args[1:], os.Stdout); ok {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCanonicalValues(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{string(appendNull(nil)), "NULL"},
		{string(appendString(nil, "NULL")), `"NULL"`},
		{string(appendString(nil, "a\tb\"c")), `"a\tb\"c"`},
		{string(appendString(nil, "Søren")), `"Søren"`},
		{string(appendInt(nil, -42)), "-42"},
		{string(appendUint(nil, 18446744073709551615)), "18446744073709551615"},
		{string(appendFloat(nil, 0.1+0.2)), "0.3"},
		{string(appendFloat(nil, 2.0/3)), "0.666667"},
		{string(appendFloat(nil, 123456789)), "1.23457e+08"},
		{string(appendFloat(nil, 3)), "3"},
		{string(appendFloat(nil, math.Copysign(0, -1))), "0"},
		{string(appendFloat(nil, math.NaN())), "NaN"},
		{string(appendFloat(nil, math.Inf(-1))), "-Inf"},
		{string(appendBool(nil, true)), "true"},
		{string(appendDecimal(nil, big.NewInt(-12345), 0)), "-12345"},
		{string(appendDecimal(nil, big.NewInt(12345), 2)), "123.45"},
		{string(appendDecimal(nil, big.NewInt(2), 3)), "0.002"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestChecksumOrderIndependent(t *testing.T) {
	a, b := newChecksum(10), newChecksum(10)
	rows := []string{`"x"` + "\t1", "NULL\t2", `"x"` + "\t1", `""` + "\tNULL"}
	for _, r := range rows {
		a.AddRow([]byte(r))
	}
	for i := len(rows) - 1; i >= 0; i-- {
		b.AddRow([]byte(rows[i]))
	}
	if !a.Equal(b) || a.String() != b.String() {
		t.Fatalf("same rows in another order: %s vs %s", a, b)
	}
	c := newChecksum(10)
	for _, r := range rows[:3] {
		c.AddRow([]byte(r))
	}
	c.AddRow([]byte(`"x"` + "\t1")) // a duplicate instead of the last row
	if a.Equal(c) {
		t.Fatal("different multisets have equal checksums")
	}
	d := firstDifference(a.Sorted(), c.Sorted())
	if !strings.Contains(d, "only on the left") || !strings.Contains(d, `""`) {
		t.Fatalf("difference: %s", d)
	}
	if got := firstDifference([]string{"a"}, []string{"a"}); got != "rows equal" {
		t.Fatalf("equal lists: %s", got)
	}
	// A checksum that outgrows its sample keeps counting but drops rows.
	e := newChecksum(2)
	for _, r := range rows {
		e.AddRow([]byte(r))
	}
	if e.Sorted() != nil || !e.Equal(a) {
		t.Fatalf("overflowing sample: %v %s", e.Sorted(), e)
	}
}

// TestCanonicalAcrossArrowVersions renders the same values from an Arrow
// v17 record (gsql's side) and an arrow-go v18 record (DuckDB's side).
func TestCanonicalAcrossArrowVersions(t *testing.T) {
	sc17 := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b17 := array.NewRecordBuilder(memory.DefaultAllocator, sc17)
	defer b17.Release()
	b17.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "", "NULL"}, []bool{true, true, false})
	b17.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, []bool{true, false, true})
	b17.Field(2).(*array.Float64Builder).AppendValues([]float64{0.5, 1.0 / 3, 1e9}, nil)
	r17 := b17.NewRecord()
	defer r17.Release()

	// DuckDB returns an integer SUM as DECIMAL(38,0) and may use int32.
	sc18 := arrow18.NewSchema([]arrow18.Field{
		{Name: "s", Type: arrow18.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: &arrow18.Decimal128Type{Precision: 38, Scale: 0}, Nullable: true},
		{Name: "f", Type: arrow18.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	b18 := array18.NewRecordBuilder(memory18.DefaultAllocator, sc18)
	defer b18.Release()
	b18.Field(0).(*array18.StringBuilder).AppendValues([]string{"a", "", "x"}, []bool{true, true, false})
	db := b18.Field(1).(*array18.Decimal128Builder)
	for i, ok := range []bool{true, false, true} {
		if ok {
			db.Append(decimal128.FromI64(int64(i + 1)))
		} else {
			db.AppendNull()
		}
	}
	b18.Field(2).(*array18.Float32Builder).AppendValues([]float32{0.5, 1.0 / 3, 1e9}, nil)
	r18 := b18.NewRecord()
	defer r18.Release()

	c17, c18 := newChecksum(10), newChecksum(10)
	if _, err := addRecordV17(c17, r17, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := addRecordV18(c18, r18, nil); err != nil {
		t.Fatal(err)
	}
	if !c17.Equal(c18) {
		t.Fatalf("v17 and v18 renderings differ: %q vs %q", c17.Sorted(), c18.Sorted())
	}
	want := []string{`""` + "\tNULL\t0.333333", `"a"` + "\t1\t0.5", "NULL\t3\t1e+09"}
	if got := c17.Sorted(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows %q, want %q", got, want)
	}
	// Unsupported types are errors, not panics.
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
	defer lb.Release()
	lb.AppendNull()
	la := lb.NewArray()
	defer la.Release()
	lsc := arrow.NewSchema([]arrow.Field{{Name: "l", Type: la.DataType(), Nullable: true}}, nil)
	lr := array.NewRecord(lsc, []arrow.Array{la}, 1)
	defer lr.Release()
	if _, err := addRecordV17(newChecksum(0), lr, nil); err == nil {
		t.Fatal("list column: no error")
	}
	// Byte accounting: 3 strings "a", "", NULL (AppendValues keeps the
	// NULL slot's "NULL" chars) -> bitmap 1 + offsets 16 + chars 5.
	if got := bytesV17(r17.Column(0)); got != 22 {
		t.Fatalf("string bytes %d, want 22", got)
	}
	if got := bytesV17(r17.Column(1)); got != 1+24 {
		t.Fatalf("int64 bytes %d, want 25", got)
	}
}

func TestLogsDeterministic(t *testing.T) {
	sum := func(n int, seed int64) (*Checksum, []arrow.Record) {
		t.Helper()
		schema, recs := Logs(n, seed)
		if !schema.Equal(LogSchema()) || len(schema.Fields()) < 6 {
			t.Fatalf("schema %s", schema)
		}
		c := newChecksum(0)
		var total int64
		for _, r := range recs {
			total += r.NumRows()
			if _, err := addRecordV17(c, r, nil); err != nil {
				t.Fatal(err)
			}
		}
		if total != int64(n) {
			t.Fatalf("%d rows, want %d", total, n)
		}
		return c, recs
	}
	a, recs := sum(5000, 7)
	b, _ := sum(5000, 7)
	c, _ := sum(5000, 8)
	if !a.Equal(b) {
		t.Fatalf("same seed, different tables: %s vs %s", a, b)
	}
	if a.Equal(c) {
		t.Fatal("different seeds, same table")
	}
	// Nulls and multibyte text are present; timestamps never decrease.
	r := recs[0]
	if r.Column(6).NullN() == 0 || r.Column(7).NullN() == 0 || r.Column(5).NullN() == 0 {
		t.Fatal("expected NULLs in bytes, user_agent and message")
	}
	ts := r.Column(0).(*array.Int64)
	multibyte := false
	msg := r.Column(7).(*array.String)
	for i := 0; i < int(r.NumRows()); i++ {
		if i > 0 && ts.Value(i) < ts.Value(i-1) {
			t.Fatalf("ts decreases at row %d", i)
		}
		if msg.IsValid(i) && len([]rune(msg.Value(i))) != len(msg.Value(i)) {
			multibyte = true
		}
	}
	if !multibyte {
		t.Fatal("no multibyte messages")
	}
	if _, recs := Logs(0, 1); len(recs) != 1 || recs[0].NumRows() != 0 {
		t.Fatal("Logs(0) should give one empty record")
	}
	if testing.Short() {
		return
	}
	// A prefix of a larger table is the smaller table (batch boundaries
	// do not change the stream).
	_, big := Logs(logBatchRows+10, 7)
	if len(big) != 2 || big[1].NumRows() != 10 {
		t.Fatalf("batches: %d", len(big))
	}
	first := newChecksum(0)
	if _, err := addRecordV17(first, big[0].NewSlice(0, 5000), nil); err != nil {
		t.Fatal(err)
	}
	if !first.Equal(a) {
		t.Fatal("prefix of a larger table differs")
	}
}

func TestSVG(t *testing.T) {
	ops := 0
	rep := &report{CPUModel: "Test CPU <x>", Cores: 2, Date: "today", Results: []resultRow{
		{Query: "redact", Rows: 600000, Engine: "gsql-cpu", Status: statusOK, SpeedupVsDuckDB: 2.5},
		{Query: "redact", Rows: 600000, Engine: "gsql-gpu", Status: statusOK, SpeedupVsDuckDB: 150, GPUOps: new(int), CPUOps: &ops},
		{Query: "redact", Rows: 600000, Engine: "duckdb", Status: statusOK, SpeedupVsDuckDB: 1},
		{Query: "a&b", Rows: 1000, Engine: "gsql-cpu", Status: statusFail, SpeedupVsDuckDB: 0.2},
		{Query: "a&b", Rows: 1000, Engine: "gsql-gpu", Status: statusError},
	}}
	*rep.Results[1].GPUOps = 3
	c := chartFromReport(rep)
	if len(c.Groups) != 2 || len(c.Series) != 2 {
		t.Fatalf("chart: %d groups, %d series", len(c.Groups), len(c.Series))
	}
	var buf bytes.Buffer
	if err := writeSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	checkXML(t, svg)
	for _, want := range []string{"<svg", "150.00x", "0.20x FAIL", "ERROR", "a&amp;b @ 1K", "Test CPU &lt;x&gt;", "gsql-gpu"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if n := strings.Count(svg, "<rect"); n != 1+2+3 { // background, legend, 3 bars with a figure
		t.Errorf("%d rects", n)
	}
	// An empty chart is still a valid document.
	buf.Reset()
	if err := writeSVG(&buf, chart{Title: "empty"}); err != nil {
		t.Fatal(err)
	}
	checkXML(t, buf.String())
}

func checkXML(t *testing.T, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("invalid SVG: %v\n%s", err, doc)
		}
	}
}

func TestFlags(t *testing.T) {
	if got, err := parseCounts("600000, 10M,1e6,2k"); err != nil || len(got) != 4 || got[1] != 10_000_000 || got[2] != 1_000_000 || got[3] != 2000 {
		t.Fatalf("parseCounts: %v %v", got, err)
	}
	for _, bad := range []string{"", "x", "-5", "1.5"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q): no error", bad)
		}
	}
	for _, args := range [][]string{{"--engines", "oracle"}, {"--queries", "nope"}, {"--runs", "0"}, {"extra"}, {"--devices", "zero"}, {"--devices", "0,-1"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	if _, err := parseFlags([]string{"--devices", "all"}, io.Discard); err != nil || gsqlDevices != "all" {
		t.Errorf("--devices all: %v (devices %q)", err, gsqlDevices)
	}
	gsqlDevices = ""
	// gsql-gpu-all is asked for by name, never a default.
	if cfg, err := parseFlags(nil, io.Discard); err != nil || slices.Contains(cfg.engines, "gsql-gpu-all") || !slices.Contains(cfg.engines, "gsql-gpu") {
		t.Errorf("default engines %v (%v)", cfg.engines, err)
	}
	if cfg, err := parseFlags([]string{"--engines", "gsql-gpu,gsql-gpu-all"}, io.Discard); err != nil || !slices.Equal(cfg.engines, []string{"gsql-gpu", "gsql-gpu-all"}) {
		t.Errorf("--engines gsql-gpu,gsql-gpu-all: %v (%v)", cfg, err)
	}
	// gsql-gpu-capped takes --pool-limit alone; without one it is an error.
	if _, err := parseFlags([]string{"--engines", "gsql-gpu,gsql-gpu-capped"}, io.Discard); err == nil {
		t.Error("gsql-gpu-capped without --pool-limit: no error")
	}
	if cfg, err := parseFlags([]string{"--engines", "gsql-gpu,gsql-gpu-capped", "--pool-limit", "8GiB"}, io.Discard); err != nil || !capOnlyCapped || gsqlPoolLimit != 8<<30 || len(cfg.engines) != 2 {
		t.Errorf("--engines gsql-gpu,gsql-gpu-capped --pool-limit 8GiB: %v (capped only %v, limit %d)", err, capOnlyCapped, gsqlPoolLimit)
	}
	if _, err := parseFlags([]string{"--engines", "gsql-gpu", "--pool-limit", "8GiB"}, io.Discard); err != nil || capOnlyCapped {
		t.Errorf("--pool-limit without gsql-gpu-capped caps every GPU engine: %v (capped only %v)", err, capOnlyCapped)
	}
	gsqlPoolLimit, capOnlyCapped = 0, false
	cfg, err := parseFlags([]string{"--engines", "gsql-cpu", "--queries", "redact,lpad"}, io.Discard)
	if err != nil || len(cfg.queries) != 2 || cfg.engines[0] != "gsql-cpu" {
		t.Fatalf("parseFlags: %+v %v", cfg, err)
	}
	// --sql adds ad-hoc queries over hits to the ClickBench suite.
	dir := t.TempDir()
	good := filepath.Join(dir, "good.sql")
	if err := os.WriteFile(good, []byte("# parts of Q29\nr1\tSELECT COUNT(*) FROM hits WHERE Referer <> ''\n\nr2\tSELECT SUM(LENGTH(URL)) FROM hits\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = parseFlags([]string{"--suite", "clickbench", "--queries", "q01", "--sql", good, "--cpuprofile", dir}, io.Discard)
	if err != nil || len(cfg.queries) != 3 || cfg.queries[1].Name != "r1" || cfg.queries[2].SQL != "SELECT SUM(LENGTH(URL)) FROM hits" || cfg.profileDir != dir {
		t.Fatalf("--sql: %+v %v", cfg, err)
	}
	if got := cfg.queries[2].Cols; len(got) != 1 || got[0] != "URL" {
		t.Errorf("--sql query columns %v, want [URL]", got)
	}
	stop, err := startProfile(cfg, "q01", 100, "gsql-cpu")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if st, err := os.Stat(filepath.Join(dir, "q01-100-gsql-cpu.prof")); err != nil || st.Size() == 0 {
		t.Errorf("--cpuprofile wrote no profile: %v", err)
	}
	if stop, err := startProfile(cfg, "q01", 100, "duckdb"); err != nil {
		t.Fatal(err)
	} else {
		stop()
	}
	if _, err := os.Stat(filepath.Join(dir, "q01-100-duckdb.prof")); err == nil {
		t.Errorf("--cpuprofile profiled DuckDB")
	}
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("r1 SELECT 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, filepath.Join(dir, "missing.sql")} {
		if _, err := parseFlags([]string{"--suite", "clickbench", "--sql", f}, io.Discard); err == nil {
			t.Errorf("--sql %s: no error", f)
		}
	}
	g, c := countPlacement("Project x [gpu] rows=1\n  Filter [gpu]\n    Sort x [cpu: its input is on the host]\n      Scan t [cpu]\n")
	if g != 2 || c != 2 {
		t.Fatalf("placement %d/%d", g, c)
	}
}

// TestSuiteEndToEnd runs the whole suite at 10K rows on gsql's CPU backend
// and DuckDB and requires every query's checksums to agree.
func TestSuiteEndToEnd(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	if e, err := openDuckDB(); err != nil {
		t.Skipf("DuckDB cannot be opened: %v", err)
	} else {
		e.Close()
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--engines", "gsql-cpu,duckdb", "--rows", "10000", "--redact-rows", "10000", "--runs", "1", "--out", dir}, &stdout, &stderr)
	if err != nil {
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
	seen := map[string]int{}
	for _, r := range rep.Results {
		seen[r.Query]++
		if r.Status != statusOK {
			t.Errorf("%s on %s: %s %s%s", r.Query, r.Engine, r.Status, r.Error, r.Diff)
		}
		if r.Engine == "gsql-cpu" && r.Reference != "duckdb" {
			t.Errorf("%s: compared with %q, not duckdb", r.Query, r.Reference)
		}
		// Every query's first run in a fresh process (one size per table).
		if r.ColdMs == nil || *r.ColdMs <= 0 {
			t.Errorf("%s on %s: no cold run (%s)", r.Query, r.Engine, r.ColdError)
		}
	}
	for _, q := range suite {
		if seen[q.Name] != 2 {
			t.Errorf("%s: %d results, want 2", q.Name, seen[q.Name])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "speedup.svg")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stdout.String(), "redact") {
		t.Errorf("table lacks the redact query:\n%s", stdout.String())
	}
	if t.Failed() {
		t.Log(stdout.String())
	}
}

// TestDuckDBSubstringIndex checks DuckDB's SUBSTRING_INDEX macro (and
// gsql's function) against MySQL's documented results.
func TestDuckDBSubstringIndex(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag)")
	}
	e, err := openDuckDB()
	if err != nil {
		t.Skipf("DuckDB cannot be opened: %v", err)
	}
	defer e.Close()
	ctx := context.Background()
	cases := []struct {
		args, want string
	}{
		{`'www.mysql.com', '.', 2`, `"www.mysql"`},
		{`'www.mysql.com', '.', -2`, `"mysql.com"`},
		{`'www.mysql.com', '.', 1`, `"www"`},
		{`'www.mysql.com', '.', -1`, `"com"`},
		{`'www.mysql.com', '.', 0`, `""`},
		{`'www.mysql.com', '.', 9`, `"www.mysql.com"`},
		{`'www.mysql.com', '.', -9`, `"www.mysql.com"`},
		{`'abc', '/', 1`, `"abc"`},
		{`'a//b', '//', -1`, `"b"`},
		{`'abc', '', 1`, `""`},
		{`NULL, '.', 1`, `NULL`},
		{`'a.b', NULL, 1`, `NULL`},
	}
	g, err := openGSQL("gsql-cpu", "cpu", false)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, eng := range []engine{e, g} {
		for _, c := range cases {
			sum := newChecksum(10)
			if _, err := eng.Run(ctx, "SELECT SUBSTRING_INDEX("+c.args+")", sum); err != nil {
				t.Errorf("%s: %s: %v", eng.Name(), c.args, err)
				continue
			}
			if got := sum.Sorted(); len(got) != 1 || got[0] != c.want {
				t.Errorf("%s: SUBSTRING_INDEX(%s) = %v, want %s", eng.Name(), c.args, got, c.want)
			}
		}
	}
}

// TestTPCHSuiteEndToEnd runs the 22 TPC-H queries at scale factor 0.01 on
// gsql's CPU backend and DuckDB and requires every answer to agree.
func TestTPCHSuiteEndToEnd(t *testing.T) {
	if _, err := parseFlags([]string{"--suite", "tpch", "--queries", "q23"}, io.Discard); err == nil {
		t.Error("--queries q23: no error")
	}
	if _, err := parseFlags([]string{"--suite", "tpch", "--sf", "0"}, io.Discard); err == nil {
		t.Error("--sf 0: no error")
	}
	if _, err := parseFlags([]string{"--suite", "nope"}, io.Discard); err == nil {
		t.Error("--suite nope: no error")
	}
	cfg, err := parseFlags([]string{"--suite", "tpch", "--queries", "q1,Q15", "--sf", "0.01,1"}, io.Discard)
	if err != nil || len(cfg.queries) != 2 || cfg.queries[1].Name != "q15" || len(cfg.sfs) != 2 {
		t.Fatalf("parseFlags: %+v %v", cfg, err)
	}
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"--suite", "tpch", "--sf", "0.01", "--engines", "gsql-cpu,duckdb", "--runs", "1", "--out", dir}, &stdout, &stderr)
	if err != nil {
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
	if len(rep.Results) != 44 {
		t.Errorf("%d results, want 44", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != statusOK {
			t.Errorf("%s on %s: %s %s%s", r.Query, r.Engine, r.Status, r.Error, r.Diff)
		}
	}
	if floatDigits != 6 {
		t.Errorf("floatDigits left at %d", floatDigits)
	}
}

// TestClickBenchSuiteEndToEnd runs the 43 ClickBench queries at 20,000
// rows on gsql's CPU backend and DuckDB and requires every answer to
// agree under datagen/clickbench/answers's rules.
func TestClickBenchSuiteEndToEnd(t *testing.T) {
	cfg, err := parseFlags([]string{"--suite", "clickbench"}, io.Discard)
	if err != nil || len(cfg.queries) != 43 || len(cfg.rows) != 1 || cfg.rows[0] != 1_000_000 {
		t.Fatalf("parseFlags --suite clickbench: %+v %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"--suite", "clickbench", "--queries", "Q29,q3", "--rows", "10M,100M"}, io.Discard)
	if err != nil || len(cfg.queries) != 2 || cfg.queries[0].Name != "q29" || cfg.queries[0].sqlFor("gsql-gpu") == cfg.queries[0].SQL ||
		cfg.queries[0].sqlFor("duckdb") != cfg.queries[0].SQL || cfg.rows[1] != 100_000_000 {
		t.Fatalf("parseFlags: %+v %v", cfg, err)
	}
	for _, bad := range []string{"q44", "q0", "x"} {
		if _, err := parseFlags([]string{"--suite", "clickbench", "--queries", bad}, io.Discard); err == nil {
			t.Errorf("--queries %s: no error", bad)
		}
	}
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"--suite", "clickbench", "--rows", "20000", "--engines", "gsql-cpu,duckdb", "--runs", "1", "--out", dir}, &stdout, &stderr)
	if err != nil {
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
	if len(rep.Results) != 86 {
		t.Errorf("%d results, want 86", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != statusOK {
			t.Errorf("%s on %s: %s %s%s", r.Query, r.Engine, r.Status, r.Error, r.Diff)
		}
		if r.Reference != "duckdb" {
			t.Errorf("%s on %s: compared with %q, not duckdb", r.Query, r.Engine, r.Reference)
		}
		if (r.Variant != "") != (r.Query == "q29" && r.Engine == "gsql-cpu") {
			t.Errorf("%s on %s: variant %q", r.Query, r.Engine, r.Variant)
		}
	}
	if len(rep.Summary) != 2 || rep.Summary[0].Queries != 43 || rep.Summary[0].OK != 43 || rep.Summary[0].SpeedupVsDuckDB <= 0 {
		t.Errorf("summary %+v", rep.Summary)
	}
	if !strings.Contains(stdout.String(), "all engines agree on every query") {
		t.Errorf("table:\n%s", stdout.String())
	}
}

// TestCompareAnswers checks that the ClickBench suite marks an answer
// that differs from DuckDB's, keeps errors, and accepts ties in any order.
func TestCompareAnswers(t *testing.T) {
	// Q13: SearchPhrase, COUNT(*) AS c ... ORDER BY c DESC LIMIT 10.
	q := benchQuery{Name: "q13", SQL: "SELECT SearchPhrase, COUNT(*) AS c FROM hits GROUP BY SearchPhrase ORDER BY c DESC LIMIT 10", clickbench: 13}
	cols := []string{"SearchPhrase", "c"}
	duck := answers.Answer{Columns: cols, Rows: [][]string{{"a", "3"}, {"b", "2"}, {"c", "2"}, {"d", "1"}}}
	cases := []struct {
		name string
		got  *answers.Answer
		want string
	}{
		{"same", &answers.Answer{Columns: cols, Rows: [][]string{{"a", "3"}, {"c", "2"}, {"b", "2"}, {"x", "1"}}}, statusOK},
		{"differs", &answers.Answer{Columns: cols, Rows: [][]string{{"a", "3"}, {"b", "2"}, {"x", "2"}, {"d", "1"}}}, statusFail},
		{"error", nil, statusError},
	}
	for _, c := range cases {
		out := []resultRow{{Engine: "gsql-cpu", Status: statusOK}, {Engine: "duckdb", Status: statusOK}}
		if c.got == nil {
			out[0].Status = statusError
		}
		compareAnswers(context.Background(), q, 20000, out, []*answers.Answer{c.got, &duck}, []engine{nil, nil})
		if out[0].Status != c.want || out[1].Status != statusOK {
			t.Errorf("%s: statuses %s/%s, want %s/ok (%s)", c.name, out[0].Status, out[1].Status, c.want, out[0].Diff)
		}
		if c.got != nil && out[0].Reference != "duckdb" {
			t.Errorf("%s: reference %q", c.name, out[0].Reference)
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := []resultRow{
		{Query: "q1", Rows: 10, Engine: "gsql-cpu", Status: statusOK, MedianMs: 2},
		{Query: "q1", Rows: 10, Engine: "duckdb", Status: statusOK, MedianMs: 8},
		{Query: "q2", Rows: 10, Engine: "gsql-cpu", Status: statusOK, MedianMs: 8},
		{Query: "q2", Rows: 10, Engine: "duckdb", Status: statusOK, MedianMs: 2},
		{Query: "q3", Rows: 10, Engine: "gsql-cpu", Status: statusFail, MedianMs: 1},
		{Query: "q3", Rows: 10, Engine: "duckdb", Status: statusOK, MedianMs: 100},
		{Query: "q1", Rows: 20, Engine: "gsql-cpu", Status: statusError},
		{Query: "q1", Rows: 20, Engine: "duckdb", Status: statusOK, MedianMs: 5},
	}
	s := summarize(rs, []string{"gsql-cpu", "duckdb"})
	if len(s) != 4 {
		t.Fatalf("%d summary rows: %+v", len(s), s)
	}
	g, d := s[0], s[1]
	if g.Engine != "gsql-cpu" || g.Queries != 2 || g.TotalMs != 10 || math.Abs(g.GeomeanMs-4) > 1e-9 || g.OK != 2 || g.Failed != 1 {
		t.Errorf("gsql-cpu at 10 rows: %+v", g)
	}
	if d.TotalMs != 10 || math.Abs(d.GeomeanMs-4) > 1e-9 || math.Abs(g.SpeedupVsDuckDB-1) > 1e-9 {
		t.Errorf("duckdb at 10 rows: %+v (gsql-cpu %+v)", d, g)
	}
	if s[2].Rows != 20 || s[2].Queries != 0 || s[2].Errors != 1 || s[2].GeomeanMs != 0 || s[3].OK != 1 {
		t.Errorf("at 20 rows: %+v", s[2:])
	}
}

// TestClickBenchCold times ClickBench's cold runs where --cold-rows asks
// for them, and only there.
func TestClickBenchCold(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag)")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--suite", "clickbench", "--rows", "5000,20000", "--cold-rows", "5000", "--queries", "q01,q29",
		"--engines", "gsql-cpu,duckdb", "--runs", "1", "--out", dir}, &stdout, &stderr)
	if err != nil {
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
	if len(rep.Results) != 8 {
		t.Fatalf("%d results, want 8", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != statusOK {
			t.Errorf("%s @ %d on %s: %s %s%s", r.Query, r.Rows, r.Engine, r.Status, r.Error, r.Diff)
		}
		cold := r.ColdMs != nil && *r.ColdMs > 0
		if cold != (r.Rows == 5000) || r.ColdError != "" {
			t.Errorf("%s @ %d on %s: cold %v (%s)", r.Query, r.Rows, r.Engine, r.ColdMs, r.ColdError)
		}
	}
}

// A run writes its rows so far to results.partial.json after every query
// (a run cut short keeps them), and the finished run removes it beside
// results.json.
func TestPartialReport(t *testing.T) {
	dir := t.TempDir()
	cfg := &config{out: dir}
	rep := newReport(cfg)
	rep.add(cfg, []resultRow{{Query: "q01", Engine: "gsql-cpu", Status: "ok", Plan: "Scan t"}})
	b, err := os.ReadFile(filepath.Join(dir, partialName))
	if err != nil {
		t.Fatal(err)
	}
	var got report
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || got.Results[0].Query != "q01" || got.Results[0].Plan != "Scan t" {
		t.Fatalf("partial report: %+v", got.Results)
	}
	rep.add(cfg, []resultRow{{Query: "q02", Engine: "gsql-cpu", Status: "ok"}})
	if b, err = os.ReadFile(filepath.Join(dir, partialName)); err != nil || json.Unmarshal(b, &got) != nil || len(got.Results) != 2 {
		t.Fatalf("partial report after two queries: %v %+v", err, got.Results)
	}
	rep.finish()
	if err := writeOutputs(cfg, rep, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, partialName)); !os.IsNotExist(err) {
		t.Errorf("the partial report is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.json")); err != nil {
		t.Error(err)
	}
}
