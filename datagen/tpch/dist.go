package tpch

// distEntry is one value of a distribution and its weight.
type distEntry struct {
	text   string
	weight int64
}

// dist is a weighted list of values: cum holds the running totals of the
// weights, which is what dbgen stores and searches.
type dist struct {
	text []string
	cum  []int64
}

func newDist(entries []distEntry) *dist {
	d := &dist{text: make([]string, len(entries)), cum: make([]int64, len(entries))}
	var total int64
	for i, e := range entries {
		total += e.weight
		d.text[i] = e.text
		d.cum[i] = total
	}
	return d
}

// pick draws a value index from stream sd the way dbgen's pick_str does:
// a uniform number in [1, total weight], then the first entry whose
// running total reaches it.
func (d *dist) pick(s *stream) int {
	j := s.uniform(1, d.cum[len(d.cum)-1])
	i := 0
	for d.cum[i] < j {
		i++
	}
	return i
}

// pickText is pick's value.
func (d *dist) pickText(s *stream) string { return d.text[d.pick(s)] }
