package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/fileio"
	"github.com/gsqlengine/gsql/shell"
)

const redact = `SELECT CASE WHEN visibility = 'public' THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) ELSE 'X X' END AS redacted FROM people`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sql")
	os.WriteFile(script, []byte("CREATE TABLE t (a BIGINT, b VARCHAR);\nINSERT INTO t VALUES (1, 'x'), (2, NULL);\nSELECT * FROM t ORDER BY a;\n"), 0o644)
	failing := filepath.Join(dir, "bad.sql")
	os.WriteFile(failing, []byte("SELECT 1;\nSELECT * FROM nope;\nSELECT 2;\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		stdin  string
		status int
		out    string // exact stdout, or prefix when it ends with "…"
		err    string // substring of stderr
	}{
		{"-c", []string{"-c", "SELECT 1 AS one"}, "", 0, "+-----+\n| one |\n+-----+\n|   1 |\n+-----+\n1 row\n", ""},
		{"--mode csv", []string{"--mode", "csv", "-c", "SELECT 'a' AS s, NULL AS n"}, "", 0, "s,n\na,\n", ""},
		{"-f", []string{"-f", script, "--mode=jsonl"}, "", 0, "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":null}\n", ""},
		{"-f fails and bails", []string{"-f", failing, "--mode", "csv"}, "", 1, "1\n1\n", "Error: " + failing + ":2: "},
		{"no bail", []string{"-f", failing, "--mode", "csv", "--bail=false"}, "", 1, "1\n1\n2\n2\n", failing + ":2: "},
		{"piped", nil, ".mode tsv\nSELECT 1 AS x;\nSELECT 'é' AS y;\n", 0, "x\n1\ny\né\n", ""},
		{"piped error", nil, "SELECT 1 AS x;\nSELEC 2;\nSELECT 3;\n", 1, "+---+\n| x |\n+---+\n| 1 |\n+---+\n1 row\n", "Error: "},
		{"demo redact", []string{"--demo", "1000", "--mode", "csv", "-c", "SELECT COUNT(*) FROM (" + redact + ") AS r"}, "", 0, "COUNT(*)\n1000\n", ""},
		{"demo limit", []string{"--demo", "1000", "-c", redact + " LIMIT 3"}, "", 0, "+----------+…", ""},
		{"device cpu", []string{"--device", "cpu", "-c", ".device"}, "", 0, "cpu\n", ""},
		{"bad device", []string{"--device", "tpu"}, "", 1, "", "unknown device"},
		{"bad mode", []string{"--mode", "xml"}, "", 2, "", `--mode: unknown mode "xml"`},
		{"bad pool limit", []string{"--pool-limit", "lots"}, "", 2, "", "--pool-limit: invalid size"},
		{"pool limit", []string{"--pool-limit", "2GiB", "-c", "SELECT 1 AS x", "--mode", "csv"}, "", 0, "x\n1\n", ""},
		{"bad flag", []string{"--frob"}, "", 2, "", "flag provided but not defined: -frob"},
		{"extra arg", []string{"x.db", "y.db"}, "", 2, "", `unexpected argument "y.db"`},
		{"not a database", []string{script}, "", 1, "", "not a directory"},
		{"missing file", []string{"-f", filepath.Join(dir, "none.sql")}, "", 1, "", "no such file"},
		{"stats", []string{"-c", ".stats"}, "", 0, "…", ""},
		{"kernels", []string{"--demo", "10", "-c", ".kernels SELECT UPPER(name) FROM people WHERE visibility = 'public'"}, "", 0, "// Project upper(name) AS UPPER(name) Filter (visibility = 'public') (fused kernel) [gpu]\n// kernel …", ""},
		{"kernels of DDL", []string{"-c", ".kernels DROP TABLE x"}, "", 1, "", ".kernels: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			status := run(tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if status != tc.status {
				t.Fatalf("status %d, want %d; stderr %q", status, tc.status, errb.String())
			}
			if p, ok := strings.CutSuffix(tc.out, "…"); ok {
				if !strings.HasPrefix(out.String(), p) {
					t.Fatalf("stdout %q, want prefix %q", out.String(), p)
				}
			} else if out.String() != tc.out {
				t.Fatalf("stdout %q, want %q", out.String(), tc.out)
			}
			if !strings.Contains(errb.String(), tc.err) || (tc.err == "" && errb.Len() > 0) {
				t.Fatalf("stderr %q, want %q", errb.String(), tc.err)
			}
		})
	}
}

