package gsql

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
)

// checkAutoIncrement enforces MySQL's rules for AUTO_INCREMENT: an integer
// column (1063), at most one per table, and the first column of a key
// (1075), so that the numbers it makes stay unique.
func checkAutoIncrement(cols []catalog.Column, keys []catalog.Key) error {
	auto := -1
	for i, c := range cols {
		if !c.AutoIncrement {
			continue
		}
		if c.Type != coldata.Int64 {
			return errkind.Errorf(errkind.TypeMismatch, "Incorrect column specifier for column '%s': AUTO_INCREMENT needs an integer column", c.Name)
		}
		if auto >= 0 {
			return errkind.Errorf(errkind.Unsupported, "Incorrect table definition; there can be only one auto column and it must be defined as a key")
		}
		auto = i
	}
	if auto < 0 {
		return nil
	}
	for _, k := range keys {
		if len(k.Columns) > 0 && strings.EqualFold(k.Columns[0], cols[auto].Name) {
			return nil
		}
	}
	return errkind.Errorf(errkind.Unsupported, "Incorrect table definition; there can be only one auto column and it must be defined as a key")
}

// autoColumn is the table's AUTO_INCREMENT column, or -1.
func autoColumn(t *catalog.Table) int {
	for i, c := range t.Columns {
		if c.AutoIncrement {
			return i
		}
	}
	return -1
}

// autoCounter is the largest value of column ci in t: its zone maps when
// every record has them, else a scan. The next number is one past it.
func autoCounter(t *catalog.Table, ci int) int64 {
	top := int64(0)
	if len(t.Zones) == len(t.Records) {
		ok := true
		for _, zs := range t.Zones {
			if ci >= len(zs) {
				ok = false
				break
			}
			if z := zs[ci]; z.MaxI != nil {
				top = max(top, *z.MaxI)
			} else if z.MinI != nil || z.MinF != nil || z.MinS != nil {
				ok = false
				break
			}
		}
		if ok {
			return top
		}
		top = 0
	}
	for _, r := range t.Records {
		col, ok := r.Column(ci).(*array.Int64)
		if !ok {
			continue
		}
		for i := 0; i < col.Len(); i++ {
			if col.IsValid(i) {
				top = max(top, col.Value(i))
			}
		}
	}
	return top
}

// numberRows gives v's NULL and 0 values the next numbers after *counter,
// in row order, and moves *counter past every explicit value (as MySQL's
// counter follows an explicit larger value). first is the first number
// given (0: none).
func numberRows(v *coldata.Vec, counter *int64) (out *coldata.Vec, first int64, err error) {
	b := coldata.NewBuilder(coldata.Int64, v.Len)
	for i := 0; i < v.Len; i++ {
		if !v.IsNull(i) && v.Int(i) != 0 {
			x := v.Int(i)
			*counter = max(*counter, x)
			b.AppendInt(x)
			continue
		}
		if *counter == math.MaxInt64 {
			return nil, 0, errkind.Errorf(errkind.OutOfRange, "Failed to read auto-increment value from storage engine: the counter is at BIGINT's end")
		}
		*counter++
		if first == 0 {
			first = *counter
		}
		b.AppendInt(*counter)
	}
	return b.Finish(), first, nil
}

// autoValues is n new numbers after *counter, for an INSERT that gives the
// AUTO_INCREMENT column no value.
func autoValues(n int, counter *int64) (*coldata.Vec, int64, error) {
	if n == 0 {
		return coldata.NewBuilder(coldata.Int64, 0).Finish(), 0, nil
	}
	nulls := coldata.NewConst(coldata.Int64, nil, n).Materialize()
	v, first, err := numberRows(nulls, counter)
	if err != nil {
		return nil, 0, fmt.Errorf("AUTO_INCREMENT: %w", err)
	}
	return v, first, nil
}
