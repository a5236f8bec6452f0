// Package duckrows reads a DuckDB query's answer as text rows, the form
// the yardstick answer files (testdata/tpch, testdata/clickbench) keep:
// shared by the programs that write those files.
package duckrows

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/marcboeker/go-duckdb"
)

// Querier runs a query: *sql.DB and *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Query runs q and returns its column names, then one line per row.
func Query(ctx context.Context, db Querier, q string) ([][]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := [][]string{cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for j := range vals {
			ptrs[j] = &vals[j]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		line := make([]string, len(cols))
		for j, v := range vals {
			line[j] = Text(v, types[j].DatabaseTypeName())
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

// Text renders one value: NULL, decimals with their scale, doubles in
// their shortest form, DATE as 2006-01-02 and TIMESTAMP with its time.
func Text(v any, typ string) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case duckdb.Decimal:
		return DecimalText(v.Value, int(v.Scale))
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case time.Time:
		if typ == "DATE" {
			return v.Format("2006-01-02")
		}
		return v.Format("2006-01-02 15:04:05")
	case *big.Int:
		return v.String()
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// DecimalText renders an unscaled integer with scale digits after the point.
func DecimalText(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}
