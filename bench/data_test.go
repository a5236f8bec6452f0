package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/file"

	"github.com/gsqlengine/gsql/fileio"
)

// testGen is a small table generator for openDataSet: batches records of
// rows each, made with mem, counting its runs. failAt > 0 fails the run
// after that many records.
type testGen struct {
	t       *testing.T
	mem     *memory.CheckedAllocator
	batches int
	rows    int
	failAt  int
	runs    int
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func (g *testGen) table() tableGen {
	return tableGen{name: "t", schema: testSchema, gen: func(ctx context.Context, emit func(arrow.Record) error) error {
		g.runs++
		for b := 0; b < g.batches; b++ {
			if g.failAt > 0 && b == g.failAt {
				return errors.New("generator failed")
			}
			// Streaming: the previous record was written and released
			// before this one is made.
			if n := g.mem.CurrentAlloc(); n != 0 {
				g.t.Errorf("batch %d: %d bytes of earlier records still held", b, n)
			}
			bld := array.NewRecordBuilder(g.mem, testSchema)
			for i := 0; i < g.rows; i++ {
				id := int64(b*g.rows + i)
				bld.Field(0).(*array.Int64Builder).Append(id)
				bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", id))
			}
			rec := bld.NewRecord()
			bld.Release()
			if err := emit(rec); err != nil {
				return err
			}
		}
		return nil
	}}
}

// TestDataSetWriteAndReuse: a data set is written a record (row group) at
// a time with every record released, reused while its manifest and files
// agree, and written again when the directory is half written or stale.
func TestDataSetWriteAndReuse(t *testing.T) {
	ctx := context.Background()
	const key = "test-rows1000-seed1"
	cases := []struct {
		name    string
		damage  func(t *testing.T, dir string) // after a complete write
		rewrite bool
	}{
		{"complete", func(*testing.T, string) {}, false},
		{"no manifest (killed while writing)", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, manifestName)))
		}, true},
		{"truncated file", func(t *testing.T, dir string) {
			must(t, os.Truncate(filepath.Join(dir, "t.parquet"), 100))
		}, true},
		{"missing file", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "t.parquet")))
		}, true},
		{"corrupt manifest", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, manifestName), []byte("{not json"), 0o644))
		}, true},
		{"other key", func(t *testing.T, dir string) {
			m, err := readManifest(dir, key)
			must(t, err)
			m.Key = "test-rows1000-seed2"
			must(t, writeManifest(dir, *m))
		}, true},
		{"older format", func(t *testing.T, dir string) {
			m, err := readManifest(dir, key)
			must(t, err)
			m.Format = manifestFormat - 1
			must(t, writeManifest(dir, *m))
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			g := &testGen{t: t, mem: mem, batches: 4, rows: 250}
			var log bytes.Buffer
			d, err := openDataSet(ctx, root, key, []tableGen{g.table()}, &log)
			must(t, err)
			mem.AssertSize(t, 0)
			checkDataFile(t, d, 4, 1000)
			tc.damage(t, d.dir)
			d, err = openDataSet(ctx, root, key, []tableGen{g.table()}, &log)
			must(t, err)
			if want := map[bool]int{false: 1, true: 2}[tc.rewrite]; g.runs != want {
				t.Errorf("generator ran %d times, want %d\n%s", g.runs, want, log.String())
			}
			checkDataFile(t, d, 4, 1000)
			if w, r := strings.Count(log.String(), "wrote "), strings.Count(log.String(), "reusing "); w != g.runs || r != 2-g.runs {
				t.Errorf("log says wrote %d and reusing %d times, generator ran %d:\n%s", w, r, g.runs, log.String())
			}
		})
	}
}

