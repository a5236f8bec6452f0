package memory

import (
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/errkind"
)

// ErrOutOfMemory is matched (errors.Is) by every allocation failure caused by
// lack of memory: the pool's limit (*OutOfMemoryError) or an upstream error
// that itself wraps ErrOutOfMemory. Its kind is errkind.OutOfMemory.
var ErrOutOfMemory = errkind.New(errkind.OutOfMemory, "out of memory")

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
// bytes reserved from upstream past the limit, or (State set) a statement's
// state grown past the statement's memory limit (Options.MemoryLimit: a
// GROUP BY's groups, a join's build side), which StateLimit builds.
type OutOfMemoryError struct {
	Requested uint64 // bytes asked for, before rounding
	Limit     uint64 // the allocator's hard cap on reserved bytes; 0 = none
	InUse     uint64 // bytes handed out at the time of the request
	Reserved  uint64 // bytes held from upstream at the time of the request

	// State names the state that outgrew its limit ("GROUP BY state");
	// empty for an allocation. Held counts its Units ("groups", "rows")
	// when it did. MaxUnits is a limit counted in Units instead of Limit's
	// bytes (0: the limit is Limit bytes).
	State    string
	Held     int
	Units    string
	MaxUnits int
}

// StateLimit is the error of a statement's state past its memory limit of
// limit bytes, holding held units (as in "GROUP BY state exceeds the
// memory limit of 1.0 MiB (5000 groups so far)").
func StateLimit(state string, limit uint64, held int, units string) *OutOfMemoryError {
	return &OutOfMemoryError{State: state, Limit: limit, Held: held, Units: units}
}

// StateUnitLimit is the error of a statement's state past a limit of max
// units ("join build side exceeds the memory limit of 1000 rows").
func StateUnitLimit(state string, max int, units string) *OutOfMemoryError {
	return &OutOfMemoryError{State: state, MaxUnits: max, Units: units}
}

// Error names sizes in human units, as a user reading a failed query wants
// them.
func (e *OutOfMemoryError) Error() string {
	if e.State != "" {
		if e.MaxUnits > 0 {
			return fmt.Sprintf("%s exceeds the memory limit of %d %s", e.State, e.MaxUnits, e.Units)
		}
		return fmt.Sprintf("%s exceeds the memory limit of %s (%d %s so far)", e.State, FormatBytes(e.Limit), e.Held, e.Units)
	}
	if e.Limit == 0 {
		return fmt.Sprintf("out of memory: requested %s with %s in use (no pool limit)",
			FormatBytes(e.Requested), FormatBytes(e.InUse))
	}
	return fmt.Sprintf("out of memory: requested %s with %s of the %s pool limit in use",
		FormatBytes(e.Requested), FormatBytes(e.InUse), FormatBytes(e.Limit))
}

// Is makes errors.Is(err, ErrOutOfMemory) true for allocation failures. A
// statement's state past its limit does not match: that is no allocation
// that failed, and what retries allocations (evicting cached tables, then
// running the step again on halves of its batch) must not retry it.
func (e *OutOfMemoryError) Is(target error) bool { return target == ErrOutOfMemory && e.State == "" }

// ErrorKind implements errkind.Kinded: errkind.OutOfMemory.
func (e *OutOfMemoryError) ErrorKind() errkind.Kind { return errkind.OutOfMemory }

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
