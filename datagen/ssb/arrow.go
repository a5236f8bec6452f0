package ssb

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

var (
	tInt = arrow.PrimitiveTypes.Int64
	tStr = arrow.BinaryTypes.String
)

var schemaOf = tpch.SchemaOf

// schemas are the tables' columns as the specification lists them:
// numbers (keys, money in cents, yyyymmdd dates, flags) BIGINT, text
// VARCHAR.
var schemas = [...]*arrow.Schema{
	Dates: schemaOf("d_datekey", tInt, "d_date", tStr, "d_dayofweek", tStr, "d_month", tStr,
		"d_year", tInt, "d_yearmonthnum", tInt, "d_yearmonth", tStr, "d_daynuminweek", tInt,
		"d_daynuminmonth", tInt, "d_daynuminyear", tInt, "d_monthnuminyear", tInt,
		"d_weeknuminyear", tInt, "d_sellingseason", tStr, "d_lastdayinweekfl", tInt,
		"d_lastdayinmonthfl", tInt, "d_holidayfl", tInt, "d_weekdayfl", tInt),
	Customer: schemaOf("c_custkey", tInt, "c_name", tStr, "c_address", tStr, "c_city", tStr,
		"c_nation", tStr, "c_region", tStr, "c_phone", tStr, "c_mktsegment", tStr),
	Supplier: schemaOf("s_suppkey", tInt, "s_name", tStr, "s_address", tStr, "s_city", tStr,
		"s_nation", tStr, "s_region", tStr, "s_phone", tStr),
	Part: schemaOf("p_partkey", tInt, "p_name", tStr, "p_mfgr", tStr, "p_category", tStr,
		"p_brand1", tStr, "p_color", tStr, "p_type", tStr, "p_size", tInt, "p_container", tStr),
	LineOrder: schemaOf("lo_orderkey", tInt, "lo_linenumber", tInt, "lo_custkey", tInt,
		"lo_partkey", tInt, "lo_suppkey", tInt, "lo_orderdate", tInt, "lo_orderpriority", tStr,
		"lo_shippriority", tInt, "lo_quantity", tInt, "lo_extendedprice", tInt,
		"lo_ordtotalprice", tInt, "lo_discount", tInt, "lo_revenue", tInt, "lo_supplycost", tInt,
		"lo_tax", tInt, "lo_commitdate", tInt, "lo_shipmode", tStr),
}

// Schema is the Arrow schema of t's records.
func Schema(t Table) *arrow.Schema {
	if t < 0 || int(t) >= len(schemas) {
		return nil
	}
	return schemas[t]
}

// builder appends rows of one schema, a column at a time in schema
// order, and cuts them into records.
type builder struct {
	b    *array.RecordBuilder
	col  int
	rows int
}

func newBuilder(s *arrow.Schema) *builder {
	return &builder{b: array.NewRecordBuilder(memory.DefaultAllocator, s)}
}

func (b *builder) int(v int64) {
	b.b.Field(b.col).(*array.Int64Builder).Append(v)
	b.col++
}

func (b *builder) str(v string) {
	b.b.Field(b.col).(*array.StringBuilder).Append(v)
	b.col++
}

// end closes a row.
func (b *builder) end() {
	b.col = 0
	b.rows++
}

// flush hands the rows built so far to emit as one record.
func (b *builder) flush(emit func(arrow.Record) error) error {
	if b.rows == 0 {
		return nil
	}
	r := b.b.NewRecord()
	b.rows = 0
	return emit(r)
}