// TestDatabaseFile: `gsql PATH` opens the same tables in the next run,
// and .open switches databases.
func TestDatabaseFile(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, "my.db"), filepath.Join(dir, "other.db")
	steps := []struct {
		args  []string
		stdin string
		out   string
	}{
		{[]string{path, "-c", "CREATE TABLE t (a BIGINT, b VARCHAR); INSERT INTO t VALUES (1, 'x'), (2, NULL)"}, "", ""},
		{[]string{path, "--mode", "csv", "-c", "SELECT * FROM t ORDER BY a"}, "", "a,b\n1,x\n2,\n"},
		// .open another database, write there, come back.
		{[]string{path, "--mode", "csv"}, ".open " + other + "\nCREATE TABLE u AS SELECT a * 10 AS a FROM (SELECT 5 AS a) s;\n.tables\n.open " + path + "\n.tables\n.open\n.tables\n", "u\nt\n"},
		{[]string{other, "--mode", "csv", "-c", "SELECT a FROM u"}, "", "a\n50\n"},
		{[]string{"--readonly", path, "-c", ".check"}, "", "ok: 1 segments, …"},
	}
	for i, st := range steps {
		var out, errb bytes.Buffer
		if status := run(st.args, strings.NewReader(st.stdin), &out, &errb); status != 0 {
			t.Fatalf("step %d: status %d, stderr %q", i, status, errb.String())
		}
		if p, ok := strings.CutSuffix(st.out, "…"); ok && strings.HasPrefix(out.String(), p) {
			continue
		}
		if out.String() != st.out {
			t.Fatalf("step %d: stdout %q, want %q", i, out.String(), st.out)
		}
	}
}

