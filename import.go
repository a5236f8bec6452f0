package gsql

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/fileio"
)

// ImportOptions configure DB.Import.
type ImportOptions struct {
	// CSV configures CSV and TSV files: delimiter, header detection, type
	// inference sample and NULL handling (see fileio.CSVOptions).
	CSV fileio.CSVOptions
	// Progress, if set, is called with the bytes read so far and the file size.
	Progress func(read, total int64)
}

// Import creates table from a file and returns its row count. The reader is
// chosen by the file's extension: .csv and .tsv (header detection and type
// inference), .parquet, and .arrow/.ipc/.feather (Arrow IPC file or stream).
// Column types become BOOLEAN, BIGINT, DOUBLE or VARCHAR (and DATE,
// TIMESTAMP, DECIMAL where the file says so). A failed or cancelled import
// creates no table. See ImportFile.
func (db *DB) Import(ctx context.Context, path, table string, opts ImportOptions) (int64, error) {
	return db.ImportFile(ctx, path, table, fileio.Options{CSV: opts.CSV, Progress: opts.Progress})
}

// ImportFile is Import with fileio's options (a format other than the
// extension's, batch size). The file streams into the table: CSV chunks
// and Parquet row groups are read in parallel, and each batch goes to the
// table as it is made, so the file is never whole in memory. An in-memory
// database keeps the batches as the table's records (no copy); an on-disk
// one writes each as a segment at once (storage.Store.Stage) and holds
// only its memory map. The table appears when the last batch is in, in
// one commit; a failed or cancelled import creates no table and removes
// the segments it wrote.
func (db *DB) ImportFile(ctx context.Context, path, table string, opts fileio.Options) (rows int64, err error) {
	if db.closed.Load() {
		return 0, ErrClosed
	}
	if _, err := db.TableSchema(table); err == nil {
		return 0, fmt.Errorf("import %s: %w", path, &catalog.ObjectError{Table: table, Exists: true})
	}
	var (
		cols   []catalog.Column
		target *arrow.Schema
		recs   []arrow.Record
	)
	defer func() {
		if err != nil {
			if db.store != nil {
				db.store.Unstage(recs)
			}
			fileio.ReleaseAll(recs)
		}
	}()
	begin := func(schema *arrow.Schema) error {
		var err error
		if cols, err = tableColumns(table, schema); err != nil {
			return err
		}
		target = catalog.Schema(cols)
		return nil
	}
	// On disk a writer goroutine stages each batch as a segment while the
	// readers make the next one; it alone appends to recs until it ends.
	add := func(rec arrow.Record) {
		recs = append(recs, rec)
		rows += rec.NumRows()
	}
	// In memory the loader's records become the table: fitted first, so
	// that the readers' spare capacity is not kept with them.
	var held, counted int64 // heap bytes kept, and as the heap limit knows them
	defer db.importHeap(table, 0)
	keep := func(rec arrow.Record) error {
		rec = fileio.FitRecord(rec)
		add(rec)
		if held += recordBytes(rec); held-counted >= 64<<20 {
			db.importHeap(table, held)
			counted = held
		}
		return nil
	}
	var (
		writes    chan arrow.Record
		written   chan error
		writeFail atomic.Bool
	)
	if db.store != nil {
		writes, written = make(chan arrow.Record, 1), make(chan error, 1)
		go func() {
			var werr error
			for rec := range writes {
				if werr == nil {
					staged, err := db.store.Stage(table, rec)
					if err != nil {
						werr = fmt.Errorf("storing %s: %w", table, err)
						writeFail.Store(true)
					} else {
						add(staged)
					}
				}
				rec.Release()
			}
			written <- werr
		}()
		keep = func(rec arrow.Record) error {
			if writeFail.Load() {
				rec.Release()
				return errors.New("import stopped: storing a batch failed")
			}
			writes <- rec
			return nil
		}
	}
	emit := func(rec arrow.Record) error {
		if rec.NumRows() == 0 {
			rec.Release()
			return nil
		}
		out, err := tableRecord(table, target, rec)
		if err != nil {
			return err
		}
		return keep(out)
	}
	err = fileio.Stream(ctx, path, opts, begin, emit)
	if writes != nil {
		close(writes)
		if werr := <-written; werr != nil {
			err = werr // the first failure; the reader only saw its echo
		}
	}
	if err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	if _, err := db.cat.Create(table, cols, recs, false); err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	fileio.ReleaseAll(recs) // the catalog holds its own references
	return rows, nil
}

// Export runs query and writes its rows to path in the format chosen by the
// extension (.csv, .tsv, .parquet, .arrow/.ipc/.feather; .arrows for the IPC
// stream format). The file is written whole or not at all.
func (db *DB) Export(ctx context.Context, query, path string) error {
	rdr, err := db.Query(ctx, query)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rdr.Release()
	if rdr.Schema().NumFields() == 0 {
		return fmt.Errorf("export %s: the statement returns no rows", path)
	}
	out := &exportReader{RecordReader: rdr, schema: exportSchema(rdr.Schema())}
	defer out.release()
	if _, err := fileio.Write(ctx, path, out, fileio.WriteOptions{}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// originKeys are the result metadata that say where a column came from:
// facts about this query for its clients, not part of the data a file
// keeps (a file re-exported from its own import would differ by them).
var originKeys = map[string]bool{FieldTable: true, FieldOrgTable: true, FieldColumn: true, FieldKey: true, FieldNotNull: true}

// exportSchema is s without the origin metadata.
func exportSchema(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		var keys, vals []string
		for j, k := range f.Metadata.Keys() {
			if !originKeys[k] {
				keys, vals = append(keys, k), append(vals, f.Metadata.Values()[j])
			}
		}
		f.Metadata = arrow.Metadata{}
		if len(keys) > 0 {
			f.Metadata = arrow.NewMetadata(keys, vals)
		}
		fields[i] = f
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// exportReader is a query's records under the export schema.
type exportReader struct {
	array.RecordReader
	schema *arrow.Schema
	cur    arrow.Record
}

func (r *exportReader) Schema() *arrow.Schema { return r.schema }

func (r *exportReader) Next() bool {
	r.release()
	if !r.RecordReader.Next() {
		return false
	}
	rec := r.RecordReader.Record()
	r.cur = array.NewRecord(r.schema, rec.Columns(), rec.NumRows())
	return true
}

func (r *exportReader) Record() arrow.Record { return r.cur }

func (r *exportReader) release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
