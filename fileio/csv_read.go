package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/errkind"
)

// HeaderMode says whether a CSV file's first row holds column names.
type HeaderMode int

// Header modes.
const (
	// HeaderAuto treats the first row as a header when all of its fields are
	// non-empty, non-numeric strings and either a later row holds a
	// non-string value in some column or every column is a string column.
	HeaderAuto HeaderMode = iota
	// HeaderYes always treats the first row as the header.
	HeaderYes
	// HeaderNo never does; columns are named column0, column1, ...
	HeaderNo
)

// DefaultSampleRows is the number of rows type inference looks at.
const DefaultSampleRows = 10000

// CSVOptions configure ReadCSV.
type CSVOptions struct {
	// Delimiter separates fields (0: ','). It must be a single ASCII
	// character other than '"', '\r' and '\n'.
	Delimiter rune
	Header    HeaderMode
	// SampleRows is the number of rows type inference examines (0:
	// DefaultSampleRows; negative: all rows). A later value that does not
	// fit the inferred type is an error.
	SampleRows int
	// EmptyStrings makes an empty unquoted field in a VARCHAR column read
	// as the empty string. By default it is NULL; a quoted empty field ("")
	// is always the empty string. Empty fields in other columns are NULL.
	EmptyStrings bool
	// NullString, when not empty, is an unquoted field value read as NULL.
	NullString string
	// AllVarchar disables type inference: every column is VARCHAR.
	AllVarchar bool
	Progress   ProgressFunc
	// BatchRows is the most rows a record holds (0: DefaultBatchRows).
	BatchRows int
	// Workers is the number of goroutines that parse and convert (0:
	// GOMAXPROCS).
	Workers int

	// chunkBytes, when set, fixes the size of the pieces the input is cut
	// into (tests make it tiny, so that piece boundaries land everywhere).
	chunkBytes int
}

// colType is an inferred CSV column type.
type colType int

const (
	typeBool colType = iota
	typeInt
	typeFloat
	typeString
	typeDate
	typeTimestamp
)

