package spill

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/coldata"
)

// Partitions is a set of n partition files of rows of one schema, being
// written: rows are added with the partition each goes to, buffered per
// partition and written as record batches once a partition's buffer
// holds flushRows rows (or at Finish).
type Partitions struct {
	dir    *Dir
	name   string
	types  []coldata.Type
	schema *arrow.Schema
	parts  []partWriter
	// flushRows is the rows a partition buffers before a write.
	flushRows int
	idx       [][]int // per partition, the rows of the current batch
	finished  bool
	// held is the host memory of the pending rows and the open files'
	// write buffers, peak the most it reached (PeakBytes).
	held, peak int64
	// buffer is the write buffer in front of each partition's file.
	buffer int
}

const (
	// writeBuffer is the most a partition's file buffers; writeBuffers
	// bounds the buffers of many partitions together, down to
	// minWriteBuffer each (a device operator's hundreds of partitions).
	writeBuffer    = 1 << 20
	writeBuffers   = 32 << 20
	minWriteBuffer = 64 << 10
)

// PeakBytes is the most host memory the partitions held at once: rows
// waiting for their partition's next write, and the write buffers.
func (p *Partitions) PeakBytes() int64 { return p.peak }

func (p *Partitions) grow(n int64) {
	p.held += n
	p.peak = max(p.peak, p.held)
}

type partWriter struct {
	path    string
	f       *os.File
	counter *countingWriter
	w       *ipc.Writer
	pending []*coldata.Batch
	rows    int   // rows in pending
	bytes   int64 // host memory of pending
	total   int64
}

// NewPartitions starts n partition files named name-<i> in d for rows of
// the given types. flushRows bounds the rows a partition holds in memory
// before they are written (at least 1).
func (d *Dir) NewPartitions(name string, n int, types []coldata.Type, flushRows int) (*Partitions, error) {
	if n < 1 {
		return nil, fmt.Errorf("spill: %d partitions", n)
	}
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: coldata.ArrowType(t), Nullable: true}
	}
	p := &Partitions{dir: d, name: name, types: types, schema: arrow.NewSchema(fields, nil),
		parts: make([]partWriter, n), flushRows: max(flushRows, 1), idx: make([][]int, n),
		buffer: min(max(writeBuffers/n, minWriteBuffer), writeBuffer)}
	for i := range p.parts {
		p.parts[i].path = filepath.Join(d.path, fmt.Sprintf("%s-%d.arrows", name, i))
	}
	return p, nil
}

// Len is the number of partitions.
func (p *Partitions) Len() int { return len(p.parts) }

// Rows is the number of rows added to partition i.
func (p *Partitions) Rows(i int) int64 { return p.parts[i].total }

