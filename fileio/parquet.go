package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ReadParquet reads a Parquet file through arrow/go's pqarrow reader. Row
// groups are read in parallel, one goroutine per CPU each reading one row
// group at a time (a file of one row group reads its columns in
// parallel instead), and the records come back in file order. Only the
// row groups being decoded are held beside the records already made: the
// file is never whole in memory, and each record's columns are the
// reader's buffers (no copy) unless their type is converted.
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
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	props := pqarrowProps(opts, pf.NumRowGroups())
	fr, err := pqarrow.NewFileReader(pf, props, mem)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	raw, err := fr.Schema()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if schema, err = normalSchema(raw); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	groups := pf.NumRowGroups()
	parts := make([][]arrow.Record, groups)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	fail := func(err error) {
		errMu.Lock()
		if first == nil {
			first = err
		}
		errMu.Unlock()
		cancel()
	}
	for w := 0; w < min(runtime.GOMAXPROCS(0), groups); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fail(fmt.Errorf("%s: corrupt parquet file: %v", path, r))
				}
			}()
			// Each worker has its own readers over the shared file (ReadAt
			// is safe to share) and the footer already parsed.
			wf, err := file.NewParquetReader(pr, file.WithMetadata(pf.MetaData()))
			if err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
				return
			}
			defer wf.Close()
			wr, err := pqarrow.NewFileReader(wf, props, mem)
			if err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
				return
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= groups || ctx.Err() != nil {
					return
				}
				if parts[i], err = readRowGroup(ctx, path, wr, schema, i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range parts {
		recs = append(recs, p...)
	}
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		ReleaseAll(recs)
		return nil, nil, first
	}
	pr.done()
	return schema, recs, nil
}

// pqarrowProps are the Arrow read properties: batches of opts.BatchRows,
// the columns of a row group read in parallel only when the file has one
// row group (otherwise the row groups are).
func pqarrowProps(opts ReadOptions, groups int) pqarrow.ArrowReadProperties {
	batch := opts.BatchRows
	if batch <= 0 {
		batch = DefaultBatchRows
	}
	return pqarrow.ArrowReadProperties{BatchSize: int64(batch), Parallel: groups == 1}
}

// readRowGroup reads row group i as records of schema.
func readRowGroup(ctx context.Context, path string, fr *pqarrow.FileReader, schema *arrow.Schema, i int) ([]arrow.Record, error) {
	rr, err := fr.GetRecordReader(ctx, nil, []int{i})
	if err != nil {
		return nil, fmt.Errorf("%s: row group %d: %w", path, i, err)
	}
	defer rr.Release()
	var recs []arrow.Record
	for rr.Next() {
		rec, err := normalRecord(schema, rr.Record())
		if err != nil {
			ReleaseAll(recs)
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		ReleaseAll(recs)
		return nil, fmt.Errorf("%s: row group %d: %w", path, i, err)
	}
	return recs, nil
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
