package tpch

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// DefaultBatchRows is the number of rows per record Generate makes when
// asked for none in particular.
const DefaultBatchRows = 1 << 16

var (
	tInt   = arrow.PrimitiveTypes.Int64
	tStr   = arrow.BinaryTypes.String
	tMoney = &arrow.Decimal128Type{Precision: 15, Scale: 2}
	tDate  = arrow.FixedWidthTypes.Date32
)

// SchemaOf is a schema of nullable columns given as name, type pairs.
func SchemaOf(cols ...any) *arrow.Schema {
	f := make([]arrow.Field, 0, len(cols)/2)
	for i := 0; i < len(cols); i += 2 {
		f = append(f, arrow.Field{Name: cols[i].(string), Type: cols[i+1].(arrow.DataType), Nullable: true})
	}
	return arrow.NewSchema(f, nil)
}

// schemas are the tables' columns with the specification's types
// (clause 1.4.1): identifiers and integers BIGINT, money and quantities
// DECIMAL(15,2), dates DATE, text VARCHAR.
var schemas = [...]*arrow.Schema{
	Region: SchemaOf("r_regionkey", tInt, "r_name", tStr, "r_comment", tStr),
	Nation: SchemaOf("n_nationkey", tInt, "n_name", tStr, "n_regionkey", tInt, "n_comment", tStr),
	Part: SchemaOf("p_partkey", tInt, "p_name", tStr, "p_mfgr", tStr, "p_brand", tStr, "p_type", tStr,
		"p_size", tInt, "p_container", tStr, "p_retailprice", tMoney, "p_comment", tStr),
	Supplier: SchemaOf("s_suppkey", tInt, "s_name", tStr, "s_address", tStr, "s_nationkey", tInt,
		"s_phone", tStr, "s_acctbal", tMoney, "s_comment", tStr),
	PartSupp: SchemaOf("ps_partkey", tInt, "ps_suppkey", tInt, "ps_availqty", tInt, "ps_supplycost", tMoney,
		"ps_comment", tStr),
	Customer: SchemaOf("c_custkey", tInt, "c_name", tStr, "c_address", tStr, "c_nationkey", tInt,
		"c_phone", tStr, "c_acctbal", tMoney, "c_mktsegment", tStr, "c_comment", tStr),
	Orders: SchemaOf("o_orderkey", tInt, "o_custkey", tInt, "o_orderstatus", tStr, "o_totalprice", tMoney,
		"o_orderdate", tDate, "o_orderpriority", tStr, "o_clerk", tStr, "o_shippriority", tInt, "o_comment", tStr),
	LineItem: SchemaOf("l_orderkey", tInt, "l_partkey", tInt, "l_suppkey", tInt, "l_linenumber", tInt,
		"l_quantity", tMoney, "l_extendedprice", tMoney, "l_discount", tMoney, "l_tax", tMoney,
		"l_returnflag", tStr, "l_linestatus", tStr, "l_shipdate", tDate, "l_commitdate", tDate,
		"l_receiptdate", tDate, "l_shipinstruct", tStr, "l_shipmode", tStr, "l_comment", tStr),
}

// Schema is the Arrow schema of t's records.
func Schema(t Table) *arrow.Schema {
	if t < 0 || int(t) >= len(schemas) {
		return nil
	}
	return schemas[t]
}

// builder appends rows of one schema and cuts them into records.
type builder struct {
	schema *arrow.Schema
	b      *array.RecordBuilder
	rows   int
}

func newBuilder(s *arrow.Schema) *builder {
	return &builder{schema: s, b: array.NewRecordBuilder(memory.DefaultAllocator, s)}
}

func (b *builder) int(i int, v int64)  { b.b.Field(i).(*array.Int64Builder).Append(v) }
func (b *builder) str(i int, v string) { b.b.Field(i).(*array.StringBuilder).Append(v) }
func (b *builder) chr(i int, v byte) {
	b.b.Field(i).(*array.StringBuilder).BinaryBuilder.Append([]byte{v})
}
func (b *builder) money(i int, cents int64) {
	b.b.Field(i).(*array.Decimal128Builder).Append(decimal128.FromI64(cents))
}
func (b *builder) date(i int, d int32) { b.b.Field(i).(*array.Date32Builder).Append(arrow.Date32(d)) }

// flush hands the rows built so far to emit as one record.
func (b *builder) flush(emit func(arrow.Record) error) error {
	if b.rows == 0 {
		return nil
	}
	r := b.b.NewRecord()
	b.rows = 0
	return emit(r)
}

