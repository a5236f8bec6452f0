package fileio

// Parallel, streaming CSV reading.
//
// One goroutine cuts the input into chunks that end at record boundaries, a
// pool of workers parses each chunk and converts it to Arrow records, and
// the caller's goroutine hands the records on in file order. Only a few
// chunks are in flight at a time (the order queue holds one per worker), so
// memory stays bounded whatever the file's size.
//
// Where to cut: after the last '\n' of a piece that has an even number of
// quote characters before it (every chunk starts at a record start, where
// no quote is open). Counting quotes is one vectorised bytes.Count per
// chunk, a small fraction of parsing, and it is exact for RFC 4180 input:
// quotes only open and close quoted fields and an escaped quote is a pair.
// It is not exact where this parser is lenient (a stray quote inside an
// unquoted field is taken literally), so a cut is only a guess that the
// reader verifies: a chunk parsed from a true record start that does not
// end at a record boundary proves the next cut wrong, and the reader then
// feeds the following chunks to that chunk's parser itself, dropping the
// workers' results for them, until a chunk ends cleanly. The other standard
// approach, parsing each chunk speculatively in both quote states, costs a
// second parse of everything to handle files this scan already gets right.
//
// Types are inferred from the first SampleRows rows, which the caller's
// goroutine reads in order (the head) before any chunk goes to a worker;
// workers then only convert, and a later value that does not fit is a
// CSVError. Workers count lines from their chunk's start; an error's line
// is moved to the file's line numbering once every earlier chunk has been
// counted, so errors read exactly as the one-goroutine reader's.

import (
	"bytes"
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
)

const (
	// headChunk is the size of the chunks read before the types are known.
	headChunk = 1 << 20
	// minChunk and maxChunk bound the chunk size picked afterwards: about a
	// quarter of a batch of rows per chunk, so that a worker's share of the
	// memory in flight stays small; the records are joined into full
	// batches in order (batcher).
	minChunk = 64 << 10
	maxChunk = 8 << 20
)

// csvChunk is a piece of the input that starts at a (supposed) record start.
type csvChunk struct {
	data []byte
	last bool // the end of the input
	// cfg is the started head reader (types, schema) the worker converts
	// with, and res its result; both nil for a chunk the head reads.
	cfg *csvReader
	res chan chunkResult
}

// chunkResult is a worker's records for one chunk, with its parser and
// converter, kept in case the next chunk must continue them.
type chunkResult struct {
	recs []arrow.Record
	p    *csvParser
	cr   *csvReader
	err  error
}

func (r *chunkResult) release() {
	ReleaseAll(r.recs)
	r.recs = nil
	if r.cr != nil && r.cr.bld != nil {
		r.cr.bld.Release()
		r.cr.bld = nil
	}
}

// StreamCSV reads a CSV (or TSV) file as StreamCSVFrom does, reporting
// progress against the file's size.
func StreamCSV(ctx context.Context, path string, opts CSVOptions, begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	pr := &progressReader{r: f, ctx: ctx, fn: opts.Progress, total: fileSize(f)}
	return streamCSV(ctx, path, pr, opts, begin, emit)
}

// StreamCSVFrom reads CSV data from r in parallel chunks: it calls begin
// once with the schema, then emit with each record in file order (emit
// owns the record). Both are called from the calling goroutine. name is
// used in error messages; malformed input and values that do not fit
// their column give a *CSVError.
func StreamCSVFrom(ctx context.Context, name string, r io.Reader, opts CSVOptions, begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
	return streamCSV(ctx, name, &progressReader{r: r, ctx: ctx, fn: opts.Progress}, opts, begin, emit)
}