// TestDataSetFailedWrite: a generator that fails part way leaves no
// manifest, and the next run writes the data set whole.
func TestDataSetFailedWrite(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	g := &testGen{t: t, mem: mem, batches: 4, rows: 100, failAt: 2}
	if _, err := openDataSet(ctx, root, "k", []tableGen{g.table()}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "generator failed") {
		t.Fatalf("error %v, want the generator's", err)
	}
	mem.AssertSize(t, 0)
	if _, err := os.Stat(filepath.Join(root, "k", manifestName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("manifest after a failed write: %v", err)
	}
	g.failAt = 0
	d, err := openDataSet(ctx, root, "k", []tableGen{g.table()}, &bytes.Buffer{})
	must(t, err)
	checkDataFile(t, d, 4, 400)
}

// checkDataFile reads the data set's file back: one row group per
// generated record, the rows in order, the manifest's counts.
func checkDataFile(t *testing.T, d *dataDir, rowGroups int, rows int64) {
	t.Helper()
	path, err := d.path("t")
	must(t, err)
	pf, err := file.OpenParquetFile(path, false)
	must(t, err)
	if pf.NumRowGroups() != rowGroups {
		t.Errorf("%d row groups, want %d", pf.NumRowGroups(), rowGroups)
	}
	pf.Close()
	_, recs, err := fileio.ReadParquet(context.Background(), path, fileio.ReadOptions{})
	must(t, err)
	defer fileio.ReleaseAll(recs)
	var n int64
	for _, r := range recs {
		ids := r.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			if ids.Value(i) != n {
				t.Fatalf("row %d has id %d", n, ids.Value(i))
			}
			n++
		}
	}
	mt := d.table("t")
	if n != rows || mt.Rows != rows {
		t.Errorf("%d rows read, manifest %d, want %d", n, mt.Rows, rows)
	}
	if mt.Columns["id"] != 8*rows || mt.Columns["s"] <= 0 {
		t.Errorf("column bytes %v", mt.Columns)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDataFlagSameAnswers runs each suite with and without --data (and
// again with --data, reusing the files) on gsql's CPU backend and
// DuckDB: every answer agrees with DuckDB's, and the checksums and input
// bytes are those of the run that loaded the generated records.
func TestDataFlagSameAnswers(t *testing.T) {
	if !duckdbAvailable {
		t.Skip("DuckDB is not in this build (needs cgo and no noduckdb tag): skipping the end-to-end comparison")
	}
	cases := []struct {
		name string
		args []string
		// tieFree: the answers are the same rows whatever order the
		// engines scan in (ClickBench's LIMITs cut runs of ties).
		tieFree bool
	}{
		{"micro", []string{"--rows", "5000", "--redact-rows", "5000", "--cold=false"}, true},
		{"tpch", []string{"--suite", "tpch", "--sf", "0.01"}, true},
		{"ssb", []string{"--suite", "ssb", "--sf", "0.01"}, true},
		{"tpch random parameters", []string{"--suite", "tpch", "--sf", "0.01", "--params", "random", "--sets", "2", "--queries", "q03,q15"}, true},
		{"clickbench", []string{"--suite", "clickbench", "--rows", "5000"}, false},
		{"shapes", []string{"--suite", "shapes", "--rows", "5000"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir() // shapes and clickbench would share hits
			base := append([]string{"--engines", "gsql-cpu,duckdb", "--runs", "1"}, tc.args...)
			want, _ := runReport(t, base)
			got, log := runReport(t, append(base, "--data", data))
			if !strings.Contains(log, "wrote "+data) {
				t.Errorf("first --data run wrote nothing:\n%s", log)
			}
			again, log := runReport(t, append(base, "--data", data))
			if !strings.Contains(log, "reusing "+data) || strings.Contains(log, "wrote "+data) {
				t.Errorf("second --data run did not reuse the files:\n%s", log)
			}
			for _, rep := range []*report{got, again} {
				if len(rep.Results) != len(want.Results) {
					t.Fatalf("%d results with --data, %d without", len(rep.Results), len(want.Results))
				}
				for i, r := range rep.Results {
					w := want.Results[i]
					if r.Query != w.Query || r.Engine != w.Engine || r.Rows != w.Rows {
						t.Fatalf("result %d is %s/%s/%d, want %s/%s/%d", i, r.Query, r.Engine, r.Rows, w.Query, w.Engine, w.Rows)
					}
					if r.Status != statusOK {
						t.Errorf("%s on %s with --data: %s %s%s", r.Query, r.Engine, r.Status, r.Error, r.Diff)
					}
					if r.InputBytes != w.InputBytes || r.OutRows != w.OutRows {
						t.Errorf("%s on %s: input %d bytes, %d rows out with --data; %d, %d without", r.Query, r.Engine, r.InputBytes, r.OutRows, w.InputBytes, w.OutRows)
					}
					if tc.tieFree && r.Checksum != w.Checksum {
						t.Errorf("%s on %s: checksum %s with --data, %s without", r.Query, r.Engine, r.Checksum, w.Checksum)
					}
				}
			}
		})
	}
}

// runReport runs the bench with args and returns its report and log.
func runReport(t *testing.T, args []string) (*report, string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append(args, "--out", out), &stdout, &stderr); err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	must(t, err)
	var rep report
	must(t, json.Unmarshal(b, &rep))
	return &rep, stderr.String()
}