// Generate makes t's rows in order and hands them to emit in records of
// about batchRows rows (DefaultBatchRows if batchRows <= 0). emit owns
// each record and must release it. Generation stops at the first error
// from emit or at ctx's cancellation.
func (g *Generator) Generate(ctx context.Context, t Table, batchRows int, emit func(arrow.Record) error) error {
	return g.GenerateRange(ctx, t, 1, -1, batchRows, emit)
}

// GenerateRange is Generate for the rows of t's driving table numbered
// first (1-based) through first+count-1, or to the end when count < 0.
// The driving table of partsupp is part (4 rows each) and of lineitem
// orders (1 to 7 rows each); ranges let callers generate in parallel.
func (g *Generator) GenerateRange(ctx context.Context, t Table, first, count int64, batchRows int, emit func(arrow.Record) error) error {
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	var total int64
	var owners []int
	switch t {
	case Region:
		total, owners = g.Rows(Region), []int{ownerRegion}
	case Nation:
		total, owners = g.Rows(Nation), []int{ownerNation}
	case Part:
		total, owners = g.Rows(Part), []int{ownerPart}
	case PartSupp:
		total, owners = g.Rows(Part), []int{ownerPartSupp}
	case Supplier:
		total, owners = g.Rows(Supplier), []int{ownerSupplier}
	case Customer:
		total, owners = g.Rows(Customer), []int{ownerCustomer}
	case Orders, LineItem:
		total, owners = g.Rows(Orders), []int{ownerOrders, ownerLineItem}
	default:
		return fmt.Errorf("tpch: unknown table %d", int(t))
	}
	if first < 1 {
		return fmt.Errorf("tpch: first row %d of %s is below 1", first, t)
	}
	last := total
	if count >= 0 {
		last = min(total, first+count-1)
	}
	st := newStreams(owners...)
	st.skipRows(first - 1)
	b := newBuilder(schemas[t])
	defer b.b.Release()
	var o orderRow
	for i := first; i <= last; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		st.rowStart()
		switch t {
		case Region:
			r := g.mkRegion(st, i)
			b.int(0, r.key)
			b.str(1, r.name)
			b.str(2, r.comment)
			b.rows++
		case Nation:
			r := g.mkNation(st, i)
			b.int(0, r.key)
			b.str(1, r.name)
			b.int(2, r.region)
			b.str(3, r.comment)
			b.rows++
		case Part:
			p := g.mkPart(st, i)
			b.int(0, p.key)
			b.str(1, p.name)
			b.str(2, p.mfgr)
			b.str(3, p.brand)
			b.str(4, p.typ)
			b.int(5, p.size)
			b.str(6, p.container)
			b.money(7, p.retail)
			b.str(8, p.comment)
			b.rows++
		case PartSupp:
			for k := int64(0); k < suppPerPart; k++ {
				ps := g.mkPartSupp(st, i, k)
				b.int(0, ps.part)
				b.int(1, ps.supp)
				b.int(2, ps.qty)
				b.money(3, ps.cost)
				b.str(4, ps.comment)
				b.rows++
			}
		case Supplier:
			s := g.mkSupplier(st, i)
			b.int(0, s.key)
			b.str(1, s.name)
			b.str(2, s.address)
			b.int(3, s.nation)
			b.str(4, s.phone)
			b.money(5, s.balance)
			b.str(6, s.comment)
			b.rows++
		case Customer:
			c := g.mkCustomer(st, i)
			b.int(0, c.key)
			b.str(1, c.name)
			b.str(2, c.address)
			b.int(3, c.nation)
			b.str(4, c.phone)
			b.money(5, c.balance)
			b.str(6, c.segment)
			b.str(7, c.comment)
			b.rows++
		case Orders:
			g.mkOrder(st, i, &o)
			b.int(0, o.key)
			b.int(1, o.cust)
			b.chr(2, o.status)
			b.money(3, o.total)
			b.date(4, o.date)
			b.str(5, o.priority)
			b.str(6, o.clerk)
			b.int(7, 0)
			b.str(8, o.comment)
			b.rows++
		case LineItem:
			g.mkOrder(st, i, &o)
			for j := 0; j < o.nlines; j++ {
				l := &o.lines[j]
				b.int(0, l.order)
				b.int(1, l.part)
				b.int(2, l.supp)
				b.int(3, l.number)
				b.money(4, l.qty*100)
				b.money(5, l.price)
				b.money(6, l.discount)
				b.money(7, l.tax)
				b.chr(8, l.returnFlag)
				b.chr(9, l.status)
				b.date(10, l.ship)
				b.date(11, l.commit)
				b.date(12, l.receipt)
				b.str(13, l.instruct)
				b.str(14, l.mode)
				b.str(15, l.comment)
				b.rows++
			}
		}
		st.rowStop()
		if b.rows >= batchRows {
			if err := b.flush(emit); err != nil {
				return err
			}
		}
	}
	return b.flush(emit)
}
