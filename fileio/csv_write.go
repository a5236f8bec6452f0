package fileio

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
)

// WriteCSV writes rdr's records as CSV: a header row (unless NoHeader), NULL
// as an empty unquoted field and the empty string as "", so that ReadCSV
// reads the file back identically. Doubles always carry a '.' or exponent
// so they read back as DOUBLE.
func WriteCSV(ctx context.Context, path string, rdr array.RecordReader, opts WriteOptions) (int64, error) {
	var rows int64
	err := atomicWrite(path, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<20)
		n, err := WriteCSVTo(ctx, w, rdr, opts)
		rows = n
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	})
	return rows, err
}

// WriteCSVTo writes rdr's records as CSV to w (see WriteCSV).
func WriteCSVTo(ctx context.Context, w io.Writer, rdr array.RecordReader, opts WriteOptions) (int64, error) {
	delim := opts.Delimiter
	if delim == 0 {
		delim = ','
	}
	cw := &csvWriter{w: bufio.NewWriter(w), delim: string(delim)}
	schema := rdr.Schema()
	if !opts.NoHeader {
		for i, f := range schema.Fields() {
			cw.field(i, f.Name, false)
		}
		cw.w.WriteString("\n")
	}
	var rows int64
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			for c := 0; c < int(rec.NumCols()); c++ {
				col := rec.Column(c)
				if col.IsNull(r) {
					cw.field(c, "", false)
					continue
				}
				cw.field(c, FormatFieldValue(rec.Schema().Field(c), col, r), col.DataType().ID() == arrow.STRING)
			}
			cw.w.WriteString("\n")
		}
		rows += rec.NumRows()
	}
	if err := rdr.Err(); err != nil {
		return rows, err
	}
	return rows, cw.w.Flush()
}

type csvWriter struct {
	w     *bufio.Writer
	delim string
}

func (cw *csvWriter) field(i int, v string, str bool) {
	if i > 0 {
		cw.w.WriteString(cw.delim)
	}
	if (str && v == "") || strings.ContainsAny(v, cw.delim+"\"\r\n") || (v != strings.TrimSpace(v)) {
		cw.w.WriteByte('"')
		cw.w.WriteString(strings.ReplaceAll(v, `"`, `""`))
		cw.w.WriteByte('"')
		return
	}
	cw.w.WriteString(v)
}

// FormatValue renders a non-NULL value of a Boolean, Int64, Float64 or String
// column as text (true/false; decimal integers; shortest round-tripping
// doubles with a '.' or exponent). Other types use Arrow's ValueStr.
func FormatValue(a arrow.Array, i int) string {
	switch x := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(x.Value(i))
	case *array.Int64:
		return strconv.FormatInt(x.Value(i), 10)
	case *array.Float64:
		return FormatFloat(x.Value(i))
	case *array.String:
		return x.Value(i)
	case *array.Date32:
		return datetime.FormatDate(int64(x.Value(i)))
	case *array.Decimal128:
		v := x.Value(i)
		return decimal.Int128{Lo: v.LowBits(), Hi: v.HighBits()}.String(int(x.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Timestamp:
		if u := x.DataType().(*arrow.TimestampType).Unit; u == arrow.Microsecond {
			return datetime.FormatTimestamp(int64(x.Value(i)))
		}
	}
	return a.ValueStr(i)
}

// FormatFieldValue is FormatValue for a column of field f: a DATETIME(n)
// column (coldata.ArrowField) prints exactly n digits of a second, as
// MySQL prints it.
func FormatFieldValue(f arrow.Field, a arrow.Array, i int) string {
	if x, ok := a.(*array.Timestamp); ok {
		if fsp := coldata.FieldFsp(f); fsp >= 0 && x.DataType().(*arrow.TimestampType).Unit == arrow.Microsecond {
			return string(datetime.AppendTimestampFsp(nil, int64(x.Value(i)), fsp))
		}
	}
	return FormatValue(a, i)
}

// FormatFloat renders f in the shortest form that reads back exactly,
// always with a '.' or exponent ("2.0", "1e+21", "NaN", "Infinity").
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