func (t colType) String() string {
	return [...]string{"BOOLEAN", "BIGINT", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP"}[t]
}

func (t colType) arrow() arrow.DataType {
	switch t {
	case typeBool:
		return arrow.FixedWidthTypes.Boolean
	case typeInt:
		return arrow.PrimitiveTypes.Int64
	case typeFloat:
		return arrow.PrimitiveTypes.Float64
	case typeDate:
		return arrow.FixedWidthTypes.Date32
	case typeTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	}
	return arrow.BinaryTypes.String
}

// CSVError is malformed CSV input, or a value that does not fit the type
// its column was inferred as, at a 1-based line and column (in
// characters) of the file.
type CSVError struct {
	Path         string
	Line, Column int
	Msg          string
	// For a value that does not fit its column: the column's name and
	// inferred type (BIGINT, DOUBLE, ...); empty otherwise.
	Field, Type string
}

func (e *CSVError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// ErrorKind implements errkind.Kinded: the file holds a bad value.
func (e *CSVError) ErrorKind() errkind.Kind { return errkind.BadValue }

// pos is a 1-based line and column (in characters).
type pos struct{ line, col int }

// record is one parsed CSV record: field i is buf[start(i):ends[i]].
type record struct {
	buf    []byte
	ends   []int
	quoted []bool
	pos    []pos
	end    pos // position of the record's end (its newline or EOF)
}

func (r *record) reset() {
	r.buf = r.buf[:0]
	r.ends = r.ends[:0]
	r.quoted = r.quoted[:0]
	r.pos = r.pos[:0]
}

func (r *record) n() int { return len(r.ends) }

func (r *record) field(i int) []byte {
	s := 0
	if i > 0 {
		s = r.ends[i-1]
	}
	return r.buf[s:r.ends[i]]
}

func (r *record) clone() *record {
	return &record{
		buf:    append([]byte(nil), r.buf...),
		ends:   append([]int(nil), r.ends...),
		quoted: append([]bool(nil), r.quoted...),
		pos:    append([]pos(nil), r.pos...),
		end:    r.end,
	}
}

// blank reports whether the record is an empty line.
func (r *record) blank() bool { return r.n() == 1 && r.ends[0] == 0 && !r.quoted[0] }

// csvParser is an RFC 4180 state machine fed chunk by chunk.
type csvParser struct {
	path  string
	delim byte
	line  int
	col   int
	state int
	skip  bool // skip an '\n' that follows a '\r' ending a record
	cr    bool // the previous byte was '\r' (for line counting)
	bom   int  // bytes of a leading UTF-8 BOM still to check
	rec   record
	emit  func(*record) error
}

const (
	stFieldStart = iota
	stUnquoted
	stQuoted
	stQuoteInQuoted
)

func (p *csvParser) errorf(at pos, format string, args ...any) error {
	return &CSVError{Path: p.path, Line: at.line, Column: at.col, Msg: fmt.Sprintf(format, args...)}
}

// clean reports whether the parser stands at the start of a record: what
// it has read so far ends exactly at a record boundary.
func (p *csvParser) clean() bool {
	return p.state == stFieldStart && p.rec.n() == 0 && !p.skip && p.bom == 0
}

func (p *csvParser) here() pos { return pos{p.line, p.col} }

func (p *csvParser) startField(quoted bool) {
	p.rec.pos = append(p.rec.pos, p.here())
	p.rec.quoted = append(p.rec.quoted, quoted)
}

func (p *csvParser) endField() {
	p.rec.ends = append(p.rec.ends, len(p.rec.buf))
}

func (p *csvParser) endRecord() error {
	p.rec.end = p.here()
	err := p.emit(&p.rec)
	p.rec.reset()
	return err
}

// feed consumes a chunk of input.
func (p *csvParser) feed(data []byte) error {
	for i := 0; i < len(data); i++ {
		c := data[i]
		if p.bom > 0 {
			// Skip a UTF-8 byte order mark at the very start.
			want := [...]byte{0xEF, 0xBB, 0xBF}[3-p.bom]
			if c == want {
				p.bom--
				continue
			}
			if p.bom != 3 {
				return p.errorf(p.here(), "invalid UTF-8 byte order mark")
			}
			p.bom = 0
		}
		if p.skip {
			p.skip = false
			if c == '\n' {
				p.cr = false
				continue
			}
		}
		newline := c == '\n' || c == '\r'
		switch p.state {
		case stFieldStart:
			switch {
			case c == '"':
				p.startField(true)
				p.state = stQuoted
			case c == p.delim:
				p.startField(false)
				p.endField()
			case newline:
				p.startField(false)
				p.endField()
				if err := p.endRecord(); err != nil {
					return err
				}
			default:
				p.startField(false)
				p.rec.buf = append(p.rec.buf, c)
				p.state = stUnquoted
			}
		case stUnquoted:
			switch {
			case c == p.delim:
				p.endField()
				p.state = stFieldStart
			case newline:
				p.endField()
				if err := p.endRecord(); err != nil {
					return err
				}
				p.state = stFieldStart
			default:
				p.rec.buf = append(p.rec.buf, c)
			}
		case stQuoted:
			if c == '"' {
				p.state = stQuoteInQuoted
			} else {
				p.rec.buf = append(p.rec.buf, c)
			}
		case stQuoteInQuoted:
			switch {
			case c == '"':
				p.rec.buf = append(p.rec.buf, '"')
				p.state = stQuoted
			case c == p.delim:
				p.endField()
				p.state = stFieldStart
			case newline:
				p.endField()
				if err := p.endRecord(); err != nil {
					return err
				}
				p.state = stFieldStart
			default:
				return p.errorf(p.here(), "unexpected %q after closing quote", rune(c))
			}
		}
		// Advance the position; "\r\n" is one line break.
		if newline {
			if c == '\r' && p.state == stFieldStart {
				p.skip = true
			}
			if c == '\r' || !p.cr {
				p.line++
			}
			p.col = 1
		} else if c&0xC0 != 0x80 {
			p.col++
		}
		p.cr = c == '\r'
	}
	return nil
}

// finish ends the input.
func (p *csvParser) finish() error {
	switch p.state {
	case stQuoted:
		return p.errorf(p.rec.pos[len(p.rec.pos)-1], "unterminated quoted field")
	case stUnquoted, stQuoteInQuoted:
		p.endField()
		return p.endRecord()
	case stFieldStart:
		if p.rec.n() > 0 { // the line ended with a delimiter
			p.startField(false)
			p.endField()
			return p.endRecord()
		}
	}
	return nil
}

// csvReader turns records into Arrow columns.
type csvReader struct {
	opts    CSVOptions
	path    string
	ncols   int
	sample  []*record
	limit   int
	started bool
	types   []colType
	schema  *arrow.Schema
	bld     *array.RecordBuilder
	rows    int
	recs    []arrow.Record
	// widths are the sample's mean field sizes in bytes and rowBytes its
	// mean record size: the parallel reader sizes its builders by them.
	widths   []int
	rowBytes int
}

// ReadCSV reads a CSV (or, with another delimiter, TSV) file, infers its
// header and column types and returns the schema and its records.
func ReadCSV(ctx context.Context, path string, opts CSVOptions) (*arrow.Schema, []arrow.Record, error) {
	return collect(func(begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
		return StreamCSV(ctx, path, opts, begin, emit)
	})
}

// ReadCSVFrom reads CSV data from r; name is used in error messages.
func ReadCSVFrom(ctx context.Context, name string, r io.Reader, opts CSVOptions) (*arrow.Schema, []arrow.Record, error) {
	return collect(func(begin func(*arrow.Schema) error, emit func(arrow.Record) error) error {
		return StreamCSVFrom(ctx, name, r, opts, begin, emit)
	})
}

// readCSVSerial is the one-goroutine reader: the parallel one (StreamCSV)
// must give the same records, and tests compare them.
func readCSVSerial(path string, r io.Reader, opts CSVOptions) (schema *arrow.Schema, recs []arrow.Record, err error) {
	opts, err = checkCSVOptions(path, opts)
	if err != nil {
		return nil, nil, err
	}
	cr := newCSVReader(path, opts)
	defer func() {
		if cr.bld != nil {
			cr.bld.Release()
		}
		if err != nil {
			ReleaseAll(cr.recs)
		}
	}()
	p := &csvParser{path: path, delim: byte(opts.Delimiter), line: 1, col: 1, bom: 3, emit: cr.record}
	buf := make([]byte, 256<<10)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if err := p.feed(buf[:n]); err != nil {
				return nil, nil, err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, rerr)
		}
	}
	if err := p.finish(); err != nil {
		return nil, nil, err
	}
	if !cr.started {
		if err := cr.start(); err != nil {
			return nil, nil, err
		}
	}
	if err := cr.flush(); err != nil {
		return nil, nil, err
	}
	return cr.schema, cr.recs, nil
}

