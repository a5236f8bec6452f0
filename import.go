package gsql

import (
	"context"
	"fmt"

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
// Column types become BOOLEAN, BIGINT, DOUBLE or VARCHAR. A failed import
// creates no table.
func (db *DB) Import(ctx context.Context, path, table string, opts ImportOptions) (int64, error) {
	if db.closed.Load() {
		return 0, ErrClosed
	}
	if _, err := db.TableSchema(table); err == nil {
		return 0, fmt.Errorf("import %s: %w", path, &catalog.ObjectError{Table: table, Exists: true})
	}
	schema, recs, err := fileio.Read(ctx, path, fileio.Options{CSV: opts.CSV, Progress: opts.Progress})
	if err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	if err := db.RegisterTable(table, schema, recs); err != nil {
		fileio.ReleaseAll(recs)
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
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
