package fuse

import (
	"sync"
	"unicode"
)

// CaseTables returns the non-identity rune mappings of unicode.ToUpper and
// unicode.ToLower, sorted by source rune: the device copy of the mapping the
// CPU kernels use. Each to table (n = len(from) entries) is followed by a
// page table of the Basic Multilingual Plane, so that most characters map
// with two loads instead of a binary search: 256 entries, one per 256-rune
// page, each -1 (no rune of the page changes) or the index, after the
// page table, of the page's 256 mapped runes.
func CaseTables() (upFrom, upTo, loFrom, loTo []int32) {
	caseOnce.Do(func() {
		defer func() {
			caseUpTo = appendPages(caseUpTo, caseUpFrom)
			caseLoTo = appendPages(caseLoTo, caseLoFrom)
		}()
		for r := rune(0x80); r <= unicode.MaxRune; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			if u := unicode.ToUpper(r); u != r {
				caseUpFrom = append(caseUpFrom, r)
				caseUpTo = append(caseUpTo, u)
			}
			if l := unicode.ToLower(r); l != r {
				caseLoFrom = append(caseLoFrom, r)
				caseLoTo = append(caseLoTo, l)
			}
		}
	})
	return caseUpFrom, caseUpTo, caseLoFrom, caseLoTo
}

var (
	caseOnce                                   sync.Once
	caseUpFrom, caseUpTo, caseLoFrom, caseLoTo []int32
)

// appendPages appends the BMP page table of the mapping from -> to.
func appendPages(to, from []int32) []int32 {
	n := len(to)
	index := make([]int32, 256)
	for i := range index {
		index[i] = -1
	}
	var pages []int32
	for i, r := range from {
		if r >= 0x10000 {
			break
		}
		pg := r >> 8
		if index[pg] < 0 {
			index[pg] = int32(len(pages))
			for k := int32(0); k < 256; k++ {
				pages = append(pages, pg<<8|k)
			}
		}
		pages[index[pg]+(r&255)] = to[i]
	}
	out := append(to[:n:n], index...)
	return append(out, pages...)
}
