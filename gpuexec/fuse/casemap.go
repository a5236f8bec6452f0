package fuse

import (
	"sync"
	"unicode"
)

// CaseTables returns the non-identity rune mappings of unicode.ToUpper and
// unicode.ToLower, sorted by source rune: the device copy of the mapping the
// CPU kernels use, searched by binary search in the kernels.
func CaseTables() (upFrom, upTo, loFrom, loTo []int32) {
	caseOnce.Do(func() {
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
