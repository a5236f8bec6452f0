package opspec

// JoinKind is the kind of a join.
type JoinKind uint8

const (
	// InnerJoin keeps matching pairs.
	InnerJoin JoinKind = iota
	// LeftJoin also keeps unmatched left rows, with NULL right columns.
	LeftJoin
	// SemiJoin keeps, once each, the left rows that match some right row
	// (EXISTS); the output has the left columns only.
	SemiJoin
	// AntiJoin keeps the left rows that match no right row (NOT EXISTS),
	// a NULL key matching nothing; the output has the left columns only.
	AntiJoin
)
