package ssb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/hashmix"
)

// Table names one of the five SSB tables.
type Table int

// The tables, in the order Tables lists them.
const (
	Dates Table = iota
	Customer
	Supplier
	Part
	LineOrder
)

// Tables lists every table, dimensions first.
var Tables = []Table{Dates, Customer, Supplier, Part, LineOrder}

var tableNames = [...]string{"dates", "customer", "supplier", "part", "lineorder"}

// String is the table's SQL name.
func (t Table) String() string {
	if t < 0 || int(t) >= len(tableNames) {
		return fmt.Sprintf("Table(%d)", int(t))
	}
	return tableNames[t]
}

const (
	maxLines      = 7
	custMortality = 3
	// firstDay is 1992-01-01 in days since 1970-01-01.
	firstDay = 8035
	// totalDays is every day of 1992..1998.
	totalDays = 2557
	// maxOrderDay keeps commit dates (and TPC-H's ship and receipt
	// dates) inside the date table, as TPC-H's order dates do.
	maxOrderDay = totalDays - (121 + 30) - 1
)

// Generator makes the rows of one scale factor and seed.
type Generator struct {
	sf                                  float64
	seed                                uint64
	customers, suppliers, parts, orders int64
}

// New returns the generator of scale factor sf (1 is about 6 million
// lineorder rows; 0.01 the usual tiny scale) and seed.
func New(sf float64, seed int64) (*Generator, error) {
	if !(sf >= 0.001) || math.IsInf(sf, 0) || sf > 100000 {
		return nil, fmt.Errorf("ssb: scale factor %v is out of range [0.001, 100000]", sf)
	}
	n := func(per float64) int64 { return max(int64(per*sf), 1) }
	g := &Generator{sf: sf, seed: uint64(seed), customers: n(30000), suppliers: n(2000), orders: n(1500000)}
	if sf >= 1 {
		g.parts = 200000 * int64(math.Floor(1+math.Log2(sf)))
	} else {
		g.parts = n(200000)
	}
	return g, nil
}

// ScaleFactor is the scale factor the generator was made with.
func (g *Generator) ScaleFactor() float64 { return g.sf }

// Rows is the number of rows of t, or -1 for lineorder, whose count is
// known only once generated (1 to 7 lines an order).
func (g *Generator) Rows(t Table) int64 {
	switch t {
	case Dates:
		return totalDays
	case Customer:
		return g.customers
	case Supplier:
		return g.suppliers
	case Part:
		return g.parts
	}
	return -1
}

// Orders is the number of orders, whose lines make lineorder.
func (g *Generator) Orders() int64 { return g.orders }

// RangeRows is the number of rows GenerateRange numbers for t: orders for
// lineorder, t's rows otherwise.
func (g *Generator) RangeRows(t Table) int64 {
	if t == LineOrder {
		return g.orders
	}
	return g.Rows(t)
}

// Column streams: every value is a hash of (seed, table, row, column).
const (
	cCustNation = iota + 1
	cCustCity
	cCustAddress
	cCustPhone
	cCustSegment
	cSuppNation
	cSuppCity
	cSuppAddress
	cSuppPhone
	cPartColor1
	cPartColor2
	cPartMfgr
	cPartCategory
	cPartBrand
	cPartType
	cPartSize
	cPartContainer
	cOrderCust
	cOrderDate
	cOrderPriority
	cOrderLines
	cLinePart
	cLineSupp
	cLineQty
	cLineDiscount
	cLineTax
	cLineCommit
	cLineMode
)

// random is a uniform integer in [lo, hi] for (table, row, column, k).
func (g *Generator) random(t Table, row int64, col, k int, lo, hi int64) int64 {
	h := hashmix.SplitMix64(g.seed + 0x9e3779b97f4a7c15*hashmix.SplitMix64(uint64(t)<<56^uint64(col)<<48^uint64(k)<<40^uint64(row)))
	return lo + int64(h%uint64(hi-lo+1))
}

// pick is a uniform element of list.
func (g *Generator) pick(t Table, row int64, col int, list []string) string {
	return list[g.random(t, row, col, 0, 0, int64(len(list)-1))]
}

// alnum is a random string of 10 to 40 letters and digits (TPC-H's
// v-string: addresses).
func (g *Generator) alnum(t Table, row int64, col int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,"
	n := g.random(t, row, col, 0, 10, 40)
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.random(t, row, col, i+1, 0, int64(len(chars)-1))]
	}
	return string(b)
}

// phone is TPC-H's phone number: the country code follows the nation.
func (g *Generator) phone(t Table, row int64, col int, nation int64) string {
	return fmt.Sprintf("%02d-%03d-%03d-%04d", 10+nation, g.random(t, row, col, 1, 100, 999),
		g.random(t, row, col, 2, 100, 999), g.random(t, row, col, 3, 1000, 9999))
}

