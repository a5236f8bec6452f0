// Package fileio reads and writes tabular files — CSV/TSV, Parquet and Arrow
// IPC (file and stream formats, including Feather v2) — as Arrow records.
//
// Every reader produces columns of gsql's storage types only: Boolean,
// Int64, Float64, String, Date32, Timestamp[us] and Decimal128. Other Arrow
// types found in Parquet or IPC files are converted on read (integers to
// Int64, floats and 256-bit decimals to Float64, Date64 to Date32, other timestamp units to
// microseconds, times, binaries and dictionaries to String). CSV columns
// whose values all read as dates (2024-01-05) or timestamps
// (2024-01-05 10:30:00) are inferred as such. Errors in malformed input
// name the file and, for CSV, the line and column ("data.csv:17:5: ...").
package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// DefaultBatchRows is the number of rows per record produced by the readers.
const DefaultBatchRows = 1 << 17

// Format is a file format known to this package.
type Format int

// Formats.
const (
	FormatUnknown Format = iota
	FormatCSV
	FormatTSV
	FormatParquet
	FormatIPC
)

func (f Format) String() string {
	switch f {
	case FormatCSV:
		return "csv"
	case FormatTSV:
		return "tsv"
	case FormatParquet:
		return "parquet"
	case FormatIPC:
		return "arrow"
	}
	return "unknown"
}

// FormatOf picks the format from a file name's extension: .csv, .tsv (and
// .txt as CSV), .parquet/.pq, .arrow/.ipc/.feather/.arrows.
func FormatOf(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".txt":
		return FormatCSV
	case ".tsv", ".tab":
		return FormatTSV
	case ".parquet", ".pq":
		return FormatParquet
	case ".arrow", ".ipc", ".feather", ".arrows":
		return FormatIPC
	}
	return FormatUnknown
}

// ProgressFunc is called while a file is read with the bytes consumed so far
// and the file's total size (0 when unknown). It is called from the
// goroutine that reads the file (not the caller's: a CSV file is read
// ahead of its parsing), one call at a time, at most every few hundred
// kilobytes, and once at the end.
type ProgressFunc func(read, total int64)

// Options configure Read and Stream.
type Options struct {
	CSV      CSVOptions
	Progress ProgressFunc
	// BatchRows is the most rows a produced record holds (0: DefaultBatchRows).
	BatchRows int
	// Format is the file's format (FormatUnknown: chosen by the extension).
	Format Format
}

// Read reads a file of any supported format, chosen by its extension, and
// returns all of its records.
func Read(ctx context.Context, path string, opts Options) (*arrow.Schema, []arrow.Record, error) {
	return collect(func(begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
		return Stream(ctx, path, opts, begin, emit)
	})
}

