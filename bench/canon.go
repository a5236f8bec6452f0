package main

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"time"

	"github.com/zeebo/xxh3"
)

// Canonical text rendering of result values, shared by every engine so that
// their outputs can be compared:
//
//	NULL            -> NULL
//	integers        -> decimal digits (exact; DECIMAL with scale 0 too)
//	floating point  -> 6 significant digits (strconv 'g'), -0 as 0, NaN, +Inf, -Inf
//	DECIMAL(p, s>0) -> as a float64 with 6 significant digits
//	dates           -> YYYY-MM-DD
//	booleans        -> true / false
//	strings         -> Go-quoted ("..."), so the string "NULL" differs from NULL
//
// Fields are separated by a tab and a row is the concatenation of its fields.

// floatDigits is the number of significant digits floating-point and
// fractional DECIMAL values keep: 6, or 5 for the TPC-H suite, where gsql
// answers AVG of a DECIMAL as a DECIMAL with 4 more digits of scale
// (MySQL) and DuckDB as a DOUBLE (Q1's avg_disc is 0.050081 and
// 0.0500813...).
var floatDigits = 6

// appendDate renders a date.
func appendDate(dst []byte, s string) []byte { return append(dst, s...) }

func appendNull(dst []byte) []byte { return append(dst, "NULL"...) }

// microsPer is a timestamp unit's scale against microseconds: how many
// units make one (ns: 1000) or, negated, how many microseconds one unit is
// (s: -1000000).
func microsPer(unit string) int64 {
	switch unit {
	case "s":
		return -1_000_000
	case "ms":
		return -1_000
	case "ns":
		return 1_000
	}
	return 1
}

// appendTimestamp renders a timestamp of v units (microsPer) as UTC date
// and time with six fraction digits.
func appendTimestamp(dst []byte, v, per int64) []byte {
	us := v
	switch {
	case per > 1:
		us = v / per
		if v%per < 0 {
			us--
		}
	case per < 0:
		us = v * -per
	}
	return time.UnixMicro(us).UTC().AppendFormat(dst, "2006-01-02 15:04:05.000000")
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

func appendUint(dst []byte, v uint64) []byte { return strconv.AppendUint(dst, v, 10) }

func appendFloat(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "+Inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-Inf"...)
	case v == 0:
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, v, 'g', floatDigits, 64)
}

func appendBool(dst []byte, v bool) []byte { return strconv.AppendBool(dst, v) }

func appendString(dst []byte, s string) []byte { return strconv.AppendQuote(dst, s) }

// appendDecimal renders an unscaled decimal value with the given scale.
func appendDecimal(dst []byte, unscaled *big.Int, scale int32) []byte {
	if scale == 0 {
		return unscaled.Append(dst, 10)
	}
	f := new(big.Float).SetInt(unscaled)
	f.Quo(f, new(big.Float).SetFloat64(math.Pow10(int(scale))))
	v, _ := f.Float64()
	return appendFloat(dst, v)
}

// Checksum is an order-independent digest of a result's canonical rows: the
// number of rows and the sums (mod 2^64) of each row's 128-bit xxh3 hash. Two
// results have equal checksums exactly when their multisets of rows are equal
// (up to hash collisions), which is what hashing the sorted rows gives,
// without sorting or keeping millions of rows.
type Checksum struct {
	Rows   int64
	SumHi  uint64
	SumLo  uint64
	sample []string // canonical rows, kept while Rows <= keep
	keep   int
}

// newChecksum starts a checksum that also keeps up to keep canonical rows
// for reporting differences.
func newChecksum(keep int) *Checksum { return &Checksum{keep: keep} }

// AddRow adds one canonical row.
func (c *Checksum) AddRow(row []byte) {
	h := xxh3.Hash128(row)
	c.SumHi += h.Hi
	c.SumLo += h.Lo
	c.Rows++
	if c.keep > 0 {
		if len(c.sample) < c.keep {
			c.sample = append(c.sample, string(row))
		} else {
			c.sample, c.keep = nil, 0 // too many to keep: drop the sample
		}
	}
}

// String renders the checksum as rows:hex.
func (c *Checksum) String() string {
	return fmt.Sprintf("%d:%016x%016x", c.Rows, c.SumHi, c.SumLo)
}

// Short is the first 12 hex digits, for tables.
func (c *Checksum) Short() string { return fmt.Sprintf("%016x", c.SumHi)[:12] }

// Equal reports whether two checksums describe the same multiset of rows.
func (c *Checksum) Equal(o *Checksum) bool {
	return c.Rows == o.Rows && c.SumHi == o.SumHi && c.SumLo == o.SumLo
}

// Sorted returns the kept canonical rows in sorted order (nil when the
// result had too many rows to keep).
func (c *Checksum) Sorted() []string {
	if c.sample == nil {
		return nil
	}
	s := append([]string(nil), c.sample...)
	sort.Strings(s)
	return s
}

// firstDifference describes how two sorted row lists differ: the first
// row (in sort order) that only one side has, and the row counts.
func firstDifference(a, b []string) string {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			return fmt.Sprintf("%d vs %d rows; first row only on the left: %s (right has %s there)", len(a), len(b), a[i], b[j])
		default:
			return fmt.Sprintf("%d vs %d rows; first row only on the right: %s (left has %s there)", len(a), len(b), b[j], a[i])
		}
	}
	switch {
	case i < len(a):
		return fmt.Sprintf("%d vs %d rows; first row only on the left: %s", len(a), len(b), a[i])
	case j < len(b):
		return fmt.Sprintf("%d vs %d rows; first row only on the right: %s", len(a), len(b), b[j])
	}
	return "rows equal"
}
