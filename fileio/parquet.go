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

// ReadParquet reads a Parquet file through arrow/go's pqarrow reader and
// returns all of its records (StreamParquet).
func ReadParquet(ctx context.Context, path string, opts ReadOptions) (*arrow.Schema, []arrow.Record, error) {
	return collect(func(begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
		return StreamParquet(ctx, path, opts, begin, emit)
	})
}

// StreamParquet reads a Parquet file through arrow/go's pqarrow reader: it
// calls begin with the schema, then emit with each record in file order,
// from the calling goroutine. Row groups are read in parallel, one
// goroutine per CPU each reading one row group at a time (a file of one
// row group reads its columns in parallel instead). A worker hands its
// records over as it makes them and may run at most one row group ahead
// of the ones emit has finished: only the row groups being decoded are in
// memory, never the file, and each record's columns are the reader's
// buffers (no copy) unless their type is converted.
func StreamParquet(ctx context.Context, path string, opts ReadOptions, begin func(*arrow.Schema) error, emit func(arrow.Record) error) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	pr := &progressReaderAt{f: f, fn: opts.Progress, total: fileSize(f)}
	defer func() {
		if r := recover(); r != nil { // the parquet reader panics on some corrupt input
			err = fmt.Errorf("%s: corrupt parquet file: %v", path, r)
		}
	}()
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	// Read column chunks through a buffer rather than whole: a row group
	// of a large file is hundreds of megabytes.
	rprops := parquet.NewReaderProperties(mem)
	rprops.BufferedStreamEnabled = true
	rprops.BufferSize = 1 << 20
	pf, err := file.NewParquetReader(pr, file.WithReadProps(rprops))
	if err != nil {
		return fmt.Errorf("%s: not a valid parquet file: %w", path, err)
	}
	defer pf.Close()
	groups := pf.NumRowGroups()
	props := pqarrowProps(opts, groups)
	// A batch larger than every row group only reserves memory it never
	// fills: pqarrow reserves a whole batch of values per column.
	var most int64
	for i := 0; i < groups; i++ {
		most = max(most, pf.MetaData().RowGroup(i).NumRows())
	}
	if most > 0 && most < props.BatchSize {
		props.BatchSize = most
	}
	fr, err := pqarrow.NewFileReader(pf, props, mem)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	raw, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	schema, err := normalSchema(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := begin(schema); err != nil {
		return err
	}
	// Each worker has its own readers over the shared file (ReadAt is
	// safe to share) and the footer already parsed.
	workers := min(runtime.GOMAXPROCS(0), groups)
	readers := make([]*pqarrow.FileReader, workers)
	for w := range readers {
		wf, err := file.NewParquetReader(pr, file.WithMetadata(pf.MetaData()), file.WithReadProps(rprops))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer wf.Close()
		if readers[w], err = pqarrow.NewFileReader(wf, props, mem); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	type slot struct {
		recs chan arrow.Record
		err  error // set before recs is closed
	}
	slots := make([]*slot, groups)
	for i := range slots {
		slots[i] = &slot{recs: make(chan arrow.Record, 1)}
	}
	// A token per row group started and not yet emitted in full: workers
	// run at most one group ahead of the one being emitted.
	tokens := make(chan struct{}, workers+1)
	ctx, cancel := context.WithCancel(ctx)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	defer func() {
		cancel()
		wg.Wait()
		for _, s := range slots {
			for drained := false; !drained; {
				select {
				case rec, ok := <-s.recs:
					if ok {
						rec.Release()
					} else {
						drained = true
					}
				default:
					drained = true
				}
			}
		}
	}()
	for _, wr := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= groups {
					<-tokens
					return
				}
				s := slots[i]
				s.err = streamRowGroup(ctx, path, wr, schema, i, s.recs)
				close(s.recs)
			}
		}()
	}
	for _, s := range slots {
		// A cancelled read may leave this group to no worker: wait on
		// the context too.
		for more := true; more; {
			select {
			case rec, ok := <-s.recs:
				if more = ok; ok {
					if err := emit(rec); err != nil {
						return err
					}
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if s.err != nil {
			return s.err
		}
		<-tokens
	}
	pr.done()
	return nil
}

// streamRowGroup sends row group i's records, as schema, to out.
func streamRowGroup(ctx context.Context, path string, fr *pqarrow.FileReader, schema *arrow.Schema, i int, out chan<- arrow.Record) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: corrupt parquet file: %v", path, r)
		}
	}()
	rr, err := fr.GetRecordReader(ctx, nil, []int{i})
	if err != nil {
		return fmt.Errorf("%s: row group %d: %w", path, i, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec, err := normalRecord(schema, rr.Record())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		select {
		case out <- rec:
		case <-ctx.Done():
			rec.Release()
			return ctx.Err()
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: row group %d: %w", path, i, err)
	}
	return ctx.Err()
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