// checkCSVOptions validates opts and fills in the defaults.
func checkCSVOptions(path string, opts CSVOptions) (CSVOptions, error) {
	if opts.Delimiter == 0 {
		opts.Delimiter = ','
	}
	if opts.Delimiter > 127 || opts.Delimiter == '"' || opts.Delimiter == '\n' || opts.Delimiter == '\r' {
		return opts, fmt.Errorf("%s: invalid delimiter %q (want one ASCII character other than quote or newline)", path, opts.Delimiter)
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = DefaultBatchRows
	}
	return opts, nil
}

// newCSVReader returns a reader that infers the header and types from its
// first records.
func newCSVReader(path string, opts CSVOptions) *csvReader {
	cr := &csvReader{opts: opts, path: path, ncols: -1, limit: opts.SampleRows}
	if cr.limit == 0 {
		cr.limit = DefaultSampleRows
	}
	return cr
}

// record receives one parsed record.
func (cr *csvReader) record(r *record) error {
	if r.blank() && cr.ncols != 1 {
		return nil // skip empty lines unless the file has one column
	}
	if cr.ncols < 0 {
		cr.ncols = r.n()
	} else if r.n() != cr.ncols {
		at := r.end
		if r.n() > cr.ncols {
			at = r.pos[cr.ncols]
		}
		return &CSVError{Path: cr.path, Line: at.line, Column: at.col, Msg: fmt.Sprintf("expected %d fields, got %d", cr.ncols, r.n())}
	}
	if !cr.started {
		cr.sample = append(cr.sample, r.clone())
		if cr.limit > 0 && len(cr.sample) > cr.limit {
			return cr.start()
		}
		return nil
	}
	return cr.append(r)
}

