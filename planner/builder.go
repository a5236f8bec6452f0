package planner

// What the builder (execbuild) reads of plans beyond their exported
// fields: the identities that tie a CTE's references together and a
// recursion to its working table, and plan shapes the rewrites also test.

// Key identifies the CTE r reads: every reference of one shared CTE has
// the same key, so the builder computes the body once.
func (r *CTERef) Key() any { return r.def }

// WorkKey identifies the working table of the recursion.
func (r *Recursive) WorkKey() any { return r.def }

// WorkKey identifies the working table w reads: its recursion's WorkKey.
func (w *WorkScan) WorkKey() any { return w.def }

// IsPermutation reports whether p only reorders or selects its input's
// columns.
func IsPermutation(p *Project) bool { return isPermutation(p) }

// ScanBelow matches Scan or Filter(Scan): the scan and the filter (nil
// when none), else nils.
func ScanBelow(n Node) (*Scan, *Filter) { return scanBelow(n) }
