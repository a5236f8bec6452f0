// Package bytesize reads byte counts written for people ("2GiB", "512MB"),
// as the shell's and the benchmark's memory flags take them.
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse parses a byte count such as "2GiB", "512MiB", "1.5G", "100MB" or
// "4096". Binary suffixes (K, KiB, M, MiB, G, GiB, T, TiB) are powers of
// 1024, decimal ones (KB, MB, GB, TB) powers of 1000. "" is 0.
func Parse(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("invalid size %q (want e.g. 2GiB, 512MiB or a byte count)", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q", s, unit)
	}
	b := v * mult
	if b >= math.MaxUint64 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return uint64(b), nil
}
