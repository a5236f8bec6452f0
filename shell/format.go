package shell

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/fileio"
)

// Output modes.
var modes = []string{"table", "csv", "tsv", "json", "jsonl", "markdown", "line"}

// Format says how results are printed.
type Format struct {
	Mode    string // one of table, csv, tsv, json, jsonl, markdown, line
	Headers bool
	// NullValue is printed for NULL; when NullSet is false the default is
	// "NULL" in table, markdown and line modes and "" in csv and tsv.
	NullValue string
	NullSet   bool
	// MaxWidth is the widest a cell may be in table mode, in display
	// columns, before it is cut with '…' (0: no limit).
	MaxWidth int
	// Footer prints "N rows" after a table.
	Footer bool
}

// DefaultFormat is the shell's initial format.
func DefaultFormat() Format {
	return Format{Mode: "table", Headers: true, MaxWidth: 40, Footer: true}
}

func (f *Format) null() string {
	if f.NullSet {
		return f.NullValue
	}
	switch f.Mode {
	case "csv", "tsv":
		return ""
	}
	return "NULL"
}

// cell renders row i of column c of rec as text, NULL as "" with ok=false.
func cell(rec arrow.Record, c, i int) (string, bool) {
	a := rec.Column(c)
	if a.IsNull(i) {
		return "", false
	}
	// A string points into the record's memory, which may be page-locked
	// result memory reused once the record is released; table mode keeps
	// cells past that.
	return strings.Clone(fileio.FormatFieldValue(rec.Schema().Field(c), a, i)), true
}

func numeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16,
		arrow.UINT32, arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// plural renders "1 row" / "N rows".
func plural(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return strconv.FormatInt(n, 10) + " rows"
}

// Write prints every record of rdr in the format and returns the number of
// rows. Table mode buffers the rows to size the columns; the other modes
// stream.
func (f *Format) Write(w io.Writer, rdr array.RecordReader) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	var n int64
	var err error
	switch f.Mode {
	case "table", "markdown":
		n, err = f.writeGrid(bw, rdr)
	case "csv", "tsv":
		n, err = f.writeDelimited(bw, rdr)
	case "json", "jsonl":
		n, err = f.writeJSON(bw, rdr)
	case "line":
		n, err = f.writeLines(bw, rdr)
	default:
		return 0, fmt.Errorf("unknown output mode %q", f.Mode)
	}
	if err == nil {
		err = bw.Flush()
	}
	return n, err
}

func (f *Format) writeGrid(w *bufio.Writer, rdr array.RecordReader) (int64, error) {
	schema := rdr.Schema()
	ncol := schema.NumFields()
	md := f.Mode == "markdown"
	right := make([]bool, ncol)
	widths := make([]int, ncol)
	clean := func(s string) string {
		s = visible(s)
		if md {
			return strings.ReplaceAll(s, "|", `\|`)
		}
		return truncate(s, f.MaxWidth)
	}
	var header []string
	for i, fd := range schema.Fields() {
		right[i] = numeric(fd.Type)
		h := clean(fd.Name)
		header = append(header, h)
		if f.Headers || md {
			widths[i] = displayWidth(h)
		}
		if md && widths[i] < 3 {
			widths[i] = 3
		}
	}
	var rows [][]string
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, ncol)
			for c := 0; c < ncol; c++ {
				s, ok := cell(rec, c, r)
				if !ok {
					s = f.null()
				}
				row[c] = clean(s)
				if dw := displayWidth(row[c]); dw > widths[c] {
					widths[c] = dw
				}
			}
			rows = append(rows, row)
		}
	}
	if err := rdr.Err(); err != nil {
		return 0, err
	}
	line := func(cells []string) {
		w.WriteString("|")
		for c, s := range cells {
			w.WriteString(" ")
			w.WriteString(pad(s, widths[c], right[c]))
			w.WriteString(" |")
		}
		w.WriteString("\n")
	}
	rule := func() {
		w.WriteString("+")
		for _, wd := range widths {
			w.WriteString(strings.Repeat("-", wd+2))
			w.WriteString("+")
		}
		w.WriteString("\n")
	}
	if md {
		line(header)
		w.WriteString("|")
		for c, wd := range widths {
			if right[c] {
				w.WriteString(strings.Repeat("-", wd+1) + ":|")
			} else {
				w.WriteString(strings.Repeat("-", wd+2) + "|")
			}
		}
		w.WriteString("\n")
		for _, r := range rows {
			line(r)
		}
		return int64(len(rows)), nil
	}
	if ncol > 0 {
		rule()
		if f.Headers {
			line(header)
			rule()
		}
		for _, r := range rows {
			line(r)
		}
		if len(rows) > 0 || !f.Headers {
			rule()
		}
	}
	if f.Footer {
		w.WriteString(plural(int64(len(rows))) + "\n")
	}
	return int64(len(rows)), nil
}