// Stream reads a file of any supported format: it calls begin once with
// the schema, then emit with each record in file order, as they are read
// (emit owns the record and may keep it). CSV and Parquet are read in
// parallel and never whole in memory: a slow emit holds the readers back.
// An error from begin or emit stops the read and is returned as it is.
func Stream(ctx context.Context, path string, opts Options, begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
	format := opts.Format
	if format == FormatUnknown {
		format = FormatOf(path)
	}
	switch format {
	case FormatCSV, FormatTSV:
		co := opts.CSV
		if co.Progress == nil {
			co.Progress = opts.Progress
		}
		if co.BatchRows == 0 {
			co.BatchRows = opts.BatchRows
		}
		if co.Delimiter == 0 && format == FormatTSV {
			co.Delimiter = '\t'
		}
		return StreamCSV(ctx, path, co, begin, emit)
	case FormatParquet:
		return StreamParquet(ctx, path, ReadOptions{Progress: opts.Progress, BatchRows: opts.BatchRows}, begin, emit)
	case FormatIPC:
		schema, recs, err := ReadIPC(ctx, path, ReadOptions{Progress: opts.Progress, BatchRows: opts.BatchRows})
		if err != nil {
			return err
		}
		if err := begin(schema); err != nil {
			ReleaseAll(recs)
			return err
		}
		for i, rec := range recs {
			if err := emit(rec); err != nil {
				ReleaseAll(recs[i+1:])
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: unknown file type %q (want .csv, .tsv, .parquet, .arrow, .ipc or .feather)", path, filepath.Ext(path))
}

// collect runs a streaming read and gathers its records.
func collect(read func(begin func(*arrow.Schema) error, emit func(arrow.Record) error) error) (*arrow.Schema, []arrow.Record, error) {
	var schema *arrow.Schema
	var recs []arrow.Record
	err := read(func(s *arrow.Schema) error {
		schema = s
		return nil
	}, func(rec arrow.Record) error {
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		ReleaseAll(recs)
		return nil, nil, err
	}
	return schema, recs, nil
}

// ReadOptions configure ReadParquet and ReadIPC.
type ReadOptions struct {
	Progress  ProgressFunc
	BatchRows int
	// Allocator allocates the Parquet reader's buffers (nil: Go's).
	Allocator memory.Allocator
}

// WriteOptions configure the writers.
type WriteOptions struct {
	// CSV only.
	Delimiter rune
	NoHeader  bool
	// IPC only: write the stream format instead of the file format.
	Stream bool
}

// Write writes all records of rdr to path in the format chosen by its
// extension and returns the number of rows written. The file is written
// under a temporary name and renamed into place, so a failed write leaves no
// partial file behind.
func Write(ctx context.Context, path string, rdr array.RecordReader, opts WriteOptions) (int64, error) {
	switch FormatOf(path) {
	case FormatCSV:
		return WriteCSV(ctx, path, rdr, opts)
	case FormatTSV:
		if opts.Delimiter == 0 {
			opts.Delimiter = '\t'
		}
		return WriteCSV(ctx, path, rdr, opts)
	case FormatParquet:
		return WriteParquet(ctx, path, rdr, opts)
	case FormatIPC:
		if strings.EqualFold(filepath.Ext(path), ".arrows") {
			opts.Stream = true
		}
		return WriteIPC(ctx, path, rdr, opts)
	}
	return 0, fmt.Errorf("%s: unknown file type %q (want .csv, .tsv, .parquet, .arrow, .ipc or .feather)", path, filepath.Ext(path))
}

// atomicWrite creates a temporary file next to path, lets fn write it and
// renames it to path when fn succeeds; otherwise it removes it.
func atomicWrite(path string, fn func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = fn(f); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// progressReader counts bytes read and reports them.
type progressReader struct {
	r        io.Reader
	ctx      context.Context
	fn       ProgressFunc
	read     int64
	total    int64
	reported int64
}

const progressStep = 256 << 10

func (p *progressReader) Read(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.fn != nil && (p.read-p.reported >= progressStep || errors.Is(err, io.EOF)) {
		p.reported = p.read
		p.fn(p.read, p.total)
	}
	return n, err
}

// progressReaderAt reports reads through an io.ReaderAt (Parquet, IPC
// file). It is safe for concurrent ReadAt calls (Parquet's row groups are
// read in parallel); fn is called under a lock.
type progressReaderAt struct {
	f     *os.File
	fn    ProgressFunc
	total int64
	read  atomic.Int64
	mu    sync.Mutex
	// reported is the count last passed to fn (under mu).
	reported int64
}

func (p *progressReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.f.ReadAt(b, off)
	p.note(n)
	return n, err
}

func (p *progressReaderAt) Read(b []byte) (int, error) {
	n, err := p.f.Read(b)
	p.note(n)
	return n, err
}

func (p *progressReaderAt) Seek(off int64, whence int) (int64, error) {
	return p.f.Seek(off, whence)
}

func (p *progressReaderAt) note(n int) {
	read := min(p.read.Add(int64(n)), p.total)
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	if read-p.reported >= progressStep {
		p.reported = read
		p.fn(read, p.total)
	}
	p.mu.Unlock()
}

func (p *progressReaderAt) done() {
	if p.fn != nil {
		p.mu.Lock()
		p.fn(p.total, p.total)
		p.mu.Unlock()
	}
}

func fileSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// ReleaseAll releases every record in recs.
func ReleaseAll(recs []arrow.Record) {
	for _, r := range recs {
		if r != nil {
			r.Release()
		}
	}
}

// SliceReader returns a RecordReader over recs (which it retains).
func SliceReader(schema *arrow.Schema, recs []arrow.Record) (array.RecordReader, error) {
	rdr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		return nil, fmt.Errorf("record reader: %w", err)
	}
	return rdr, nil
}

// copyRecords writes every record of rdr with write, then closes the writer
// (also on failure); it returns the rows written.
func copyRecords(ctx context.Context, path string, rdr array.RecordReader, write func(arrow.Record) error, closeW func() error) (int64, error) {
	var rows int64
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			closeW()
			return rows, err
		}
		rec := rdr.Record()
		if err := write(rec); err != nil {
			closeW()
			return rows, fmt.Errorf("write %s: %w", path, err)
		}
		rows += rec.NumRows()
	}
	if err := rdr.Err(); err != nil {
		closeW()
		return rows, err
	}
	if err := closeW(); err != nil {
		return rows, fmt.Errorf("write %s: %w", path, err)
	}
	return rows, nil
}
