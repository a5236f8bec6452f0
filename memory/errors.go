package memory

import (
	"errors"
	"fmt"
)

// ErrOutOfMemory is matched (errors.Is) by every allocation failure caused by
// lack of memory: the pool's limit (*OutOfMemoryError) or an upstream error
// that itself wraps ErrOutOfMemory.
var ErrOutOfMemory = errors.New("out of memory")

// ErrInvalidFree is wrapped by errors from Free of an address that is not the
// start of a live block: a double free, an interior pointer or a foreign
// address.
var ErrInvalidFree = errors.New("invalid free")

// ErrReleased is wrapped by errors from Alloc after Release.
var ErrReleased = errors.New("pool released")

// ErrBlocksInUse is wrapped by the error Release returns when blocks were
// still allocated (leaked) at shutdown.
var ErrBlocksInUse = errors.New("blocks still in use")

// OutOfMemoryError reports an allocation refused because it would take the
// bytes reserved from upstream past the limit.
type OutOfMemoryError struct {
	Requested uint64 // bytes asked for, before rounding
	Limit     uint64 // the allocator's hard cap on reserved bytes; 0 = none
	InUse     uint64 // bytes handed out at the time of the request
	Reserved  uint64 // bytes held from upstream at the time of the request
}

// Error names sizes in human units, as a user reading a failed query wants
// them.
func (e *OutOfMemoryError) Error() string {
	if e.Limit == 0 {
		return fmt.Sprintf("out of memory: requested %s with %s in use (no pool limit)",
			FormatBytes(e.Requested), FormatBytes(e.InUse))
	}
	return fmt.Sprintf("out of memory: requested %s with %s of the %s pool limit in use",
		FormatBytes(e.Requested), FormatBytes(e.InUse), FormatBytes(e.Limit))
}

// Is makes errors.Is(err, ErrOutOfMemory) true for limit failures.
func (e *OutOfMemoryError) Is(target error) bool { return target == ErrOutOfMemory }

// FormatBytes renders n with a binary unit: "512 B", "1.5 KiB", "96.0 MiB",
// "2.0 GiB".
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	units := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	div, i := uint64(unit), 0
	for n/div >= unit && i < len(units)-1 {
		div *= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(div), units[i])
}