func (f *Format) writeDelimited(w *bufio.Writer, rdr array.RecordReader) (int64, error) {
	sep := ","
	if f.Mode == "tsv" {
		sep = "\t"
	}
	quote := func(s string) string {
		if f.Mode == "tsv" {
			return strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
		}
		if s == "" || strings.ContainsAny(s, ",\"\r\n") || s != strings.TrimSpace(s) {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	schema := rdr.Schema()
	if f.Headers {
		for i, fd := range schema.Fields() {
			if i > 0 {
				w.WriteString(sep)
			}
			w.WriteString(quote(fd.Name))
		}
		w.WriteString("\n")
	}
	var n int64
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					w.WriteString(sep)
				}
				s, ok := cell(rec, c, r)
				switch {
				case !ok:
					w.WriteString(f.null())
				case rec.Column(c).DataType().ID() == arrow.STRING:
					w.WriteString(quote(s))
				default:
					w.WriteString(s)
				}
			}
			w.WriteString("\n")
		}
		n += rec.NumRows()
	}
	return n, rdr.Err()
}

// jsonString writes s as a JSON string literal.
func jsonString(w *bufio.Writer, s string) {
	w.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			w.WriteString(`\"`)
		case r == '\\':
			w.WriteString(`\\`)
		case r == '\n':
			w.WriteString(`\n`)
		case r == '\r':
			w.WriteString(`\r`)
		case r == '\t':
			w.WriteString(`\t`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(w, `\u%04x`, r)
		default:
			w.WriteRune(r)
		}
	}
	w.WriteByte('"')
}

func (f *Format) writeJSON(w *bufio.Writer, rdr array.RecordReader) (int64, error) {
	lines := f.Mode == "jsonl"
	fields := rdr.Schema().Fields()
	var n int64
	if !lines {
		w.WriteString("[")
	}
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			if !lines {
				if n > 0 {
					w.WriteString(",")
				}
				w.WriteString("\n")
			}
			w.WriteString("{")
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					w.WriteString(",")
				}
				jsonString(w, fields[c].Name)
				w.WriteString(":")
				col := rec.Column(c)
				s, ok := cell(rec, c, r)
				switch {
				case !ok:
					w.WriteString("null")
				case col.DataType().ID() == arrow.FLOAT64:
					v := col.(*array.Float64).Value(r)
					if math.IsNaN(v) || math.IsInf(v, 0) {
						w.WriteString("null")
					} else {
						w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
					}
				case col.DataType().ID() == arrow.STRING:
					jsonString(w, s)
				case numeric(col.DataType()) || col.DataType().ID() == arrow.BOOL:
					w.WriteString(s)
				default:
					jsonString(w, s)
				}
			}
			w.WriteString("}")
			if lines {
				w.WriteString("\n")
			}
			n++
		}
	}
	if !lines {
		if n > 0 {
			w.WriteString("\n")
		}
		w.WriteString("]\n")
	}
	return n, rdr.Err()
}

func (f *Format) writeLines(w *bufio.Writer, rdr array.RecordReader) (int64, error) {
	fields := rdr.Schema().Fields()
	width := 0
	for _, fd := range fields {
		if dw := displayWidth(fd.Name); dw > width {
			width = dw
		}
	}
	var n int64
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			if n > 0 {
				w.WriteString("\n")
			}
			for c := 0; c < int(rec.NumCols()); c++ {
				s, ok := cell(rec, c, r)
				if !ok {
					s = f.null()
				}
				w.WriteString(pad(fields[c].Name, width, true))
				w.WriteString(" = ")
				w.WriteString(s)
				w.WriteString("\n")
			}
			n++
		}
	}
	return n, rdr.Err()
}
