package fileio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// ReadIPC reads an Arrow IPC file: the file format (Feather v2, magic
// "ARROW1") or the stream format, told apart by the first bytes.
func ReadIPC(ctx context.Context, path string, opts ReadOptions) (schema *arrow.Schema, recs []arrow.Record, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	pr := &progressReaderAt{f: f, fn: opts.Progress, total: fileSize(f)}
	defer func() {
		if r := recover(); r != nil { // guard against panics on corrupt input
			ReleaseAll(recs)
			schema, recs, err = nil, nil, fmt.Errorf("%s: corrupt arrow file: %v", path, r)
		}
	}()
	magic := make([]byte, 6)
	n, _ := io.ReadFull(f, magic)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if n >= 4 && string(magic[:4]) == "FEA1" {
		return nil, nil, fmt.Errorf("%s: Feather v1 files are not supported (rewrite as Feather v2 / Arrow IPC)", path)
	}
	if n == 6 && bytes.Equal(magic, []byte("ARROW1")) {
		fr, err := ipc.NewFileReader(pr, ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a valid arrow file: %w", path, err)
		}
		defer fr.Close()
		schema, err := normalSchema(fr.Schema())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for i := 0; i < fr.NumRecords(); i++ {
			if err := ctx.Err(); err != nil {
				ReleaseAll(recs)
				return nil, nil, err
			}
			raw, err := fr.RecordAt(i)
			if err != nil {
				ReleaseAll(recs)
				return nil, nil, fmt.Errorf("%s: record batch %d: %w", path, i, err)
			}
			rec, err := normalRecord(schema, raw)
			raw.Release()
			if err != nil {
				ReleaseAll(recs)
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			recs = append(recs, rec)
		}
		pr.done()
		return schema, recs, nil
	}
	sr, err := ipc.NewReader(pr, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a valid arrow file or stream: %w", path, err)
	}
	defer sr.Release()
	schema, recs, err = readAll(ctx, path, sr)
	if err == nil {
		pr.done()
	}
	return schema, recs, err
}

// WriteIPC writes rdr's records as an Arrow IPC file (or, with
// opts.Stream, an IPC stream).
func WriteIPC(ctx context.Context, path string, rdr array.RecordReader, opts WriteOptions) (int64, error) {
	var rows int64
	err := atomicWrite(path, func(f *os.File) error {
		var w interface {
			Write(arrow.Record) error
			Close() error
		}
		if opts.Stream {
			w = ipc.NewWriter(f, ipc.WithSchema(rdr.Schema()))
		} else {
			fw, err := ipc.NewFileWriter(f, ipc.WithSchema(rdr.Schema()))
			if err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			w = fw
		}
		n, err := copyRecords(ctx, path, rdr, w.Write, w.Close)
		rows += n
		return err
	})
	return rows, err
}
