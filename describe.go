package gsql

import (
	"context"
	"strings"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// DESCRIBE t, SHOW [FULL] COLUMNS FROM t: MySQL 8's columns Field, Type,
// Null, Key, Default, Extra (FULL adds Collation after Type, Privileges
// and Comment at the end), with MySQL 8's spelling of the types.

// describeNames are DESCRIBE's columns; describeFullNames SHOW FULL
// COLUMNS'.
var (
	describeNames     = []string{"Field", "Type", "Null", "Key", "Default", "Extra"}
	describeFullNames = []string{"Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"}
)

// columnInfo is one row of DESCRIBE; a nil Default is NULL.
type columnInfo struct {
	field, typ, null, key string
	def                   *string
	extra                 string
	isString              bool
}

// describeTable is DESCRIBE of table (or view) t.
func (db *DB) describeTable(ctx context.Context, t *catalog.Table, full bool) array.RecordReader {
	keys := columnKeys(t, db.cat.Indexes(t.Name))
	rows := make([]columnInfo, len(t.Columns))
	for i, c := range t.Columns {
		r := columnInfo{field: c.Name, typ: MySQLTypeName(c.Type), null: "YES", key: keys[i], isString: c.Type == coldata.String}
		if c.NotNull {
			r.null = "NO"
		}
		r.def, r.extra = db.defaultText(ctx, c)
		if c.AutoIncrement {
			r.extra = "auto_increment"
		}
		rows[i] = r
	}
	return describeRows(rows, full)
}

// describeRows renders DESCRIBE's rows.
func describeRows(rows []columnInfo, full bool) array.RecordReader {
	names := describeNames
	if full {
		names = describeFullNames
	}
	b := make([]*coldata.Builder, len(names))
	for i := range b {
		b[i] = coldata.NewBuilder(coldata.String, len(rows))
	}
	for _, r := range rows {
		cells := []*string{&r.field, &r.typ, &r.null, &r.key, r.def, &r.extra}
		if full {
			// MySQL 8's collation of gsql's bytewise comparison;
			// MariaDB's is named utf8mb4_bin.
			var coll *string
			if r.isString {
				s := "utf8mb4_0900_bin"
				coll = &s
			}
			priv, comment := "select,insert,update,references", ""
			cells = []*string{&r.field, &r.typ, coll, &r.null, &r.key, r.def, &r.extra, &priv, &comment}
		}
		for i, c := range cells {
			if c == nil {
				b[i].AppendNull()
			} else {
				b[i].AppendString(*c)
			}
		}
	}
	cols := make([]*coldata.Vec, len(b))
	for i := range b {
		cols[i] = b[i].Finish()
	}
	return rowsReader(names, cols)
}

// MySQLTypeName is a gsql column type as MySQL 8's DESCRIBE spells it:
// bigint, double, decimal(12,2), date, datetime, datetime(6), tinyint(1)
// for BOOLEAN. gsql keeps no declared length or integer width: INT and
// VARCHAR(20) columns are bigint and varchar (MySQL: int, varchar(20)).
func MySQLTypeName(t coldata.Type) string {
	switch {
	case t == coldata.Bool:
		return "tinyint(1)"
	case t == coldata.Timestamp:
		return "datetime"
	}
	return strings.ToLower(t.String())
}

// columnKeys is DESCRIBE's Key of each column of t, as MySQL gives it:
// PRI for the primary key's columns (or, without one, those of the first
// UNIQUE key whose columns are all NOT NULL), UNI for the column of a
// one-column UNIQUE key, MUL for the first column of any other index or
// key.
func columnKeys(t *catalog.Table, indexes []*catalog.Index) []string {
	keys := append([]catalog.Key(nil), t.Keys...)
	var plain [][]int // the columns of non-unique indexes
	for _, ix := range indexes {
		if ix.Unique {
			keys = append(keys, catalog.Key{Name: ix.Name, Columns: ix.Columns, Cols: ix.Cols})
		} else {
			plain = append(plain, ix.Cols)
		}
	}
	primary := -1
	for i, k := range keys {
		if k.Primary {
			primary = i
			break
		}
	}
	if primary < 0 {
		for i, k := range keys {
			if allNotNull(t, k.Cols) {
				primary = i
				break
			}
		}
	}
	out := make([]string, len(t.Columns))
	mark := func(c int, v string) {
		if c >= 0 && c < len(out) && out[c] == "" {
			out[c] = v
		}
	}
	if primary >= 0 {
		for _, c := range keys[primary].Cols {
			mark(c, "PRI")
		}
	}
	for i, k := range keys {
		if i != primary && len(k.Cols) == 1 {
			mark(k.Cols[0], "UNI")
		}
	}
	for i, k := range keys {
		if i != primary && len(k.Cols) > 1 {
			mark(k.Cols[0], "MUL")
		}
	}
	for _, cols := range plain {
		if len(cols) > 0 {
			mark(cols[0], "MUL")
		}
	}
	return out
}

func allNotNull(t *catalog.Table, cols []int) bool {
	for _, c := range cols {
		if c < 0 || c >= len(t.Columns) || !t.Columns[c].NotNull {
			return false
		}
	}
	return len(cols) > 0
}

// defaultText is DESCRIBE's Default and Extra of column c: a literal
// DEFAULT as a value of c's type (MySQL prints DEFAULT 1.5 of a
// DECIMAL(12,2) as 1.50), NULL without one; a clock function or an
// expression as written, with Extra DEFAULT_GENERATED (MySQL 8).
func (db *DB) defaultText(ctx context.Context, c catalog.Column) (*string, string) {
	text := strings.TrimSpace(c.Default)
	if text == "" {
		return nil, ""
	}
	if m := clockDefault.FindStringSubmatch(text); m != nil {
		s := "CURRENT_TIMESTAMP"
		if digits := strings.Trim(text[len(m[1]):], "() \t"); digits != "" {
			s += "(" + digits + ")"
		}
		return &s, "DEFAULT_GENERATED"
	}
	if strings.EqualFold(text, "CURRENT_TIMESTAMP") || strings.EqualFold(text, "NOW") {
		s := "CURRENT_TIMESTAMP"
		return &s, "DEFAULT_GENERATED"
	}
	if strings.HasPrefix(text, "(") {
		return &text, "DEFAULT_GENERATED"
	}
	v, err := db.defaultValue(ctx, c)
	if err != nil {
		return &text, "" // checked at CREATE TABLE: not expected
	}
	if v == nil {
		return nil, ""
	}
	s, ok := valueText(v, c.Type)
	if !ok {
		return &text, ""
	}
	return &s, ""
}

// valueText is v, a value of type t, as CAST(v AS CHAR) prints it.
func valueText(v any, t coldata.Type) (string, bool) {
	f, ok := expr.Lookup(expr.CastFuncName(coldata.String))
	if !ok {
		return "", false
	}
	out, err := f.Eval([]*coldata.Vec{coldata.NewConst(t, v, 1)}, 1)
	if err != nil || out.IsNull(0) {
		return "", false
	}
	return string(out.Str(0)), true
}
