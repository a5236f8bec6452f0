package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// --data DIR: the suites' tables are written once to Parquet files under
// DIR and every engine loads them from there (gsql through its Parquet
// import, DuckDB through read_parquet), so the bench process never holds
// the generator's copy beside the engines' own: each engine holds one.
//
// Layout: DIR/KEY/TABLE.parquet and DIR/KEY/manifest.json, where KEY
// names the suite's data set (tpch-sf1, hits-rows1000000-seed42,
// logs-rows10000-seed42, ...). The manifest is written last, under a
// temporary name renamed into place, and lists every file with its size:
// a directory without a manifest that matches (a run killed while
// writing) is emptied and written again.

// manifestName is the file that marks a complete data set directory.
const manifestName = "manifest.json"

// manifestFormat changes when the files' layout or content changes, so an
// older directory is rewritten rather than misread.
const manifestFormat = 1

// manifest describes a complete data set directory.
type manifest struct {
	Format int             `json:"format"`
	Key    string          `json:"key"`
	Tables []manifestTable `json:"tables"`
}

// manifestTable is one table's file: its rows, its size on disk and the
// Arrow buffer bytes of each column (the input bytes of GB/s).
type manifestTable struct {
	Name      string           `json:"name"`
	File      string           `json:"file"`
	Rows      int64            `json:"rows"`
	FileBytes int64            `json:"file_bytes"`
	Columns   map[string]int64 `json:"column_arrow_bytes"`
}

// tableGen makes one table's records in order, handing each to emit,
// which owns and releases it.
type tableGen struct {
	name   string
	schema *arrow.Schema
	gen    func(ctx context.Context, emit func(arrow.Record) error) error
}

// dataDir is a data set's directory and its manifest.
type dataDir struct {
	dir string
	man manifest
}

// path is the Parquet file of table.
func (d *dataDir) path(table string) (string, error) {
	for _, t := range d.man.Tables {
		if t.Name == table {
			return filepath.Join(d.dir, t.File), nil
		}
	}
	return "", fmt.Errorf("data set %s has no table %s", d.dir, table)
}

// table is table's manifest entry (zero when absent).
func (d *dataDir) table(name string) manifestTable {
	for _, t := range d.man.Tables {
		if t.Name == name {
			return t
		}
	}
	return manifestTable{}
}

