package mysql

import (
	"context"
	"regexp"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/mysql/wire"
)

// A minimal information_schema: SCHEMATA, TABLES and COLUMNS, which
// GUI clients and connectors read for their metadata. TABLES has MySQL's
// TABLE_ROWS, AVG_ROW_LENGTH and DATA_LENGTH (the table's host bytes, as
// .stats counts them), which clients show as a table's size. A statement naming
// information_schema.X runs on a small in-memory gsql database built for
// it from the catalog, so every WHERE, ORDER BY and join gsql supports
// works on these tables.

var reInfoSchema = regexp.MustCompile("(?i)`?\\binformation_schema`?\\s*\\.\\s*`?(schemata|tables|columns)\\b`?")

// isInfoSchema reports whether stmt reads information_schema tables.
func isInfoSchema(stmt string) bool { return reInfoSchema.MatchString(stmt) }

func (h *Handler) infoSchema(ctx context.Context, stmt string, args []any) (wire.Result, error) {
	idb, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		return wire.Result{}, err
	}
	if err := h.fillInfoSchema(ctx, idb); err != nil {
		idb.Close()
		return wire.Result{}, err
	}
	// `tables` and `columns` are keywords of the dialect: quote them.
	text := reInfoSchema.ReplaceAllStringFunc(stmt, func(m string) string {
		return "`" + strings.ToLower(reInfoSchema.FindStringSubmatch(m)[1]) + "`"
	})
	rdr, err := idb.Query(ctx, text, args...)
	if err != nil {
		idb.Close()
		return wire.Result{}, mysqlError(err)
	}
	return wire.Result{Rows: &errMapped{RecordReader: rdr, done: func() { idb.Close() }}}, nil
}

// fillInfoSchema registers schemata, tables and columns in idb.
func (h *Handler) fillInfoSchema(ctx context.Context, idb *gsql.DB) error {
	str := func(names ...string) *arrow.Schema {
		fs := make([]arrow.Field, len(names))
		for i, n := range names {
			fs[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
		}
		return arrow.NewSchema(fs, nil)
	}
	schemata := str("CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME")
	tableFields := str("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "TABLE_COMMENT").Fields()
	for i := tableRows; i <= tableDataLength; i++ {
		tableFields[i].Type = arrow.PrimitiveTypes.Int64
	}
	tables := arrow.NewSchema(tableFields, nil)
	colFields := str("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION", "COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE", "COLUMN_TYPE", "COLUMN_KEY", "EXTRA").Fields()
	colFields[4].Type = arrow.PrimitiveTypes.Int64
	columns := arrow.NewSchema(colFields, nil)

	sb := array.NewRecordBuilder(memory.DefaultAllocator, schemata)
	defer sb.Release()
	appendStrings(sb, 0, "def", h.Database, "utf8mb4", "utf8mb4_general_ci")
	tb := array.NewRecordBuilder(memory.DefaultAllocator, tables)
	defer tb.Release()
	cb := array.NewRecordBuilder(memory.DefaultAllocator, columns)
	defer cb.Release()
	names, err := h.tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range names {
		appendStrings(tb, 0, "def", h.Database, t, "BASE TABLE", "gsql")
		appendSize(tb, h.DB, t)
		appendStrings(tb, tableDataLength+1, "")
		res, _, err := h.columns(ctx, t, false)
		if err != nil {
			continue // a view that no longer binds: listed without columns
		}
		pos := int64(0)
		for res.Rows.Next() {
			rec := res.Rows.Record()
			// DESCRIBE's Field, Type, Null, Key, Default, Extra.
			var c [6]*array.String
			for k := range c {
				c[k] = rec.Column(k).(*array.String)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				pos++
				appendStrings(cb, 0, "def", h.Database, t, c[0].Value(i))
				cb.Field(4).(*array.Int64Builder).Append(pos)
				if c[4].IsNull(i) {
					cb.Field(5).(*array.StringBuilder).AppendNull()
				} else {
					cb.Field(5).(*array.StringBuilder).Append(c[4].Value(i))
				}
				ty := c[1].Value(i)
				dataType, _, _ := strings.Cut(ty, "(")
				appendStrings(cb, 6, c[2].Value(i), dataType, ty, c[3].Value(i), c[5].Value(i))
			}
		}
		res.Rows.Release()
	}
	for _, r := range []struct {
		name string
		b    *array.RecordBuilder
	}{{"schemata", sb}, {"tables", tb}, {"columns", cb}} {
		rec := r.b.NewRecord()
		err := idb.RegisterTable(r.name, rec.Schema(), []arrow.Record{rec})
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// The TABLES columns of a table's size.
const (
	tableRows       = 5
	tableDataLength = 7
)

// appendSize appends table's TABLE_ROWS, AVG_ROW_LENGTH and DATA_LENGTH
// (NULLs for a view, which holds no rows of its own).
func appendSize(b *array.RecordBuilder, db *gsql.DB, table string) {
	tm, err := db.TableMemory(table)
	for i := tableRows; i <= tableDataLength; i++ {
		if err != nil {
			b.Field(i).AppendNull()
		}
	}
	if err != nil {
		return
	}
	avg := int64(0)
	if tm.Rows > 0 {
		avg = tm.Bytes / tm.Rows
	}
	for i, v := range []int64{tm.Rows, avg, tm.Bytes} {
		b.Field(tableRows + i).(*array.Int64Builder).Append(v)
	}
}

// appendStrings appends values to the string columns from index at on.
func appendStrings(b *array.RecordBuilder, at int, values ...string) {
	for i, v := range values {
		b.Field(at + i).(*array.StringBuilder).Append(v)
	}
}
