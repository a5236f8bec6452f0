package wire

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

// TestColumnDefinition checks the column definition fields that describe
// a column's origin and type: tables, flags from the engine's field
// metadata, and DECIMAL widths (MySQL's: DECIMAL(10,2) is 12 wide).
func TestColumnDefinition(t *testing.T) {
	meta := func(kv ...string) arrow.Metadata {
		var keys, vals []string
		for i := 0; i < len(kv); i += 2 {
			keys, vals = append(keys, kv[i]), append(vals, kv[i+1])
		}
		return arrow.NewMetadata(keys, vals)
	}
	cases := []struct {
		name       string
		f          arrow.Field
		table, org string
		length     uint32
		decimals   byte
		flags      uint16
		mysqlType  byte
	}{
		{"primary key", arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Metadata: meta(metaTable, "a", metaOrgTable, "t", metaColumn, "id", metaKey, "PRI", metaNotNull, "1")},
			"a", "t", 20, 0, flagNotNull | flagPriKey | flagNoDefault | flagNum | flagPartKey, typeLongLong},
		{"unique nullable", arrow.Field{Name: "u", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(metaTable, "t", metaOrgTable, "t", metaColumn, "u", metaKey, "UNI")},
			"t", "t", 1 << 24, 0, flagUniqueKey | flagPartKey, typeVarString},
		{"first of a composite key", arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(metaTable, "t", metaOrgTable, "t", metaColumn, "c", metaKey, "MUL")},
			"t", "t", 20, 0, flagMultipleKey | flagNum | flagPartKey, typeLongLong},
		{"later column of a key", arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(metaTable, "t", metaOrgTable, "t", metaColumn, "c", metaKey, "PART")},
			"t", "t", 20, 0, flagNum | flagPartKey, typeLongLong},
		{"outer join side of a NOT NULL column", arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(metaTable, "t", metaOrgTable, "t", metaColumn, "n", metaNotNull, "1")},
			"t", "t", 20, 0, flagNoDefault | flagNum, typeLongLong},
		{"computed number", arrow.Field{Name: "a + 1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			"", "", 20, 0, flagBinary | flagNum, typeLongLong},
		{"decimal with a scale", arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
			"", "", 12, 2, flagBinary | flagNum, typeNewDecimal},
		{"decimal without a scale", arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 0}, Nullable: true},
			"", "", 11, 0, flagBinary | flagNum, typeNewDecimal},
		{"date", arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			"", "", 10, 0, flagBinary, typeDate},
	}
	for _, c := range cases {
		b := columnDef(nil, c.f, typeOf(c.f))
		d := &decoder{b: b}
		var strs [6]string
		for i := range strs {
			strs[i] = string(d.lenEncBytes())
		}
		d.uint8()  // length of the fixed fields
		d.uint16() // charset
		length, typ, flags, decimals := d.uint32(), d.uint8(), d.uint16(), d.uint8()
		if d.err != nil {
			t.Fatalf("%s: %v", c.name, d.err)
		}
		org := ""
		if c.f.Metadata.FindKey(metaColumn) >= 0 {
			org = c.f.Metadata.Values()[c.f.Metadata.FindKey(metaColumn)]
		}
		if strs[2] != c.table || strs[3] != c.org || strs[4] != c.f.Name || strs[5] != org {
			t.Errorf("%s: names %q", c.name, strs)
		}
		if length != c.length || typ != c.mysqlType || flags != c.flags || decimals != c.decimals {
			t.Errorf("%s: length %d type %#x flags %#x decimals %d, want %d %#x %#x %d", c.name, length, typ, flags, decimals, c.length, c.mysqlType, c.flags, c.decimals)
		}
	}
}