// city is SSB's city: the nation's name cut or padded to 9 characters and
// a digit (UNITED KI1, PERU     0).
func city(nation string, digit int64) string {
	return fmt.Sprintf("%-9.9s%d", nation, digit)
}

var (
	nations    = tpch.Nations()
	regions    = tpch.Regions()
	colors     = tpch.Colors()
	types      = tpch.Types()
	containers = tpch.Containers()
	segments   = tpch.Segments()
	priorities = tpch.Priorities()
	shipModes  = tpch.ShipModes()
)

// orderKey spreads order numbers over a sparse key space as TPC-H does:
// of every 32 keys only the first 8 are used.
func orderKey(i int64) int64 { return (i>>3)<<5 | i&7 }

// dateKeys are the yyyymmdd integers of the days from 1992-01-01, made
// once: the fact table looks up two a line.
var dateKeys = func() (k [totalDays]int64) {
	for i := range k {
		y, m, d := time.Unix(int64(firstDay+i)*86400, 0).UTC().Date()
		k[i] = int64(y)*10000 + int64(m)*100 + int64(d)
	}
	return k
}()

// Records generates all of t's rows, in order, and returns them as
// records the caller releases; ranges are generated in parallel.
func (g *Generator) Records(ctx context.Context, t Table) ([]arrow.Record, error) {
	recs, err := datagen.ParallelRows(ctx, g.RangeRows(t), func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
		return g.GenerateRange(ctx, t, start, n, 0, emit)
	})
	if err != nil {
		return nil, fmt.Errorf("ssb: generate %s: %w", t, err)
	}
	return recs, nil
}

// GenerateRange makes the rows of t numbered first (1-based) through
// first+count-1 (to the end when count < 0) and hands them to emit in
// records of about batchRows rows (datagen's default when <= 0); emit
// owns each record. For lineorder the rows numbered are orders, 1 to 7
// lines each.
func (g *Generator) GenerateRange(ctx context.Context, t Table, first, count int64, batchRows int, emit func(arrow.Record) error) error {
	if batchRows <= 0 {
		batchRows = tpch.DefaultBatchRows
	}
	if t < Dates || t > LineOrder {
		return fmt.Errorf("ssb: unknown table %d", int(t))
	}
	if first < 1 {
		return fmt.Errorf("ssb: first row %d of %s is below 1", first, t)
	}
	last := g.RangeRows(t)
	if count >= 0 {
		last = min(last, first+count-1)
	}
	b := newBuilder(schemas[t])
	defer b.b.Release()
	for i := first; i <= last; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch t {
		case Dates:
			g.dateRow(b, i)
		case Customer:
			g.customerRow(b, i)
		case Supplier:
			g.supplierRow(b, i)
		case Part:
			g.partRow(b, i)
		case LineOrder:
			g.orderRows(b, i)
		}
		if b.rows >= batchRows {
			if err := b.flush(emit); err != nil {
				return err
			}
		}
	}
	return b.flush(emit)
}

func (g *Generator) customerRow(b *builder, i int64) {
	n := nations[g.random(Customer, i, cCustNation, 0, 0, int64(len(nations)-1))]
	b.int(i)
	b.str(fmt.Sprintf("Customer#%09d", i))
	b.str(g.alnum(Customer, i, cCustAddress))
	b.str(city(n.Name, g.random(Customer, i, cCustCity, 0, 0, 9)))
	b.str(n.Name)
	b.str(regions[n.Region])
	b.str(g.phone(Customer, i, cCustPhone, n.Key))
	b.str(g.pick(Customer, i, cCustSegment, segments))
	b.end()
}

func (g *Generator) supplierRow(b *builder, i int64) {
	n := nations[g.random(Supplier, i, cSuppNation, 0, 0, int64(len(nations)-1))]
	b.int(i)
	b.str(fmt.Sprintf("Supplier#%09d", i))
	b.str(g.alnum(Supplier, i, cSuppAddress))
	b.str(city(n.Name, g.random(Supplier, i, cSuppCity, 0, 0, 9)))
	b.str(n.Name)
	b.str(regions[n.Region])
	b.str(g.phone(Supplier, i, cSuppPhone, n.Key))
	b.end()
}