// TestInterruptLongQuery cancels a long query over a generated table through
// the shell's interrupt path (what SIGINT calls) and checks that it returns
// promptly and that the shell goes on.
func TestInterruptLongQuery(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema, recs := datagen.People(2_000_000, 1)
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	sh := shell.New(db, shell.Options{Out: &out, Err: &errb})
	done := make(chan error, 1)
	// The cross join is far too big to finish: only cancellation ends it.
	go func() {
		done <- sh.Exec(context.Background(), "SELECT COUNT(*) FROM people a, people b WHERE a.name = b.visibility;")
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	for !sh.Interrupt() {
		if time.Since(start) > 5*time.Second {
			t.Fatal("no statement running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("query finished before it was interrupted: %q", out.String())
		}
		if !errors.Is(err, context.Canceled) {
			t.Logf("error: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("query not cancelled within 3s")
	}
	t.Logf("cancelled in %v", time.Since(start))
	if !strings.Contains(errb.String(), "Error: interrupted") {
		t.Errorf("stderr %q", errb.String())
	}
	out.Reset()
	if err := sh.Exec(context.Background(), "SELECT COUNT(*) AS n FROM people;"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2000000") {
		t.Errorf("after interrupt: %q", out.String())
	}
}

func TestImportExport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,name,score,ok\n1,Ada Lovelace,1.5,true\n2,日本 語,,false\n3,,2.0,\n"), 0o644)
	n, err := db.Import(ctx, csvPath, "t", gsql.ImportOptions{})
	if err != nil || n != 3 {
		t.Fatalf("import: %d %v", n, err)
	}
	schema, _ := db.TableSchema("t")
	if got := schema.String(); !strings.Contains(got, "id: type=int64") || !strings.Contains(got, "score: type=float64") || !strings.Contains(got, "ok: type=bool") || !strings.Contains(got, "name: type=utf8") {
		t.Fatalf("schema %s", got)
	}
	// Export in every format, import back, export again: identical files.
	for _, ext := range []string{"csv", "parquet", "arrow"} {
		p1 := filepath.Join(dir, "a."+ext)
		if err := db.Export(ctx, "SELECT * FROM t ORDER BY id", p1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Import(ctx, p1, "t_"+ext, gsql.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		p2 := filepath.Join(dir, "b."+ext)
		if err := db.Export(ctx, "SELECT * FROM t_"+ext+" ORDER BY id", p2); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(p1)
		b, _ := os.ReadFile(p2)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: re-export differs", ext)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.csv")); string(got) != "id,name,score,ok\n1,Ada Lovelace,1.5,true\n2,日本 語,,false\n3,,2.0,\n" {
		t.Errorf("csv export %q", got)
	}
	// Failures: no table is left behind.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n3\n"), 0o644)
	if _, err := db.Import(ctx, bad, "bad", gsql.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "bad.csv:3:2: expected 2 fields, got 1") {
		t.Fatalf("error %v", err)
	}
	if _, err := db.Import(ctx, csvPath, "t", gsql.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("error %v", err)
	}
	for _, name := range db.Tables() {
		if name == "bad" {
			t.Fatal("failed import left a table")
		}
	}
	if err := db.Export(ctx, "SELECT * FROM nope", filepath.Join(dir, "x.csv")); err == nil {
		t.Fatal("export of a failing query succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); err == nil {
		t.Fatal("failed export left a file")
	}
	_ = fileio.FormatCSV
}

// TestKernelsPrintsWarpForm checks that .kernels prints the one-row-per-warp
// form of a kernel that has one, with the length from which it runs.
func TestKernelsPrintsWarpForm(t *testing.T) {
	var out, errb bytes.Buffer
	if status := run([]string{"--demo", "10", "-c", ".kernels SELECT REPLACE(name, ' ', '_') FROM people"}, strings.NewReader(""), &out, &errb); status != 0 {
		t.Fatalf("status %d: %s", status, errb.String())
	}
	if !strings.Contains(out.String(), "one row per warp (batches averaging >= 128 bytes a string row)") || !strings.Contains(out.String(), "#define GSQL_WARP 1") {
		t.Fatalf(".kernels printed no warp form:\n%.400s", out.String())
	}
}

// TestShellImportStreams: the shell's .import goes through the database's
// streaming import (on disk here), draws its progress bar, and reads a
// file without a known extension as CSV.
func TestShellImportStreams(t *testing.T) {
	dir := t.TempDir()
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: filepath.Join(dir, "db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	b.WriteString("k|v\n")
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "%d|\"v\n%d\"\n", i, i)
	}
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	sh := shell.New(db, shell.Options{Out: &out, Err: &errb, ProgressMin: 1})
	for _, cmd := range []string{".import --delimiter | " + data + " t", "SELECT COUNT(*), SUM(k) FROM t;"} {
		if err := sh.Exec(context.Background(), cmd); err != nil {
			t.Fatalf("%s: %v: %s", cmd, err, errb.String())
		}
	}
	if !strings.Contains(out.String(), "50000") || !strings.Contains(out.String(), "1249975000") {
		t.Errorf("stdout %q", out.String())
	}
	if !strings.Contains(errb.String(), "100%") {
		t.Errorf("no progress bar in %q", errb.String())
	}
}

// TestStatsTableMemory: .stats shows each table's host bytes, heap and
// mapped, and their total.
func TestStatsTableMemory(t *testing.T) {
	var out, errb bytes.Buffer
	if status := run([]string{"--device", "cpu", "--demo", "1000", "-c", ".stats"}, strings.NewReader(""), &out, &errb); status != 0 {
		t.Fatalf("status %d, stderr %q", status, errb.String())
	}
	m := regexp.MustCompile(`(?m)^table people: 1000 rows, (\d+) bytes in host memory \((\d+) in the heap, 0 mapped from disk\)$`).FindStringSubmatch(out.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf(".stats:\n%s", out.String())
	}
	// 1000 names ("First Last") and visibilities, with their offsets.
	if n, _ := strconv.Atoi(m[1]); n < 20_000 || n > 40_000 {
		t.Fatalf("people holds %d bytes", n)
	}
	if !strings.Contains(out.String(), "tables in host memory: "+m[1]+" bytes") {
		t.Fatalf(".stats total:\n%s", out.String())
	}
}
