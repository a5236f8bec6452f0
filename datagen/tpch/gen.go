package tpch

import (
	"fmt"
	"math"
	"strconv"
)

// Table names one of the eight TPC-H tables.
type Table int

// The tables, in the order Tables lists them.
const (
	Region Table = iota
	Nation
	Part
	Supplier
	PartSupp
	Customer
	Orders
	LineItem
)

// Tables lists every table.
var Tables = []Table{Region, Nation, Part, Supplier, PartSupp, Customer, Orders, LineItem}

var tableNames = [...]string{"region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

// String is the table's SQL name.
func (t Table) String() string {
	if t < 0 || int(t) >= len(tableNames) {
		return fmt.Sprintf("Table(%d)", int(t))
	}
	return tableNames[t]
}

// ParseTable maps a table's SQL name to the Table.
func ParseTable(name string) (Table, error) {
	for i, n := range tableNames {
		if n == name {
			return Table(i), nil
		}
	}
	return 0, fmt.Errorf("tpch: unknown table %q", name)
}

const (
	suppPerPart    = 4
	maxLines       = 7
	custMortality  = 3
	clerksPerScale = 1000
	// startDate is 1992-01-01 in days since 1970-01-01; dates are
	// offsets from it.
	startDate = 8035
	// totalDates is the number of days from 1992-01-01 to 1998-12-31.
	totalDates = 2557
	// currentDate is 1995-06-17 as an offset from startDate: line items
	// shipped by then are filled ('F'), returned ones flagged R or A.
	currentDate = 1263
	// maxOrderDate keeps ship and receipt dates within the date range.
	maxOrderDate = totalDates - (121 + 30) - 1
	// The average lengths of the text and random-string columns.
	lenPartComment   = 14
	lenSuppAddress   = 25
	lenSuppComment   = 63
	lenPSComment     = 124
	lenCustAddress   = 25
	lenCustComment   = 73
	lenOrderComment  = 49
	lenLineComment   = 27
	lenNationComment = 72
	lenRegionComment = 72
)

// Generator makes the rows of one scale factor.
type Generator struct {
	sf    float64
	scale int64
	// base is the per-scale row count of part, supplier, customer and
	// orders; below scale factor 1 dbgen shrinks these and keeps scale 1.
	part, supplier, customer, orders int64
}

// New returns the generator of scale factor sf (1 is about 1 GB; 0.01 the
// usual tiny scale). Below 1, dbgen scales the base row counts by
// floor(1000*sf)/1000; from 1 up, it uses the integer part of sf.
func New(sf float64) (*Generator, error) {
	if !(sf > 0) || math.IsInf(sf, 0) || sf >= 30000 {
		// From 30000 up dbgen draws customer and part keys from a 64-bit
		// generator, which is not ported.
		return nil, fmt.Errorf("tpch: scale factor %v is out of range (0, 30000)", sf)
	}
	g := &Generator{sf: sf, scale: 1, part: 200000, supplier: 10000, customer: 150000, orders: 1500000}
	if sf < 1 {
		k := int64(1000 * sf)
		if k < 1 {
			return nil, fmt.Errorf("tpch: scale factor %v is below dbgen's smallest, 0.001", sf)
		}
		shrink := func(n int64) int64 { return max(k*n/1000, 1) }
		g.part, g.supplier, g.customer, g.orders = shrink(g.part), shrink(g.supplier), shrink(g.customer), shrink(g.orders)
	} else {
		g.scale = int64(sf)
	}
	return g, nil
}

// ScaleFactor is the scale factor the generator was made with.
func (g *Generator) ScaleFactor() float64 { return g.sf }

// Rows is the number of rows of t, or -1 for lineitem, whose count is
// known only once generated (about 4 per order).
func (g *Generator) Rows(t Table) int64 {
	switch t {
	case Region:
		return int64(len(distRegions.text))
	case Nation:
		return int64(len(distNations.text))
	case Part:
		return g.part * g.scale
	case Supplier:
		return g.supplier * g.scale
	case PartSupp:
		return g.part * g.scale * suppPerPart
	case Customer:
		return g.customer * g.scale
	case Orders:
		return g.orders * g.scale
	}
	return -1
}

// money is an amount in cents.
type money = int64

type regionRow struct {
	key           int64
	name, comment string
}

type nationRow struct {
	key, region   int64
	name, comment string
}

type partRow struct {
	key                               int64
	name, mfgr, brand, typ, container string
	size                              int64
	retail                            money
	comment                           string
	supp                              [suppPerPart]partSuppRow
}

type partSuppRow struct {
	part, supp, qty int64
	cost            money
	comment         string
}

type supplierRow struct {
	key                  int64
	name, address, phone string
	nation               int64
	balance              money
	comment              string
}

type customerRow struct {
	key                           int64
	name, address, phone, segment string
	nation                        int64
	balance                       money
	comment                       string
}

type orderRow struct {
	key, cust                int64
	status                   byte
	total                    money
	date                     int32 // days since 1970-01-01
	priority, clerk, comment string
	nlines                   int
	lines                    [maxLines]lineRow
}

type lineRow struct {
	order, part, supp, number int64
	qty                       int64
	price, discount, tax      money
	returnFlag, status        byte
	ship, commit, receipt     int32
	instruct, mode, comment   string
}

func (g *Generator) mkRegion(st *streams, i int64) regionRow {
	return regionRow{key: i - 1, name: distRegions.text[i-1], comment: st.text(lenRegionComment, sdRegionComment)}
}

func (g *Generator) mkNation(st *streams, i int64) nationRow {
	return nationRow{key: i - 1, name: distNations.text[i-1], region: distNations.cum[i-1],
		comment: st.text(lenNationComment, sdNationComment)}
}

// retailPrice is a part's price in cents, a function of its key.
func retailPrice(p int64) money {
	return 90000 + (p/10)%20001 + (p%1000)*100
}

// partSupplier is the supplier key of a part's k-th supplier (0..3):
// spread so that every supplier serves parts all over the key range.
func (g *Generator) partSupplier(p, k int64) int64 {
	n := g.supplier * g.scale
	return (p+k*(n/suppPerPart+(p-1)/n))%n + 1
}

func (g *Generator) mkPart(st *streams, i int64) partRow {
	p := partRow{key: i}
	// The name is five distinct colors: the first five of a shuffle of
	// all of them.
	perm := make([]int, len(distColors.text))
	for j := range perm {
		perm[j] = j
	}
	for j := range perm {
		k := st.random(int64(j), int64(len(perm)-1), sdPartName)
		perm[j], perm[k] = perm[k], perm[j]
	}
	name := make([]byte, 0, 64)
	for j := 0; j < 5; j++ {
		if j > 0 {
			name = append(name, ' ')
		}
		name = append(name, distColors.text[perm[j]]...)
	}
	p.name = string(name)
	m := st.random(1, 5, sdPartMfgr)
	p.mfgr = "Manufacturer#" + strconv.FormatInt(m, 10)
	b := st.random(1, 5, sdPartBrand)
	p.brand = fmt.Sprintf("Brand#%02d", m*10+b)
	p.typ = distTypes.pickText(&st.s[sdPartType])
	p.size = st.random(1, 50, sdPartSize)
	p.container = distContainers.pickText(&st.s[sdPartContainer])
	p.retail = retailPrice(i)
	p.comment = st.text(lenPartComment, sdPartComment)
	return p
}

func (g *Generator) mkPartSupp(st *streams, i, k int64) partSuppRow {
	return partSuppRow{
		part:    i,
		supp:    g.partSupplier(i, k),
		qty:     st.random(1, 9999, sdPSQty),
		cost:    st.random(100, 100000, sdPSCost),
		comment: st.text(lenPSComment, sdPSComment),
	}
}

// phone is a phone number whose country code follows the nation.
func phone(st *streams, nation int64, sd int) string {
	a := st.random(100, 999, sd)
	b := st.random(100, 999, sd)
	c := st.random(1000, 9999, sd)
	return fmt.Sprintf("%02d-%03d-%03d-%04d", 10+nation, a, b, c)
}

const (
	bbbBase     = "Customer "
	bbbComplain = "Complaints"
	bbbCommend  = "Recommends"
)

func (g *Generator) mkSupplier(st *streams, i int64) supplierRow {
	s := supplierRow{key: i, name: fmt.Sprintf("Supplier#%09d", i)}
	s.address = st.vstring(lenSuppAddress, sdSuppAddress)
	s.nation = st.random(0, int64(len(distNations.text)-1), sdSuppNation)
	s.phone = phone(st, s.nation, sdSuppPhone)
	s.balance = st.random(-99999, 999999, sdSuppBalance)
	s.comment = st.text(lenSuppComment, sdSuppComment)
	// About 10 suppliers per scale factor carry "Customer ... Complaints"
	// or "Customer ... Recommends" in their comment (for Q16).
	n := int64(len(s.comment))
	bad := st.random(1, 10000, sdBBBComment)
	typ := st.random(0, 100, sdBBBType)
	noise := st.random(0, n-int64(len(bbbBase)+len(bbbComplain)), sdBBBJunk)
	off := st.random(0, n-(int64(len(bbbBase)+len(bbbComplain))+noise), sdBBBOffset)
	if bad <= 10 {
		c := []byte(s.comment)
		copy(c[off:], bbbBase)
		word := bbbCommend
		if typ < 50 {
			word = bbbComplain
		}
		copy(c[off+int64(len(bbbBase))+noise:], word)
		s.comment = string(c)
	}
	return s
}

func (g *Generator) mkCustomer(st *streams, i int64) customerRow {
	c := customerRow{key: i, name: fmt.Sprintf("Customer#%09d", i)}
	c.address = st.vstring(lenCustAddress, sdCustAddress)
	c.nation = st.random(0, int64(len(distNations.text)-1), sdCustNation)
	c.phone = phone(st, c.nation, sdCustPhone)
	c.balance = st.random(-99999, 999999, sdCustBalance)
	c.segment = distSegments.pickText(&st.s[sdCustSegment])
	c.comment = st.text(lenCustComment, sdCustComment)
	return c
}

// orderKey spreads order numbers over a sparse key space: of every 32
// keys only the first 8 are used.
func orderKey(i int64) int64 {
	return (i>>3)<<5 | i&7
}

func (g *Generator) mkOrder(st *streams, i int64, o *orderRow) {
	o.key = orderKey(i)
	maxCust := g.customer * g.scale
	o.cust = st.random(1, maxCust, sdOrderCustKey)
	// A third of the customers place no orders.
	delta := int64(1)
	for o.cust%custMortality == 0 {
		o.cust += delta
		o.cust = min(o.cust, maxCust)
		delta = -delta
	}
	day := st.random(0, maxOrderDate, sdOrderDate)
	o.date = int32(startDate + day)
	o.priority = distPriorities.pickText(&st.s[sdOrderPriority])
	clerk := st.random(1, max(g.scale*clerksPerScale, clerksPerScale), sdOrderClerk)
	o.clerk = fmt.Sprintf("Clerk#%09d", clerk)
	o.comment = st.text(lenOrderComment, sdOrderComment)
	o.total = 0
	filled := 0
	o.nlines = int(st.random(1, maxLines, sdOrderLines))
	maxPart := g.part * g.scale
	for j := 0; j < o.nlines; j++ {
		l := &o.lines[j]
		l.order = o.key
		l.number = int64(j + 1)
		l.qty = st.random(1, 50, sdLineQty)
		l.discount = st.random(0, 10, sdLineDiscount)
		l.tax = st.random(0, 8, sdLineTax)
		l.instruct = distInstructions.pickText(&st.s[sdLineInstruct])
		l.mode = distShipModes.pickText(&st.s[sdLineMode])
		l.comment = st.text(lenLineComment, sdLineComment)
		l.part = st.random(1, maxPart, sdLinePartKey)
		l.supp = g.partSupplier(l.part, st.random(0, 3, sdLineSuppKey))
		l.price = retailPrice(l.part) * l.qty
		o.total += (l.price * (100 - l.discount)) / 100 * (100 + l.tax) / 100
		ship := day + st.random(1, 121, sdLineShipDate)
		commit := day + st.random(30, 90, sdLineCommitDate)
		receipt := ship + st.random(1, 30, sdLineRecvDate)
		l.ship, l.commit, l.receipt = int32(startDate+ship), int32(startDate+commit), int32(startDate+receipt)
		if receipt <= currentDate {
			l.returnFlag = distReturnFlags.pickText(&st.s[sdLineReturnFlag])[0]
		} else {
			l.returnFlag = 'N'
		}
		if ship <= currentDate {
			filled++
			l.status = 'F'
		} else {
			l.status = 'O'
		}
	}
	switch filled {
	case o.nlines:
		o.status = 'F'
	case 0:
		o.status = 'O'
	default:
		o.status = 'P'
	}
}
