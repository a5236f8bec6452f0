package planner

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/opspec"
)

// ExchangeKind is how an exchange moves rows (opspec.ExchangeKind).
type ExchangeKind = opspec.ExchangeKind

// The exchange kinds.
const (
	ExchangeGather      = opspec.ExchangeGather
	ExchangeRepartition = opspec.ExchangeRepartition
	ExchangeBroadcast   = opspec.ExchangeBroadcast
)

// Exchange moves its input's device batches between Devices GPUs. Its
// input runs once per device (Spread: each device over its own rows) or
// once on device 0 (a broadcast of one device's rows); its output is one
// stream on device 0 (gather) or one per device (repartition, broadcast).
// Placed by the place_exchanges rule.
type Exchange struct {
	placed
	Input   Node
	Kind    ExchangeKind
	Keys    []int // repartition: the input's key columns
	Devices int
	// Spread says the input runs on every device (false: on device 0).
	Spread bool
}

// Columns implements Node.
func (e *Exchange) Columns() []Column { return e.Input.Columns() }

// Inputs implements Node.
func (e *Exchange) Inputs() []Node { return []Node{e.Input} }

func (e *Exchange) describe() string {
	from := "device 0"
	if e.Spread {
		from = fmt.Sprintf("%d devices", e.Devices)
	}
	switch e.Kind {
	case ExchangeRepartition:
		cols := e.Input.Columns()
		names := make([]string, len(e.Keys))
		for i, k := range e.Keys {
			names[i] = cols[k].Name
		}
		return fmt.Sprintf("Exchange repartition by %s (%s to %d devices)", strings.Join(names, ", "), from, e.Devices)
	case ExchangeBroadcast:
		return fmt.Sprintf("Exchange broadcast (%s to %d devices)", from, e.Devices)
	}
	return fmt.Sprintf("Exchange gather (%s to device 0)", from)
}

// scanSpread is the EXPLAIN note of a scan in a multi-device plan.
func (s *Scan) spreadNote() string {
	switch {
	case s.Devices > 1 && s.Replicated:
		return fmt.Sprintf(" (replicated on %d devices)", s.Devices)
	case s.Devices > 1:
		return fmt.Sprintf(" (row groups balanced over %d devices)", s.Devices)
	}
	return ""
}