// isNull reports whether field i of r is NULL in a column of type t.
func (cr *csvReader) isNull(r *record, i int, t colType) bool {
	v := r.field(i)
	if r.quoted[i] {
		return len(v) == 0 && t != typeString
	}
	if len(v) == 0 {
		return t != typeString || !cr.opts.EmptyStrings
	}
	return cr.opts.NullString != "" && string(v) == cr.opts.NullString
}

// start infers the header and types from the sample and converts it.
func (cr *csvReader) start() error {
	cr.started = true
	if cr.ncols < 0 {
		cr.ncols = 0
	}
	body := cr.sample
	header := false
	switch cr.opts.Header {
	case HeaderYes:
		header = len(body) > 0
	case HeaderAuto:
		// A first row of non-empty, non-numeric strings is a header: either
		// later rows hold typed values it does not fit, or every column is
		// text and a header is the likelier reading (as DuckDB assumes).
		header = len(body) > 0 && cr.ncols > 0 && looksLikeHeader(body[0])
	}
	names := make([]string, cr.ncols)
	if header {
		for i := range names {
			names[i] = strings.TrimSpace(string(body[0].field(i)))
		}
		body = body[1:]
	}
	cr.types = cr.infer(body)
	cr.widths = make([]int, cr.ncols)
	if len(body) > 0 {
		for c := range cr.widths {
			n := 0
			for _, r := range body {
				n += len(r.field(c))
			}
			cr.widths[c] = n / len(body)
			cr.rowBytes += cr.widths[c] + 1
		}
	}
	seen := map[string]bool{}
	fields := make([]arrow.Field, cr.ncols)
	for i := range fields {
		name := names[i]
		if name == "" {
			name = fmt.Sprintf("column%d", i)
		}
		base := name
		for k := 1; seen[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		seen[strings.ToLower(name)] = true
		fields[i] = arrow.Field{Name: name, Type: cr.types[i].arrow(), Nullable: true}
	}
	cr.schema = arrow.NewSchema(fields, nil)
	cr.bld = array.NewRecordBuilder(memory.DefaultAllocator, cr.schema)
	for _, r := range body {
		if err := cr.append(r); err != nil {
			return err
		}
	}
	cr.sample = nil
	return nil
}

// looksLikeHeader: every field non-empty and not a number or boolean.
func looksLikeHeader(r *record) bool {
	for i := 0; i < r.n(); i++ {
		v := strings.TrimSpace(string(r.field(i)))
		if v == "" || !utf8.ValidString(v) {
			return false
		}
		if _, ok := parseBool(v); ok {
			return false
		}
		if looksNumeric(v) || looksTemporal(v) {
			return false
		}
	}
	return true
}

// looksTemporal reports whether v reads as a timestamp with a separated
// date part (2024-01-05, 2024/01/05 10:30:00); plain numbers do not count.
func looksTemporal(v string) bool {
	if len(v) < 8 {
		return false
	}
	for i := 0; i < 4; i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	if !strings.ContainsAny(v[:min(len(v), 10)], "-/") {
		return false
	}
	_, ok := datetime.ParseTimestamp(v)
	return ok
}

// looksDate reports whether v is a date without a time of day.
func looksDate(v string) bool {
	if len(v) > 10 || !looksTemporal(v) {
		return false
	}
	_, ok := datetime.ParseDate(v)
	return ok
}

// infer picks each column's narrowest type that fits every non-NULL value.
func (cr *csvReader) infer(rows []*record) []colType {
	types := make([]colType, cr.ncols)
	for c := range types {
		if cr.opts.AllVarchar {
			types[c] = typeString
			continue
		}
		canBool, canInt, canFloat, canDate, canTime, any := true, true, true, true, true, false
		for _, r := range rows {
			if cr.isNull(r, c, typeInt) {
				continue
			}
			any = true
			v := strings.TrimSpace(string(r.field(c)))
			if canBool {
				_, canBool = parseBool(v)
			}
			if canInt {
				_, err := strconv.ParseInt(v, 10, 64)
				canInt = err == nil
			}
			if canFloat {
				canFloat = looksNumeric(v)
			}
			if canTime {
				canTime = looksTemporal(v)
			}
			if canDate {
				canDate = canTime && looksDate(v)
			}
			if !canBool && !canInt && !canFloat && !canTime {
				break
			}
		}
		switch {
		case !any:
			types[c] = typeString
		case canBool:
			types[c] = typeBool
		case canInt:
			types[c] = typeInt
		case canFloat:
			types[c] = typeFloat
		case canDate:
			types[c] = typeDate
		case canTime:
			types[c] = typeTimestamp
		default:
			types[c] = typeString
		}
	}
	return types
}

func parseBool(v string) (bool, bool) {
	switch {
	case strings.EqualFold(v, "true"):
		return true, true
	case strings.EqualFold(v, "false"):
		return false, true
	}
	return false, false
}

// looksNumeric reports whether v is a decimal number ParseFloat accepts
// (no hex or underscores; NaN, Inf and Infinity with an optional sign).
func looksNumeric(v string) bool {
	if t := strings.TrimLeft(v, "+-"); len(v)-len(t) <= 1 {
		switch strings.ToLower(t) {
		case "nan", "inf", "infinity":
			_, err := strconv.ParseFloat(v, 64)
			return err == nil
		}
	}
	digit := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return false
		}
	}
	if !digit {
		return false
	}
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// append converts one record into the current batch.
func (cr *csvReader) append(r *record) error {
	for c, t := range cr.types {
		fb := cr.bld.Field(c)
		if cr.isNull(r, c, t) {
			fb.AppendNull()
			continue
		}
		raw := r.field(c)
		if t == typeString {
			if !utf8.Valid(raw) {
				return &CSVError{Path: cr.path, Line: r.pos[c].line, Column: r.pos[c].col, Msg: "invalid UTF-8 in field"}
			}
			fb.(*array.StringBuilder).BinaryBuilder.Append(raw)
			continue
		}
		v := strings.TrimSpace(string(raw))
		var ok bool
		switch t {
		case typeBool:
			var b bool
			b, ok = parseBool(v)
			if ok {
				fb.(*array.BooleanBuilder).Append(b)
			}
		case typeInt:
			n, err := strconv.ParseInt(v, 10, 64)
			if ok = err == nil; ok {
				fb.(*array.Int64Builder).Append(n)
			}
		case typeFloat:
			if ok = looksNumeric(v); ok {
				x, _ := strconv.ParseFloat(v, 64)
				fb.(*array.Float64Builder).Append(x)
			}
		case typeDate:
			var d int64
			if d, ok = datetime.ParseDate(v); ok {
				fb.(*array.Date32Builder).Append(arrow.Date32(d))
			}
		case typeTimestamp:
			var ts int64
			if ts, ok = datetime.ParseTimestamp(v); ok {
				fb.(*array.TimestampBuilder).Append(arrow.Timestamp(ts))
			}
		}
		if !ok {
			name := cr.schema.Field(c).Name
			return &CSVError{Path: cr.path, Line: r.pos[c].line, Column: r.pos[c].col, Field: name, Type: t.String(),
				Msg: fmt.Sprintf("cannot parse '%s' as %s (column %q, type inferred from the first rows)", clip(string(raw), 40), t, name)}
		}
	}
	cr.rows++
	if cr.rows >= cr.opts.BatchRows {
		return cr.flush()
	}
	return nil
}

func (cr *csvReader) flush() error {
	if cr.rows == 0 && len(cr.recs) > 0 {
		return nil
	}
	rec := cr.bld.NewRecord()
	cr.recs = append(cr.recs, rec)
	cr.rows = 0
	return nil
}

// flushRows ends the current batch if it holds rows.
func (cr *csvReader) flushRows() {
	if cr.rows > 0 {
		cr.recs = append(cr.recs, cr.bld.NewRecord())
		cr.rows = 0
	}
}

// clip shortens s to at most n characters for error messages.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