// Add routes row r of b to partition part[r], for every row of b; a
// negative part[r] drops the row. The batch's columns must have the
// partitions' types; b is not kept (its rows are copied).
func (p *Partitions) Add(b *coldata.Batch, part []int) error {
	if p.finished {
		return errors.New("spill: Add after Finish")
	}
	if len(b.Cols) != len(p.types) {
		return fmt.Errorf("spill: batch of %d columns added to partitions of %d", len(b.Cols), len(p.types))
	}
	for i := range p.idx {
		p.idx[i] = p.idx[i][:0]
	}
	for r := 0; r < b.Len; r++ {
		if part[r] >= 0 {
			p.idx[part[r]] = append(p.idx[part[r]], r)
		}
	}
	for i, rows := range p.idx {
		if len(rows) == 0 {
			continue
		}
		pw := &p.parts[i]
		g := coldata.GatherBatch(b, rows)
		pw.pending = append(pw.pending, g)
		pw.bytes += g.HostBytes()
		p.grow(g.HostBytes())
		pw.rows += len(rows)
		pw.total += int64(len(rows))
		if pw.rows >= p.flushRows {
			if err := p.flush(pw); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes a partition's pending rows as one record batch.
func (p *Partitions) flush(pw *partWriter) error {
	if pw.rows == 0 {
		return nil
	}
	if pw.w == nil {
		f, err := os.OpenFile(pw.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("spill: create %s: %w", pw.path, err)
		}
		p.dir.files.Add(1)
		pw.f = f
		pw.counter = &countingWriter{w: bufio.NewWriterSize(f, p.buffer), dir: p.dir}
		p.grow(int64(p.buffer))
		pw.w = ipc.NewWriter(pw.counter, ipc.WithSchema(p.schema), ipc.WithAllocator(memory.DefaultAllocator))
	}
	b := pw.pending[0]
	if len(pw.pending) > 1 {
		b = coldata.Concat(pw.pending, len(p.types))
	}
	rec := coldata.BatchToRecord(p.schema, b)
	err := pw.w.Write(rec)
	rec.Release()
	pw.pending, pw.rows = pw.pending[:0], 0
	p.held -= pw.bytes
	pw.bytes = 0
	if err != nil {
		return fmt.Errorf("spill: write %s: %w", pw.path, p.dir.full(err))
	}
	return nil
}

// Finish writes what every partition still buffers and closes the files.
func (p *Partitions) Finish() error {
	if p.finished {
		return nil
	}
	p.finished = true
	var first error
	for i := range p.parts {
		pw := &p.parts[i]
		if err := p.flush(pw); err != nil && first == nil {
			first = err
		}
		if pw.w == nil {
			continue
		}
		if err := pw.w.Close(); err != nil && first == nil {
			first = fmt.Errorf("spill: finish %s: %w", pw.path, p.dir.full(err))
		}
		if err := pw.counter.w.(*bufio.Writer).Flush(); err != nil && first == nil {
			first = fmt.Errorf("spill: write %s: %w", pw.path, p.dir.full(err))
		}
		if err := pw.f.Close(); err != nil && first == nil {
			first = fmt.Errorf("spill: close %s: %w", pw.path, p.dir.full(err))
		}
		pw.w, pw.f = nil, nil
		p.held -= int64(p.buffer)
	}
	return first
}

// Remove deletes partition i's file (once it has been read).
func (p *Partitions) Remove(i int) error {
	if err := os.Remove(p.parts[i].path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("spill: remove %s: %w", p.parts[i].path, err)
	}
	return nil
}

// Reader reads partition i back (after Finish), a record batch at a time.
func (p *Partitions) Reader(i int) *Reader {
	return &Reader{path: p.parts[i].path, empty: p.parts[i].total == 0}
}

// Reader yields a partition file's batches; it is an operator's input
// (Open, Next, Close).
type Reader struct {
	path  string
	empty bool
	f     *os.File
	r     *ipc.Reader
}

// Open opens the file (again, from its start, when called after Close).
func (r *Reader) Open(context.Context) error {
	r.Close()
	if r.empty {
		return nil
	}
	f, err := os.Open(r.path)
	if err != nil {
		return fmt.Errorf("spill: open %s: %w", r.path, err)
	}
	rd, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<20), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		f.Close()
		return fmt.Errorf("spill: read %s: %w", r.path, err)
	}
	r.f, r.r = f, rd
	return nil
}

// Next returns the next batch, or nil at the end. The batch's memory is
// its own: it stays valid after later calls.
func (r *Reader) Next(ctx context.Context) (*coldata.Batch, error) {
	if r.r == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !r.r.Next() {
		if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("spill: read %s: %w", r.path, err)
		}
		return nil, nil
	}
	// The record's buffers are Go memory (the default allocator), which
	// the batch's vectors share: they live on after the reader releases
	// the record at its next call.
	b, err := coldata.RecordToBatch(r.r.Record())
	if err != nil {
		return nil, fmt.Errorf("spill: read %s: %w", r.path, err)
	}
	return b, nil
}

// Close closes the file; it is safe to call more than once.
func (r *Reader) Close() error {
	if r.r != nil {
		r.r.Release()
		r.r = nil
	}
	if r.f != nil {
		err := r.f.Close()
		r.f = nil
		return err
	}
	return nil
}

// countingWriter counts the bytes written into the Dir's total.
type countingWriter struct {
	w   io.Writer
	dir *Dir
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if f := failWrites.Load(); f != nil {
		return 0, c.dir.full(*f)
	}
	n, err := c.w.Write(b)
	c.dir.written.Add(int64(n))
	return n, c.dir.full(err)
}
