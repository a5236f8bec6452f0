package tpch

// dbgen draws every value from one of 48 Park-Miller "minimal standard"
// streams (multiplier 16807, modulus 2^31-1), each with its own seed.
// Every stream belongs to a table and has a per-row boundary: whatever a
// row used, the stream is advanced to exactly boundary draws past the
// row's start, so row n of a table depends only on n. That is what lets
// a table be generated from any row on.

const (
	rngMultiplier = 16807
	rngModulus    = 2147483647
	maxLong       = 0x7FFFFFFF
)

// Table owners of the streams, as dbgen numbers its tables.
const (
	ownerNone     = -1
	ownerPart     = 0
	ownerPartSupp = 1
	ownerSupplier = 2
	ownerCustomer = 3
	ownerOrders   = 4
	ownerLineItem = 5
	ownerNation   = 8
	ownerRegion   = 9
)

// Stream numbers (dbgen's *_SD names).
const (
	sdPartMfgr       = 0
	sdPartBrand      = 1
	sdPartType       = 2
	sdPartSize       = 3
	sdPartContainer  = 4
	sdTextPool       = 5
	sdPartComment    = 6
	sdPSQty          = 7
	sdPSCost         = 8
	sdPSComment      = 9
	sdOrderClerk     = 11
	sdOrderComment   = 12
	sdOrderDate      = 13
	sdLineQty        = 14
	sdLineDiscount   = 15
	sdLineTax        = 16
	sdLineInstruct   = 17
	sdLineMode       = 18
	sdLinePartKey    = 19
	sdLineSuppKey    = 20
	sdLineShipDate   = 21
	sdLineCommitDate = 22
	sdLineRecvDate   = 23
	sdLineReturnFlag = 24
	sdLineComment    = 25
	sdCustAddress    = 26
	sdCustNation     = 27
	sdCustPhone      = 28
	sdCustBalance    = 29
	sdCustSegment    = 30
	sdCustComment    = 31
	sdSuppAddress    = 32
	sdSuppNation     = 33
	sdSuppPhone      = 34
	sdSuppBalance    = 35
	sdSuppComment    = 36
	sdPartName       = 37
	sdOrderPriority  = 38
	sdOrderCustKey   = 40
	sdNationComment  = 41
	sdRegionComment  = 42
	sdOrderLines     = 43
	sdBBBJunk        = 44
	sdBBBType        = 45
	sdBBBComment     = 46
	sdBBBOffset      = 47
	numStreams       = 48
)

// streamDefs are the owner, initial seed and per-row boundary of every
// stream (dbgen's rnd.h).
var streamDefs = [numStreams]struct {
	owner    int
	seed     int64
	boundary int64
}{
	{ownerPart, 1, 1},
	{ownerPart, 46831694, 1},
	{ownerPart, 1841581359, 1},
	{ownerPart, 1193163244, 1},
	{ownerPart, 727633698, 1},
	{ownerNone, 933588178, 1},
	{ownerPart, 804159733, 2},
	{ownerPartSupp, 1671059989, suppPerPart},
	{ownerPartSupp, 1051288424, suppPerPart},
	{ownerPartSupp, 1961692154, suppPerPart * 2},
	{ownerOrders, 1227283347, 1},
	{ownerOrders, 1171034773, 1},
	{ownerOrders, 276090261, 2},
	{ownerOrders, 1066728069, 1},
	{ownerLineItem, 209208115, maxLines},
	{ownerLineItem, 554590007, maxLines},
	{ownerLineItem, 721958466, maxLines},
	{ownerLineItem, 1371272478, maxLines},
	{ownerLineItem, 675466456, maxLines},
	{ownerLineItem, 1808217256, maxLines},
	{ownerLineItem, 2095021727, maxLines},
	{ownerLineItem, 1769349045, maxLines},
	{ownerLineItem, 904914315, maxLines},
	{ownerLineItem, 373135028, maxLines},
	{ownerLineItem, 717419739, maxLines},
	{ownerLineItem, 1095462486, maxLines * 2},
	{ownerCustomer, 881155353, 9},
	{ownerCustomer, 1489529863, 1},
	{ownerCustomer, 1521138112, 3},
	{ownerCustomer, 298370230, 1},
	{ownerCustomer, 1140279430, 1},
	{ownerCustomer, 1335826707, 2},
	{ownerSupplier, 706178559, 9},
	{ownerSupplier, 110356601, 1},
	{ownerSupplier, 884434366, 3},
	{ownerSupplier, 962338209, 1},
	{ownerSupplier, 1341315363, 2},
	{ownerPart, 709314158, 92},
	{ownerOrders, 591449447, 1},
	{ownerLineItem, 431918286, 1},
	{ownerOrders, 851767375, 1},
	{ownerNation, 606179079, 2},
	{ownerRegion, 1500869201, 2},
	{ownerOrders, 1434868289, 1},
	{ownerSupplier, 263032577, 1},
	{ownerSupplier, 753643799, 1},
	{ownerSupplier, 202794285, 1},
	{ownerSupplier, 715851524, 1},
}

// stream is one random number stream: its current seed, how many draws
// the current row has made and how many a row accounts for.
type stream struct {
	seed     int64
	usage    int64
	boundary int64
}

// next advances the stream one step.
func nextRand(seed int64) int64 { return seed * rngMultiplier % rngModulus }

// skip returns the seed n steps after seed, in O(log n).
func skip(seed, n int64) int64 {
	mult := int64(rngMultiplier)
	for n > 0 {
		if n%2 != 0 {
			seed = mult * seed % rngModulus
		}
		n /= 2
		mult = mult * mult % rngModulus
	}
	return seed
}

// uniform returns an integer in [lo, hi] the way dbgen's UnifInt does:
// the next seed scaled by a double, truncated. For the full 31-bit range
// dbgen computes the range width in 32-bit arithmetic, which overflows to
// -2^31; a_rnd relies on the resulting negative values, so this does too.
func (s *stream) uniform(lo, hi int64) int64 {
	s.usage++
	s.seed = nextRand(s.seed)
	var width float64
	if hi == maxLong && lo == 0 {
		width = float64(int32(hi) - int32(lo) + 1)
	} else {
		width = float64(hi - lo + 1)
	}
	return lo + int64(float64(s.seed)/float64(rngModulus)*width)
}

// streams is the set of streams a table generator owns.
type streams struct {
	s    [numStreams]stream
	mine []int
}

// newStreams starts the streams owned by the given tables at their
// initial seeds.
func newStreams(owners ...int) *streams {
	st := &streams{}
	for i, d := range streamDefs {
		st.s[i] = stream{seed: d.seed, boundary: d.boundary}
		for _, o := range owners {
			if d.owner == o {
				st.mine = append(st.mine, i)
			}
		}
	}
	return st
}

// rowStart begins a row: no stream has been drawn from yet.
func (st *streams) rowStart() {
	for _, i := range st.mine {
		st.s[i].usage = 0
	}
}

// rowStop ends a row: every owned stream moves on to its boundary.
func (st *streams) rowStop() {
	for _, i := range st.mine {
		s := &st.s[i]
		if n := s.boundary - s.usage; n > 0 {
			s.seed = skip(s.seed, n)
		}
	}
}

// skipRows moves every owned stream past n whole rows.
func (st *streams) skipRows(n int64) {
	for _, i := range st.mine {
		s := &st.s[i]
		s.seed = skip(s.seed, n*s.boundary)
	}
}

// random draws from stream sd.
func (st *streams) random(lo, hi int64, sd int) int64 {
	return st.s[sd].uniform(lo, hi)
}