func (g *Generator) partRow(b *builder, i int64) {
	c1 := g.pick(Part, i, cPartColor1, colors)
	c2 := g.pick(Part, i, cPartColor2, colors)
	m := g.random(Part, i, cPartMfgr, 0, 1, 5)
	c := g.random(Part, i, cPartCategory, 0, 1, 5)
	br := g.random(Part, i, cPartBrand, 0, 1, 40)
	mfgr := "MFGR#" + strconv.FormatInt(m, 10)
	category := mfgr + strconv.FormatInt(c, 10)
	b.int(i)
	b.str(c1 + " " + c2)
	b.str(mfgr)
	b.str(category)
	b.str(fmt.Sprintf("%s%02d", category, br))
	b.str(c1)
	b.str(g.pick(Part, i, cPartType, types))
	b.int(g.random(Part, i, cPartSize, 0, 1, 50))
	b.str(g.pick(Part, i, cPartContainer, containers))
	b.end()
}

// orderRows appends order i's lines.
func (g *Generator) orderRows(b *builder, i int64) {
	key := orderKey(i)
	cust := g.random(LineOrder, i, cOrderCust, 0, 1, g.customers)
	// A third of the customers place no orders (TPC-H's mortality).
	delta := int64(1)
	for g.customers >= custMortality && cust%custMortality == 0 {
		cust = min(cust+delta, g.customers)
		delta = -delta
	}
	day := g.random(LineOrder, i, cOrderDate, 0, 0, maxOrderDay)
	orderDate := dateKeys[day]
	priority := g.pick(LineOrder, i, cOrderPriority, priorities)
	n := int(g.random(LineOrder, i, cOrderLines, 0, 1, maxLines))
	type line struct{ part, supp, qty, price, disc, tax, commit int64 }
	var lines [maxLines]line
	var total int64
	for j := 0; j < n; j++ {
		row := i*maxLines + int64(j)
		l := &lines[j]
		l.part = g.random(LineOrder, row, cLinePart, 0, 1, g.parts)
		l.supp = g.random(LineOrder, row, cLineSupp, 0, 1, g.suppliers)
		l.qty = g.random(LineOrder, row, cLineQty, 0, 1, 50)
		l.disc = g.random(LineOrder, row, cLineDiscount, 0, 0, 10)
		l.tax = g.random(LineOrder, row, cLineTax, 0, 0, 8)
		l.commit = dateKeys[day+g.random(LineOrder, row, cLineCommit, 0, 30, 90)]
		l.price = tpch.RetailPrice(l.part) * l.qty
		total += l.price * (100 - l.disc) / 100 * (100 + l.tax) / 100
	}
	for j := 0; j < n; j++ {
		l := &lines[j]
		b.int(key)
		b.int(int64(j + 1))
		b.int(cust)
		b.int(l.part)
		b.int(l.supp)
		b.int(orderDate)
		b.str(priority)
		b.int(0)
		b.int(l.qty)
		b.int(l.price)
		b.int(total)
		b.int(l.disc)
		b.int(l.price * (100 - l.disc) / 100)
		b.int(6 * tpch.RetailPrice(l.part) / 10)
		b.int(l.tax)
		b.int(l.commit)
		b.str(g.pick(LineOrder, i*maxLines+int64(j), cLineMode, shipModes))
		b.end()
	}
}

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	// holidays are month*100+day of the fixed-date holidays d_holidayfl
	// marks.
	holidays = map[int]bool{101: true, 214: true, 704: true, 1111: true, 1224: true, 1225: true, 1231: true}
)

// season is d_sellingseason of a month.
func season(m time.Month) string {
	switch m {
	case time.December:
		return "Christmas"
	case time.January, time.February:
		return "Winter"
	case time.March, time.April, time.May:
		return "Spring"
	case time.June, time.July, time.August:
		return "Summer"
	}
	return "Fall"
}

// dateRow appends day i (1: 1992-01-01).
func (g *Generator) dateRow(b *builder, i int64) {
	tm := time.Unix((firstDay+i-1)*86400, 0).UTC()
	y, m, d := tm.Date()
	flag := func(ok bool) int64 {
		if ok {
			return 1
		}
		return 0
	}
	wd := tm.Weekday()
	last := tm.AddDate(0, 0, 1).Day() == 1
	b.int(int64(y)*10000 + int64(m)*100 + int64(d))
	b.str(fmt.Sprintf("%s %d, %d", monthNames[m-1], d, y))
	b.str(wd.String())
	b.str(monthNames[m-1])
	b.int(int64(y))
	b.int(int64(y)*100 + int64(m))
	b.str(monthNames[m-1][:3] + strconv.Itoa(y))
	b.int(int64(wd) + 1)
	b.int(int64(d))
	b.int(int64(tm.YearDay()))
	b.int(int64(m))
	b.int(int64(tm.YearDay()-1)/7 + 1)
	b.str(season(m))
	b.int(flag(wd == time.Saturday))
	b.int(flag(last))
	b.int(flag(holidays[int(m)*100+d]))
	b.int(flag(wd != time.Saturday && wd != time.Sunday))
	b.end()
}