// openDataSet returns the data set KEY under root: reused when its
// manifest is complete and its files have the sizes it records, else
// (missing, half written, stale) emptied and written from tables.
func openDataSet(ctx context.Context, root, key string, tables []tableGen, stderr io.Writer) (*dataDir, error) {
	dir := filepath.Join(root, key)
	if m, err := readManifest(dir, key); err == nil {
		fmt.Fprintf(stderr, "reusing %s\n", dir)
		return &dataDir{dir: dir, man: *m}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "rewriting %s: %v\n", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("--data: clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	t0 := time.Now()
	m := manifest{Format: manifestFormat, Key: key}
	for _, t := range tables {
		mt, err := writeTableParquet(ctx, dir, t)
		if err != nil {
			return nil, err
		}
		m.Tables = append(m.Tables, mt)
	}
	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	var bytes int64
	for _, t := range m.Tables {
		bytes += t.FileBytes
	}
	fmt.Fprintf(stderr, "wrote %s: %d tables, %.2f GB of Parquet in %.1fs\n", dir, len(m.Tables), float64(bytes)/1e9, time.Since(t0).Seconds())
	// The generator's garbage goes back to the OS before the engines load.
	runtime.GC()
	debug.FreeOSMemory()
	return &dataDir{dir: dir, man: m}, nil
}

// readManifest reads dir's manifest and checks that it is key's and that
// every file it lists has its recorded size. A missing manifest is
// os.ErrNotExist.
func readManifest(dir, key string) (*manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if m.Format != manifestFormat || m.Key != key {
		return nil, fmt.Errorf("manifest is format %d of %q, want format %d of %q", m.Format, m.Key, manifestFormat, key)
	}
	for _, t := range m.Tables {
		st, err := os.Stat(filepath.Join(dir, t.File))
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		if st.Size() != t.FileBytes {
			return nil, fmt.Errorf("manifest: %s has %d bytes, the manifest says %d", t.File, st.Size(), t.FileBytes)
		}
	}
	return &m, nil
}

// writeManifest writes m under a temporary name and renames it into
// place: the rename is what makes the directory complete.
func writeManifest(dir string, m manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("--data: manifest: %w", err)
	}
	tmp := filepath.Join(dir, manifestName+".tmp")
	if err := writeSynced(tmp, data); err != nil {
		return fmt.Errorf("--data: manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("--data: manifest: %w", err)
	}
	return nil
}

// writeSynced writes data to path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTableParquet writes one table to DIR/NAME.parquet a record (one
// row group) at a time, releasing each record once written: the table is
// never whole in memory.
func writeTableParquet(ctx context.Context, dir string, t tableGen) (manifestTable, error) {
	mt := manifestTable{Name: t.name, File: t.name + ".parquet", Columns: map[string]int64{}}
	path := filepath.Join(dir, mt.File)
	f, err := os.Create(path)
	if err != nil {
		return mt, fmt.Errorf("--data: %w", err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(t.schema, syncCloser{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		return mt, fmt.Errorf("--data: write %s: %w", path, err)
	}
	err = t.gen(ctx, func(rec arrow.Record) error {
		defer rec.Release()
		mt.Rows += rec.NumRows()
		for name, b := range columnBytes(t.schema, []arrow.Record{rec}) {
			mt.Columns[name] += b
		}
		return fw.Write(rec)
	})
	// Close writes the footer and closes f.
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return mt, fmt.Errorf("--data: write %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return mt, fmt.Errorf("--data: %w", err)
	}
	mt.FileBytes = st.Size()
	return mt, nil
}

// syncCloser syncs a file before closing it (the Parquet writer closes
// its sink), so that the manifest never names data still in the page
// cache only.
type syncCloser struct{ *os.File }

func (s syncCloser) Close() error {
	if err := s.File.Sync(); err != nil {
		s.File.Close()
		return err
	}
	return s.File.Close()
}

// rangeGen generates a table in parallel, in waves of one range per
// worker, handing the records to emit in row order: only one wave of
// records is in memory at a time. gen makes the rows of the range that
// starts at start (as the generator numbers rows) and holds n rows.
func rangeGen(first, total, chunk int64, gen datagen.RangeGenerator) func(ctx context.Context, emit func(arrow.Record) error) error {
	return func(ctx context.Context, emit func(arrow.Record) error) error {
		workers := runtime.GOMAXPROCS(0)
		var starts []int64
		for s := first; s < first+total; s += chunk {
			starts = append(starts, s)
		}
		for len(starts) > 0 {
			wave := starts[:min(workers, len(starts))]
			starts = starts[len(wave):]
			recs, err := datagen.Parallel(ctx, wave, chunk, workers, gen)
			if err != nil {
				return err
			}
			for i, r := range recs {
				if err := emit(r); err != nil {
					release(recs[i+1:])
					return err
				}
			}
		}
		return nil
	}
}

// recordsGen hands records already made (the micro suite's tables, whose
// generators make a whole table) to emit, which releases them.
func recordsGen(recs []arrow.Record) func(ctx context.Context, emit func(arrow.Record) error) error {
	return func(ctx context.Context, emit func(arrow.Record) error) error {
		for i, r := range recs {
			if err := ctx.Err(); err != nil {
				release(recs[i:])
				return err
			}
			if err := emit(r); err != nil {
				release(recs[i+1:])
				return err
			}
		}
		return nil
	}
}

// countKey formats a row count for a data set key.
func countKey(prefix string, rows int, seed int64) string {
	return prefix + "-rows" + strconv.Itoa(rows) + "-seed" + strconv.FormatInt(seed, 10)
}

// dataChunk is the rows of one generated range with --data: a wave holds
// one range per core (for hits, ~60 MB a range).
const dataChunk = 1 << 16

// tpchKey is the TPC-H data set's key: dbgen's rows depend on the scale
// factor only, not on --seed.
func tpchKey(sf float64) string {
	return "tpch-sf" + strconv.FormatFloat(sf, 'g', -1, 64)
}

// tpchGens generate the eight TPC-H tables in parallel ranges.
func tpchGens(g *tpch.Generator) []tableGen {
	out := make([]tableGen, 0, len(tpch.Tables))
	for _, t := range tpch.Tables {
		out = append(out, tableGen{name: t.String(), schema: tpch.Schema(t),
			gen: rangeGen(1, g.RangeRows(t), dataChunk, func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
				return g.GenerateRange(ctx, t, start, n, 0, emit)
			})})
	}
	return out
}

// hitsGen generates ClickBench's hits in parallel ranges.
func hitsGen(g *clickbench.Generator) tableGen {
	return tableGen{name: clickbench.TableName, schema: clickbench.Schema(),
		gen: rangeGen(0, g.Rows(), dataChunk, func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
			return g.GenerateRange(ctx, start, n, 0, emit)
		})}
}

// sets are the data set's tables as the engines load them: from their
// Parquet files, with the column sizes of the manifest.
func (d *dataDir) sets() []loadSet {
	out := make([]loadSet, 0, len(d.man.Tables))
	for _, t := range d.man.Tables {
		out = append(out, loadSet{name: t.Name, path: filepath.Join(d.dir, t.File), rows: t.Rows, cols: t.Columns})
	}
	return out
}

// memorySet is a table generated in memory (no --data).
func memorySet(name string, schema *arrow.Schema, recs []arrow.Record) loadSet {
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	return loadSet{name: name, schema: schema, recs: recs, rows: rows, cols: columnBytes(schema, recs)}
}

// loadSet is one table for the engines: records in memory, or (--data) a
// Parquet file. cols holds its columns' Arrow bytes.
type loadSet struct {
	name   string
	schema *arrow.Schema
	recs   []arrow.Record
	path   string
	rows   int64
	cols   map[string]int64
}

// loadSets loads every set into every engine, from its file when it has
// one; label names the data in the progress lines.
func loadSets(ctx context.Context, engines []engine, sets []loadSet, label string, stderr io.Writer) error {
	for _, e := range engines {
		t0 := time.Now()
		for _, s := range sets {
			var err error
			if s.path != "" {
				err = e.LoadParquet(ctx, s.name, s.path)
			} else {
				err = e.Load(ctx, s.name, s.schema, s.recs)
			}
			if err != nil {
				return err
			}
		}
		held := ""
		if d, ok := e.(*duckEngine); ok {
			if b, err := d.MemoryBytes(ctx); err == nil {
				held = fmt.Sprintf(" (DuckDB holds %.2f GB)", float64(b)/1e9)
			}
		}
		fmt.Fprintf(stderr, "loaded %s into %s in %.1fs%s\n", label, e.Name(), time.Since(t0).Seconds(), held)
	}
	return nil
}

// columnBytes sums the Arrow buffer bytes of each column of recs.
func columnBytes(schema *arrow.Schema, recs []arrow.Record) map[string]int64 {
	out := make(map[string]int64, schema.NumFields())
	for i, f := range schema.Fields() {
		for _, r := range recs {
			out[f.Name] += bytesV17(r.Column(i))
		}
	}
	return out
}

// inputBytes sums the Arrow bytes of the named columns.
func inputBytes(cols map[string]int64, names []string) int64 {
	var b int64
	for _, c := range names {
		b += cols[c]
	}
	return b
}
