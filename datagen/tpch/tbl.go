package tpch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// WriteTbl writes t's rows to w in dbgen's .tbl text form: every field
// followed by '|', money with two decimals, dates as YYYY-MM-DD, one row a
// line. Other engines load it with their delimited-text readers.
func (g *Generator) WriteTbl(ctx context.Context, t Table, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	err := g.Generate(ctx, t, 0, func(rec arrow.Record) error {
		defer rec.Release()
		for _, line := range tblLines(rec) {
			bw.WriteString(line)
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tpch: write %s: %w", t, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tpch: write %s: %w", t, err)
	}
	return nil
}

// tblLines formats records the way dbgen writes its .tbl files: fields
// separated and ended by '|', money with two decimals, dates ISO.
func tblLines(rec arrow.Record) []string {
	out := make([]string, rec.NumRows())
	var sb strings.Builder
	for r := 0; r < int(rec.NumRows()); r++ {
		sb.Reset()
		for c := 0; c < int(rec.NumCols()); c++ {
			switch a := rec.Column(c).(type) {
			case *array.Int64:
				sb.WriteString(strconv.FormatInt(a.Value(r), 10))
			case *array.String:
				sb.WriteString(a.Value(r))
			case *array.Decimal128:
				v := a.Value(r).LowBits()
				cents := int64(v)
				if cents < 0 {
					sb.WriteByte('-')
					cents = -cents
				}
				if rec.ColumnName(c) == "l_quantity" { // dbgen prints the integer
					fmt.Fprintf(&sb, "%d", cents/100)
				} else {
					fmt.Fprintf(&sb, "%d.%02d", cents/100, cents%100)
				}
			case *array.Date32:
				sb.WriteString(a.Value(r).FormattedString())
			default:
				sb.WriteString(a.ValueStr(r))
			}
			sb.WriteByte('|')
		}
		out[r] = sb.String()
	}
	return out
}
