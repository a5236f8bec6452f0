package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ReadParquet reads a Parquet file through arrow/go's pqarrow reader.
func ReadParquet(ctx context.Context, path string, opts ReadOptions) (schema *arrow.Schema, recs []arrow.Record, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	pr := &progressReaderAt{f: f, fn: opts.Progress, total: fileSize(f)}
	defer func() {
		if r := recover(); r != nil { // the parquet reader panics on some corrupt input
			ReleaseAll(recs)
			schema, recs, err = nil, nil, fmt.Errorf("%s: corrupt parquet file: %v", path, r)
		}
	}()
	pf, err := file.NewParquetReader(pr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a valid parquet file: %w", path, err)
	}
	defer pf.Close()
	batch := opts.BatchRows
	if batch <= 0 {
		batch = DefaultBatchRows
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batch), Parallel: true}, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	schema, recs, err = readAll(ctx, path, rr)
	if err == nil {
		pr.done()
	}
	return schema, recs, err
}

// readAll converts every record of rr to gsql's types.
func readAll(ctx context.Context, path string, rr array.RecordReader) (*arrow.Schema, []arrow.Record, error) {
	schema, err := normalSchema(rr.Schema())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var recs []arrow.Record
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			ReleaseAll(recs)
			return nil, nil, err
		}
		rec, err := normalRecord(schema, rr.Record())
		if err != nil {
			ReleaseAll(recs)
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		ReleaseAll(recs)
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return schema, recs, nil
}

// WriteParquet writes rdr's records to a Parquet file (Snappy-compressed,
// with the Arrow schema stored).
func WriteParquet(ctx context.Context, path string, rdr array.RecordReader, opts WriteOptions) (int64, error) {
	var rows int64
	err := atomicWrite(path, func(f *os.File) error {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
		fw, err := pqarrow.NewFileWriter(rdr.Schema(), struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		n, err := copyRecords(ctx, path, rdr, fw.WriteBuffered, fw.Close)
		rows += n
		return err
	})
	return rows, err
}