func streamCSV(ctx context.Context, path string, r io.Reader, opts CSVOptions, begin func(*arrow.Schema) error, emit func(arrow.Record) error) (err error) {
	opts, err = checkCSVOptions(path, opts)
	if err != nil {
		return err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var size atomic.Int64
	size.Store(headChunk)
	if opts.chunkBytes > 0 {
		size.Store(int64(opts.chunkBytes))
	}
	ctx, cancel := context.WithCancel(ctx)
	var (
		wg      sync.WaitGroup
		readErr error // set by the splitter before it closes chunks
		chunks  = make(chan *csvChunk)
		order   = make(chan *csvChunk, workers)
		jobs    = make(chan *csvChunk)
		headAck = make(chan *csvReader)
	)
	wg.Add(2 + workers)
	go func() {
		defer wg.Done()
		defer close(chunks)
		readErr = splitCSV(ctx, path, r, &size, chunks)
	}()
	go func() {
		defer wg.Done()
		dispatchCSV(ctx, chunks, order, jobs, headAck)
	}()
	for i := 0; i < workers; i++ {
		go func() {
			defer wg.Done()
			for ch := range jobs {
				ch.res <- parseChunk(ch)
			}
		}()
	}
	defer func() {
		// Stop the pipeline and release what it made for nothing.
		cancel()
		for ch := range order {
			if ch.res != nil {
				res := <-ch.res
				res.release()
			}
		}
		wg.Wait()
	}()

	head := newCSVReader(path, opts)
	// seq is the parser the caller's goroutine feeds: the head's, or a
	// worker's whose chunk ended inside a record; nil while chunks go to
	// the workers. base is the file line its chunk (or the worker's
	// chunk) starts on.
	seq := &csvParser{path: path, delim: byte(opts.Delimiter), line: 1, col: 1, bom: 3, emit: head.record}
	seqCR := head
	base := 1
	begun, emitted, done := false, false, false
	var headBytes int64
	bat := &batcher{rows: int64(opts.BatchRows)}
	defer bat.release()
	send := func(recs []arrow.Record) error {
		for i, rec := range recs {
			if err := emit(rec); err != nil {
				ReleaseAll(recs[i+1:])
				return err
			}
			emitted = true
		}
		return nil
	}
	out := func(recs []arrow.Record) error {
		full, err := bat.add(recs)
		if err != nil {
			return err
		}
		return send(full)
	}
	defer func() {
		if head.bld != nil {
			head.bld.Release()
		}
		if seqCR != head && seqCR.bld != nil {
			seqCR.bld.Release()
		}
	}()
	for ch := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		done = ch.last
		if seq == nil {
			// A worker's chunk, from a record start the reader verified.
			res := <-ch.res
			if res.err != nil {
				res.release()
				return fileLine(res.err, base)
			}
			recs := res.recs
			res.recs = nil
			if err := out(recs); err != nil {
				res.release()
				return err
			}
			if ch.last || res.p.clean() {
				base += res.p.line - 1
				res.release()
			} else {
				seq, seqCR = res.p, res.cr // the cut was wrong: go on in order
			}
			continue
		}
		if ch.res != nil {
			// A worker parsed this chunk from a wrong cut.
			res := <-ch.res
			res.release()
		}
		headBytes += int64(len(ch.data))
		err := seq.feed(ch.data)
		if err == nil && ch.last {
			if err = seq.finish(); err == nil && !seqCR.started {
				err = seqCR.start()
			}
		}
		if err != nil {
			return fileLine(err, base)
		}
		if seqCR.started && !begun {
			begun = true
			if err := begin(head.schema); err != nil {
				return err
			}
			if opts.chunkBytes == 0 && seq.line > 1 {
				perRow := headBytes / int64(seq.line-1)
				size.Store(min(max(perRow*int64(opts.BatchRows)/4, minChunk), maxChunk))
			}
		}
		if seqCR.started {
			seqCR.flushRows()
		}
		recs := seqCR.recs
		seqCR.recs = nil
		if err := out(recs); err != nil {
			return err
		}
		var cfg *csvReader
		if !ch.last && seqCR.started && seq.clean() {
			base += seq.line - 1
			if seqCR != head {
				seqCR.bld.Release()
				seqCR.bld = nil
			}
			cfg = head
			seq, seqCR = nil, head
		}
		if ch.res == nil {
			// The dispatcher waits to hear whether the workers can start.
			select {
			case headAck <- cfg:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	if !done {
		if readErr != nil {
			return readErr
		}
		return ctx.Err()
	}
	last, err := bat.flush()
	if err != nil {
		return err
	}
	if err := send(last); err != nil {
		return err
	}
	if !emitted {
		// An empty file or a header alone: one empty record, as the
		// one-goroutine reader gives.
		bld := array.NewRecordBuilder(memory.DefaultAllocator, head.schema)
		defer bld.Release()
		return send([]arrow.Record{bld.NewRecord()})
	}
	return nil
}

// batcher joins the records of consecutive chunks into records of rows
// rows (the last one fewer). A record that is a batch already passes
// through; the others are copied once into the batch that takes them.
type batcher struct {
	rows    int64
	pending []arrow.Record
	have    int64
}

// add takes recs and returns the batches they complete.
func (b *batcher) add(recs []arrow.Record) ([]arrow.Record, error) {
	var out []arrow.Record
	for i, rec := range recs {
		if rec.NumRows() == b.rows && len(b.pending) == 0 {
			out = append(out, rec)
			continue
		}
		b.pending = append(b.pending, rec)
		b.have += rec.NumRows()
		for b.have >= b.rows {
			batch, err := b.take(b.rows)
			if err != nil {
				ReleaseAll(out)
				ReleaseAll(recs[i+1:])
				return nil, err
			}
			out = append(out, batch)
		}
	}
	return out, nil
}

// flush returns what is pending as one record.
func (b *batcher) flush() ([]arrow.Record, error) {
	if b.have == 0 {
		b.release()
		return nil, nil
	}
	rec, err := b.take(b.have)
	if err != nil {
		return nil, err
	}
	return []arrow.Record{rec}, nil
}

// take removes the first n pending rows and returns them as one record.
func (b *batcher) take(n int64) (arrow.Record, error) {
	var parts []arrow.Record
	need := n
	for need > 0 {
		r := b.pending[0]
		if r.NumRows() <= need {
			parts = append(parts, r)
			need -= r.NumRows()
			b.pending = b.pending[1:]
			continue
		}
		parts = append(parts, r.NewSlice(0, need))
		b.pending[0] = r.NewSlice(need, r.NumRows())
		r.Release()
		need = 0
	}
	b.have -= n
	if len(parts) == 1 {
		return parts[0], nil
	}
	defer ReleaseAll(parts)
	schema := parts[0].Schema()
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	arrs := make([]arrow.Array, len(parts))
	for c := range cols {
		for i, p := range parts {
			arrs[i] = p.Column(c)
		}
		col, err := array.Concatenate(arrs, memory.DefaultAllocator)
		if err != nil {
			return nil, fmt.Errorf("joining batches: %w", err)
		}
		cols[c] = col
	}
	return array.NewRecord(schema, cols, n), nil
}

func (b *batcher) release() {
	ReleaseAll(b.pending)
	b.pending, b.have = nil, 0
}

// fileLine moves a CSVError found by a parser that started on line base
// of the file to the file's line numbering.
func fileLine(err error, base int) error {
	var ce *CSVError
	if errors.As(err, &ce) {
		ce.Line += base - 1
	}
	return err
}

// dispatchCSV passes the chunks on in order and, once the head has
// inferred the types (headAck), to the workers too.
func dispatchCSV(ctx context.Context, chunks <-chan *csvChunk, order chan<- *csvChunk, jobs chan<- *csvChunk, headAck <-chan *csvReader) {
	defer close(order)
	defer close(jobs)
	var cfg *csvReader
	for ch := range chunks {
		if cfg != nil {
			ch.cfg = cfg
			ch.res = make(chan chunkResult, 1)
			select {
			case jobs <- ch:
			case <-ctx.Done():
				return
			}
		}
		select {
		case order <- ch:
		case <-ctx.Done():
			if ch.res != nil {
				res := <-ch.res
				res.release()
			}
			return
		}
		if cfg == nil {
			select {
			case cfg = <-headAck:
			case <-ctx.Done():
				return
			}
		}
	}
}

// parseChunk parses and converts one chunk with the head's types.
func parseChunk(ch *csvChunk) (res chunkResult) {
	t := ch.cfg
	cr := &csvReader{opts: t.opts, path: t.path, ncols: t.ncols, started: true, types: t.types, schema: t.schema}
	cr.bld = array.NewRecordBuilder(memory.DefaultAllocator, cr.schema)
	if t.rowBytes > 0 {
		// Size the builders for the chunk at once: growing them by
		// doubling would leave as much garbage as the batch itself.
		rows := min(len(ch.data)/t.rowBytes+len(ch.data)/(4*t.rowBytes)+16, t.opts.BatchRows)
		for c, fb := range cr.bld.Fields() {
			fb.Reserve(rows)
			if sb, ok := fb.(*array.StringBuilder); ok {
				sb.ReserveData(rows * (t.widths[c] + 1))
			}
		}
	}
	p := &csvParser{path: t.path, delim: byte(t.opts.Delimiter), line: 1, col: 1, emit: cr.record}
	res.p, res.cr = p, cr
	res.err = p.feed(ch.data)
	if res.err == nil && ch.last {
		res.err = p.finish()
	}
	cr.flushRows()
	res.recs, cr.recs = cr.recs, nil
	return res
}

// splitCSV reads r in chunks of about size bytes, each cut after its last
// record end (lastRecordEnd), and sends them to out; the last one has last
// set.
func splitCSV(ctx context.Context, path string, r io.Reader, size *atomic.Int64, out chan<- *csvChunk) error {
	var carry []byte
	grow := 0 // a read that found no record end reads more next time
	for {
		n := max(int(size.Load()), grow)
		buf := make([]byte, len(carry)+n)
		copy(buf, carry)
		m, err := io.ReadFull(r, buf[len(carry):])
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("read %s: %w", path, err)
		}
		data := buf[:len(carry)+m]
		ch := &csvChunk{data: data, last: eof}
		if !eof {
			cut := lastRecordEnd(data)
			if cut < 0 {
				carry, grow = data, 2*len(data)
				continue
			}
			ch.data, carry, grow = data[:cut], data[cut:], 0
		}
		select {
		case out <- ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		if eof {
			return nil
		}
	}
}

// lastRecordEnd returns the offset just past the last '\n' of data that
// has an even number of quotes before it, or -1.
func lastRecordEnd(data []byte) int {
	quotes := bytes.Count(data, []byte{'"'})
	end := len(data)
	for {
		j := bytes.LastIndexByte(data[:end], '\n')
		if j < 0 {
			return -1
		}
		quotes -= bytes.Count(data[j+1:end], []byte{'"'})
		if quotes%2 == 0 {
			return j + 1
		}
		end = j
	}
}
