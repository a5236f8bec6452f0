package expr

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Warning is a note MySQL attaches to a statement that succeeded (SHOW
// WARNINGS): Level is "Note", "Warning" or "Error", Code MySQL's error
// number, Msg MySQL's text.
type Warning struct {
	Level string
	Code  uint16
	Msg   string
}

// MaxWarnings is how many warnings a statement keeps (MySQL's default
// max_error_count); the rest are only counted.
const MaxWarnings = 64

// MySQL's warning codes that expression evaluation gives.
const (
	// WarnTruncated (ER_TRUNCATED_WRONG_VALUE) is text that is no valid
	// number or date: "Incorrect datetime value: '...'", "Truncated
	// incorrect DOUBLE value: '...'".
	WarnTruncated uint16 = 1292
	// WarnDivByZero (ER_DIVISION_BY_ZERO) is "Division by 0".
	WarnDivByZero uint16 = 1365
	// WarnWrongValueForFunction (ER_WRONG_VALUE_FOR_TYPE) is STR_TO_DATE's
	// "Incorrect datetime value: '...' for function str_to_date".
	WarnWrongValueForFunction uint16 = 1411
	// WarnDatetimeOverflow (ER_DATETIME_FUNCTION_OVERFLOW) is an interval
	// that leaves the years 1-9999.
	WarnDatetimeOverflow uint16 = 1441
)

// Warnings collects one statement's warnings: the first MaxWarnings in
// the order they were given, and the count of all. Kernels add to it
// only on the rare rows that warn, so the common path pays a nil or
// flag check. A nil *Warnings records nothing; a Warnings is safe for
// concurrent use (parallel operators share one).
type Warnings struct {
	total atomic.Int64
	mu    sync.Mutex
	list  []Warning
	once  map[uint64]bool // the Once calls that have warned
}

// first reports whether this is the first time the statement asks for
// Once call id (false on a nil Warnings).
func (w *Warnings) first(id uint64) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.once[id] {
		return false
	}
	if w.once == nil {
		w.once = map[uint64]bool{}
	}
	w.once[id] = true
	return true
}

// Add records a warning of level "Warning".
func (w *Warnings) Add(code uint16, format string, args ...any) {
	w.AddLevel("Warning", code, format, args...)
}

// AddLevel records a warning of the given level; past MaxWarnings only
// the count grows (the message is not even formatted).
func (w *Warnings) AddLevel(level string, code uint16, format string, args ...any) {
	if w == nil || w.total.Add(1) > MaxWarnings {
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	w.mu.Lock()
	if len(w.list) < MaxWarnings {
		w.list = append(w.list, Warning{Level: level, Code: code, Msg: msg})
	}
	w.mu.Unlock()
}

// addTimes records each of ws times times over (a call evaluated once for
// a batch of constant arguments warns once per row, as MySQL does).
func (w *Warnings) addTimes(ws []Warning, times int) {
	if w == nil || len(ws) == 0 || times <= 0 {
		return
	}
	n := int64(len(ws)) * int64(times)
	before := w.total.Add(n) - n
	if before >= MaxWarnings {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for t := 0; t < times && len(w.list) < MaxWarnings; t++ {
		for _, x := range ws {
			if len(w.list) == MaxWarnings {
				break
			}
			w.list = append(w.list, x)
		}
	}
}

// Count is how many warnings were given, kept or not (SHOW COUNT(*)
// WARNINGS, the count in MySQL's OK and EOF packets).
func (w *Warnings) Count() int64 {
	if w == nil {
		return 0
	}
	return w.total.Load()
}

// List returns a copy of the kept warnings, in the order given.
func (w *Warnings) List() []Warning {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Warning(nil), w.list...)
}

// Append records warnings given elsewhere (an INSERT's duplicate keys) in
// order.
func (w *Warnings) Append(ws ...Warning) {
	for _, x := range ws {
		w.AddLevel(x.Level, x.Code, "%s", x.Msg)
	}
}

type warningsKey struct{}

// WithWarnings returns ctx carrying w: the statement's sink, which the
// operators that evaluate expressions pass to the kernels.
func WithWarnings(ctx context.Context, w *Warnings) context.Context {
	return context.WithValue(ctx, warningsKey{}, w)
}

// WarningsOf is the sink ctx carries, nil when none.
func WarningsOf(ctx context.Context) *Warnings {
	if ctx == nil {
		return nil
	}
	w, _ := ctx.Value(warningsKey{}).(*Warnings)
	return w
}
