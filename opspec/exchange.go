package opspec

// ExchangeKind is how an exchange moves rows between the devices of a
// multi-device plan: the planner places exchanges of a kind and the
// operators run them.
type ExchangeKind uint8

const (
	// ExchangeGather brings every device's rows to device 0: the plan
	// above it runs once.
	ExchangeGather ExchangeKind = iota
	// ExchangeRepartition sends every row to the device its key columns
	// hash to, so that equal keys meet on one device.
	ExchangeRepartition
	// ExchangeBroadcast copies every row to every device.
	ExchangeBroadcast
)

func (k ExchangeKind) String() string {
	switch k {
	case ExchangeRepartition:
		return "repartition"
	case ExchangeBroadcast:
		return "broadcast"
	}
	return "gather"
}
