package gsql_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
)

// TestDriverColumnTypes checks what database/sql reports for every column
// type gsql has, read from a table (NOT NULL where declared) and computed.
func TestDriverColumnTypes(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		`CREATE TABLE ct (b BOOLEAN, i BIGINT NOT NULL, f DOUBLE, v VARCHAR(20), d DATE NOT NULL, ts DATETIME, dc DECIMAL(12,3), dz DECIMAL NOT NULL, tm TIMESTAMP)`,
		`INSERT INTO ct VALUES (true, 1, 1.5, 'x', DATE '2024-02-29', TIMESTAMP '2024-01-05 10:30:00', 12.5, 7, NULL)`)
	sdb := gsql.OpenDB(db)
	defer sdb.Close()
	type col struct {
		name      string
		dbType    string
		scan      reflect.Type
		nullable  bool
		prec, sc  int64
		decOK     bool
		length    int64
		lengthOK  bool
		wantValue any
	}
	var (
		nullBool   = reflect.TypeOf(sql.NullBool{})
		i64        = reflect.TypeOf(int64(0))
		nullInt    = reflect.TypeOf(sql.NullInt64{})
		nullFloat  = reflect.TypeOf(sql.NullFloat64{})
		nullString = reflect.TypeOf(sql.NullString{})
		tm         = reflect.TypeOf(time.Time{})
		nullTime   = reflect.TypeOf(sql.NullTime{})
		str        = reflect.TypeOf("")
	)
	cases := []struct {
		query string
		cols  []col
	}{
		{`SELECT * FROM ct`, []col{
			{"b", "BOOLEAN", nullBool, true, 0, 0, false, 0, false, true},
			{"i", "BIGINT", i64, false, 0, 0, false, 0, false, int64(1)},
			{"f", "DOUBLE", nullFloat, true, 0, 0, false, 0, false, 1.5},
			{"v", "VARCHAR", nullString, true, 0, 0, false, math.MaxInt64, true, "x"},
			{"d", "DATE", tm, false, 0, 0, false, 0, false, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
			{"ts", "DATETIME", nullTime, true, 0, 0, false, 0, false, time.Date(2024, 1, 5, 10, 30, 0, 0, time.UTC)},
			{"dc", "DECIMAL", nullString, true, 12, 3, true, 0, false, "12.500"},
			{"dz", "DECIMAL", str, false, 10, 0, true, 0, false, "7"},
			{"tm", "DATETIME", nullTime, true, 0, 0, false, 0, false, nil},
		}},
		// Renamed, filtered and sorted columns keep their table's NOT NULL;
		// computed ones may be NULL.
		{`SELECT i AS n, i + 1, d FROM ct WHERE i > 0 ORDER BY d LIMIT 5`, []col{
			{"n", "BIGINT", i64, false, 0, 0, false, 0, false, int64(1)},
			{"i + 1", "BIGINT", nullInt, true, 0, 0, false, 0, false, int64(2)},
			{"d", "DATE", tm, false, 0, 0, false, 0, false, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		}},
		{`SELECT CAST(dc AS DECIMAL(20,4)) AS c, CAST(i AS DOUBLE), COUNT(*), NULL, 1 = 1 FROM ct GROUP BY dc, i`, []col{
			{"c", "DECIMAL", nullString, true, 20, 4, true, 0, false, "12.5000"},
			{"CAST(i AS DOUBLE)", "DOUBLE", nullFloat, true, 0, 0, false, 0, false, 1.0},
			{"COUNT(*)", "BIGINT", nullInt, true, 0, 0, false, 0, false, int64(1)},
			{"null", "VARCHAR", nullString, true, 0, 0, false, math.MaxInt64, true, nil},
			{"1 = 1", "BOOLEAN", nullBool, true, 0, 0, false, 0, false, true},
		}},
		// The inner side of a LEFT JOIN may be NULL whatever its table says.
		{`SELECT a.i, b.i FROM ct a LEFT JOIN ct b ON a.i = b.i + 1`, []col{
			{"i", "BIGINT", i64, false, 0, 0, false, 0, false, int64(1)},
			{"i", "BIGINT", nullInt, true, 0, 0, false, 0, false, nil},
		}},
	}
	for _, c := range cases {
		rs, err := sdb.QueryContext(context.Background(), c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		types, err := rs.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		if len(types) != len(c.cols) {
			t.Fatalf("%s: %d columns, want %d", c.query, len(types), len(c.cols))
		}
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rs.Next() {
			t.Fatalf("%s: no row (%v)", c.query, rs.Err())
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		rs.Close()
		for i, w := range c.cols {
			ct := types[i]
			nullable, nok := ct.Nullable()
			p, s, dok := ct.DecimalSize()
			l, lok := ct.Length()
			got := col{ct.Name(), ct.DatabaseTypeName(), ct.ScanType(), nullable, p, s, dok, l, lok, vals[i]}
			if !nok {
				t.Errorf("%s: column %d: Nullable not known", c.query, i)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: column %d:\n got %+v\nwant %+v", c.query, i, got, w)
			}
			// A value scans into the announced type.
			dst := reflect.New(ct.ScanType())
			if vals[i] != nil || nullable {
				if err := convertAssign(dst.Interface(), vals[i]); err != nil {
					t.Errorf("%s: column %d: %v into %v: %v", c.query, i, vals[i], ct.ScanType(), err)
				}
			}
		}
	}
}

// convertAssign puts v into dst as a Scan into the announced type would.
func convertAssign(dst, v any) error {
	if s, ok := dst.(sql.Scanner); ok {
		return s.Scan(v)
	}
	d, val := reflect.ValueOf(dst).Elem(), reflect.ValueOf(v)
	if !val.IsValid() || !val.Type().AssignableTo(d.Type()) {
		return fmt.Errorf("%T does not go into %v", v, d.Type())
	}
	d.Set(val)
	return nil
}
