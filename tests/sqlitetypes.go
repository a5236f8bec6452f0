package tests

import (
	"fmt"
	"github.com/gsqlengine/gsql/fileio"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// FormatSQLiteValue is FormatValue with SQLite's conversions where the
// value's type and the type letter differ, as SQLite's sqllogictest driver
// reads every value through the column type the letter names: a number in
// a T column prints as its text (an integer in decimal, a real as SQLite
// prints it, 1.0 as "1.0"), text in an I or R column as its leading
// number (0 when it has none).
func FormatSQLiteValue(col arrow.Array, i int, typ byte) (string, error) {
	if i < 0 || i >= col.Len() || col.IsNull(i) {
		return FormatValue(col, i, typ)
	}
	switch a := col.(type) {
	case *array.Int64, *array.Int32, *array.Int16, *array.Int8, *array.Boolean:
		if typ == 'T' {
			return FormatValue(col, i, 'I')
		}
	case *array.Float64:
		if typ == 'T' {
			return sqliteReal(a.Value(i)), nil
		}
	case *array.Float32:
		if typ == 'T' {
			return sqliteReal(float64(a.Value(i))), nil
		}
	case *array.Decimal128:
		if typ == 'I' {
			// The corpus expects SQLite's integer division where gsql
			// divides exactly (MySQL's DECIMAL): the value cast to an
			// integer, toward zero, as for a REAL in an I column.
			return decimalTrunc(fileio.FormatValue(col, i)), nil
		}
	case *array.String:
		switch typ {
		case 'I':
			return strconv.FormatInt(leadingInt(a.Value(i)), 10), nil
		case 'R':
			return fmt.Sprintf("%.3f", leadingReal(a.Value(i))), nil
		}
	}
	return FormatValue(col, i, typ)
}

// decimalTrunc is the integer part of a decimal's text, "-0" as "0".
func decimalTrunc(s string) string {
	s, _, _ = strings.Cut(s, ".")
	if s == "-0" || s == "" || s == "-" {
		return "0"
	}
	return s
}

// sqliteReal prints v as SQLite's "%!.15g": 15 significant digits, and a
// ".0" on a value that would otherwise read as an integer.
func sqliteReal(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s := strconv.FormatFloat(v, 'g', 15, 64)
	if mant, exp, ok := strings.Cut(s, "e"); ok {
		// Go writes e+06, SQLite e+6 (C's %g keeps two exponent digits).
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		for len(digits) < 2 {
			digits = "0" + digits
		}
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		return mant + "e" + sign + digits
	}
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// leadingInt is SQLite's integer value of text: its longest leading
// integer after spaces, 0 when it has none.
func leadingInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	v, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		return int64(leadingReal(s))
	}
	return v
}

// leadingReal is SQLite's real value of text: its longest leading number.
func leadingReal(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r")
	if s == "" || !strings.ContainsRune("+-.0123456789", rune(s[0])) {
		return 0 // ParseFloat would read "inf" and "nan"; SQLite does not
	}
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
	}
	return 0
}
