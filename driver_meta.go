package gsql

import (
	"database/sql"
	"math"
	"reflect"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

// Result field metadata: a column that comes unchanged from a table says
// which (FieldTable: its name as the query gave it; FieldOrgTable: the
// table's own), the column's name in the table, and its part in the
// table's keys (planner.Origin.KeyRole: PRI, UNI, MUL or PART), and
// FieldNotNull "1" when the table declares it NOT NULL; then the field is
// not Nullable either, unless an outer join may give it NULLs. The MySQL wire turns them
// into column definition flags (server/mysql/wire reads the same names).
const (
	FieldTable    = "gsql.table"
	FieldOrgTable = "gsql.org_table"
	FieldColumn   = "gsql.column"
	FieldKey      = "gsql.key"
	FieldNotNull  = "gsql.not_null"
)

// driverType is how the database/sql driver describes one Arrow result
// type: the SQL name tools show and the Go type a value scans into (with
// and without NULL).
type driverType struct {
	name           string
	scan, scanNull reflect.Type
}

var (
	scanString     = reflect.TypeOf("")
	scanNullString = reflect.TypeOf(sql.NullString{})
	scanTime       = reflect.TypeOf(time.Time{})
	scanNullTime   = reflect.TypeOf(sql.NullTime{})
)

// driverTypes follows cellValue: DECIMAL comes as exact text, DATE and
// DATETIME as time.Time. gsql's TIMESTAMP is MySQL's DATETIME (a wall
// clock without a zone), and is named so, as the MySQL wire sends it.
var driverTypes = map[arrow.Type]driverType{
	arrow.BOOL:       {"BOOLEAN", reflect.TypeOf(false), reflect.TypeOf(sql.NullBool{})},
	arrow.INT64:      {"BIGINT", reflect.TypeOf(int64(0)), reflect.TypeOf(sql.NullInt64{})},
	arrow.FLOAT64:    {"DOUBLE", reflect.TypeOf(float64(0)), reflect.TypeOf(sql.NullFloat64{})},
	arrow.STRING:     {"VARCHAR", scanString, scanNullString},
	arrow.DECIMAL128: {"DECIMAL", scanString, scanNullString},
	arrow.DATE32:     {"DATE", scanTime, scanNullTime},
	arrow.TIMESTAMP:  {"DATETIME", scanTime, scanNullTime},
	arrow.NULL:       {"NULL", reflect.TypeOf((*any)(nil)).Elem(), reflect.TypeOf((*any)(nil)).Elem()},
}

func (r *rows) field(i int) (arrow.Field, driverType) {
	f := r.r.Schema().Field(i)
	t, ok := driverTypes[f.Type.ID()]
	if !ok {
		// cellValue's fallback: Arrow's text of the value.
		t = driverType{f.Type.Name(), scanString, scanNullString}
	}
	return f, t
}

// ColumnTypeDatabaseTypeName implements
// driver.RowsColumnTypeDatabaseTypeName: BIGINT, DOUBLE, DECIMAL,
// VARCHAR, BOOLEAN, DATE, DATETIME (precision and scale apart, as
// database/sql asks).
func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	_, t := r.field(i)
	return t.name
}

// ColumnTypeScanType implements driver.RowsColumnTypeScanType: the Go
// type of the column's values, a sql.Null* type where it may be NULL.
func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	f, t := r.field(i)
	if f.Nullable {
		return t.scanNull
	}
	return t.scan
}

// ColumnTypeNullable implements driver.RowsColumnTypeNullable. Only a
// column read unchanged from a NOT NULL table column is known never to
// be NULL.
func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	return r.r.Schema().Field(i).Nullable, true
}

// ColumnTypePrecisionScale implements driver.RowsColumnTypePrecisionScale
// for DECIMAL(p,s); ok is false for the other types.
func (r *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if d, isDec := r.r.Schema().Field(i).Type.(*arrow.Decimal128Type); isDec {
		return int64(d.Precision), int64(d.Scale), true
	}
	return 0, 0, false
}

// ColumnTypeLength implements driver.RowsColumnTypeLength: gsql's
// VARCHAR has no declared length, so it is unbounded (math.MaxInt64, as
// database/sql says for variable-length types without a limit); ok is
// false for types without a length.
func (r *rows) ColumnTypeLength(i int) (length int64, ok bool) {
	if r.r.Schema().Field(i).Type.ID() == arrow.STRING {
		return math.MaxInt64, true
	}
	return 0, false
}
