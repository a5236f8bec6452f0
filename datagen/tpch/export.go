package tpch

// The value lists of dbgen's distributions, for generators and query
// parameter generators built on TPC-H's rules (the Star Schema Benchmark,
// qgen's substitution parameters). Each call returns a fresh copy.

// NationInfo is one of the 25 nations with its region key.
type NationInfo struct {
	Key    int64
	Name   string
	Region int64
}

// Nations lists the nations in key order (0..24) with their regions.
func Nations() []NationInfo {
	out := make([]NationInfo, len(distNations.text))
	for i, n := range distNations.text {
		// dbgen stores a nation's region as the running weight total.
		out[i] = NationInfo{Key: int64(i), Name: n, Region: distNations.cum[i]}
	}
	return out
}

// Regions lists the region names in key order (0..4).
func Regions() []string { return clone(distRegions.text) }

// Colors lists the part-name colors (p_name's words).
func Colors() []string { return clone(distColors.text) }

// Types lists the part types (p_type), three syllables each.
func Types() []string { return clone(distTypes.text) }

// Containers lists the part containers (p_container), two syllables each.
func Containers() []string { return clone(distContainers.text) }

// Segments lists the customer market segments (c_mktsegment).
func Segments() []string { return clone(distSegments.text) }

// Priorities lists the order priorities (o_orderpriority).
func Priorities() []string { return clone(distPriorities.text) }

// ShipModes lists the line ship modes (l_shipmode).
func ShipModes() []string { return clone(distShipModes.text) }

// RetailPrice is part p's retail price in cents (p_retailprice).
func RetailPrice(p int64) int64 { return retailPrice(p) }

func clone(s []string) []string { return append([]string(nil), s...) }
