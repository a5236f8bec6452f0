package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// ErrHostOnly marks expressions that only the host evaluates (correlated
// subqueries run a query per row): like sorting today, they are CPU work by
// nature, so even strict GPU placement runs them on the CPU, visibly in
// EXPLAIN.
var ErrHostOnly = errors.New("expression is evaluated on the host")

// ErrNotReady marks GPU work whose kernels are still compiling: auto mode
// runs it on the CPU meanwhile, and EXPLAIN says so.
var ErrNotReady = errors.New("GPU kernels compiling")

// Compute is a filter and/or projection on the GPU: with Fused, one
// generated kernel set computes the whole operator (rows compacted in the
// same passes); otherwise the kernel library runs one function at a time.
// Exprs nil means the input columns pass through (a filter alone).
type Compute struct {
	placed
	Input Node
	Pred  expr.Expr
	Exprs []expr.Expr
	Out   []Column
	Fused bool
}

// Columns implements Node.
func (c *Compute) Columns() []Column {
	if c.Exprs == nil {
		return c.Input.Columns()
	}
	return c.Out
}

// Inputs implements Node.
func (c *Compute) Inputs() []Node { return []Node{c.Input} }

func (c *Compute) describe() string {
	var d string
	if c.Exprs != nil {
		d = (&Project{Exprs: c.Exprs, Out: c.Out}).describe()
	}
	if c.Pred != nil {
		if d != "" {
			d += " "
		}
		d += "Filter " + c.Pred.String()
	}
	if c.Fused {
		return d + " (fused kernel)"
	}
	return d + " (kernel library)"
}

// Transfer moves batches between host and device memory.
type Transfer struct {
	placed
	Input    Node
	ToDevice bool
}

// Columns implements Node.
func (t *Transfer) Columns() []Column { return t.Input.Columns() }

// Inputs implements Node.
func (t *Transfer) Inputs() []Node { return []Node{t.Input} }

func (t *Transfer) describe() string {
	if t.ToDevice {
		return "HostToDevice"
	}
	return "DeviceToHost"
}

// PlaceOptions steer device placement.
type PlaceOptions struct {
	// GPU places supported operators on the GPU.
	GPU bool
	// Strict fails when a filter or projection cannot run on the GPU,
	// instead of running it on the CPU.
	Strict bool
	// Fusion compiles each GPU filter/projection into one kernel set.
	Fusion bool
	// Supported reports whether expressions can run on the GPU: nil when
	// every function has a GPU implementation; fused reports whether the
	// whole operator fuses into one kernel set.
	Supported func(inputs []Column, pred expr.Expr, exprs []expr.Expr) (fused bool, err error)
	// Aggregates reports whether the device computes the aggregates of a
	// GROUP BY (nil error: all of them); nil leaves every GROUP BY on the
	// CPU. The builder's AggregatesOnDevice answers for the device operators.
	Aggregates func(aggs []opspec.AggSpec) error
	// DeviceMemory is the device memory queries may use (the pool limit);
	// 0 means no limit is known. A join whose build side would take more
	// than a quarter of it runs on the CPU, so the hash table, gathers and
	// probe chunks fit beside the resident tables (which take at most half).
	DeviceMemory uint64
	// AutoNotes (auto mode, with place_by_cost on) notes at the top of
	// each device fragment the rows it reads, as PlaceByCost notes its
	// host fragments.
	AutoNotes bool
}

// Place assigns devices: filters and projections whose expressions all have
// GPU implementations run on the GPU (a projection over a filter becomes one
// Compute), scans feeding them read the device-resident table, and
// transfers are inserted where a batch changes sides. The root always
// produces host batches.
func Place(n Node, opts PlaceOptions) (Node, error) {
	if !opts.GPU {
		return n, nil
	}
	placed, err := place(n, opts)
	if err != nil {
		return nil, err
	}
	if opts.AutoNotes {
		placed = noteGPUFragments(placed)
	}
	return toSide(placed, CPU), nil
}

// toSide returns n producing batches on dev, adding a transfer if needed.
func toSide(n Node, dev Device) Node {
	if n.Placement() == dev {
		return n
	}
	t := &Transfer{Input: n, ToDevice: dev == GPU}
	t.Dev = dev
	return t
}

func place(n Node, opts PlaceOptions) (Node, error) {
	if pinnedNode(n) {
		// PlaceByCost keeps this subtree on the CPU, whole.
		return n, nil
	}
	if hostOpNode(n) {
		// PlaceByCost runs this operator on the CPU, over its inputs
		// placed as before.
		return hostOver(n, opts)
	}
	switch x := n.(type) {
	case *Project:
		var pred expr.Expr
		input := x.Input
		if f, ok := input.(*Filter); ok && !pinnedNode(f) {
			pred, input = f.Pred, f.Input
		}
		if why := hostFilterWhy(input, pred, opts); why != "" {
			f := &Filter{Input: input, Pred: pred}
			f.Why = why
			p := &Project{Input: f, Exprs: x.Exprs, Out: x.Out}
			p.Why = why
			return p, nil
		}
		in, err := place(input, opts)
		if err != nil {
			return nil, err
		}
		if pred == nil && onlyColumns(x.Exprs) && in.Placement() == CPU {
			// Choosing columns of host batches needs no device.
			p := &Project{Input: in, Exprs: x.Exprs, Out: x.Out}
			p.Why = "chooses columns of host batches"
			return p, nil
		}
		fused, serr := opts.Supported(input.Columns(), pred, x.Exprs)
		if serr == nil {
			c := &Compute{Input: gpuInput(in), Pred: pred, Exprs: x.Exprs, Out: x.Out, Fused: fused && opts.Fusion}
			c.Dev = GPU
			return c, nil
		}
		if opts.Strict && !errors.Is(serr, ErrHostOnly) {
			return nil, fmt.Errorf("device gpu: %w (use device auto to run it on the CPU)", serr)
		}
		if pred != nil {
			if fused, ferr := opts.Supported(input.Columns(), pred, nil); ferr == nil {
				c := &Compute{Input: gpuInput(in), Pred: pred, Fused: fused && opts.Fusion}
				c.Dev = GPU
				p := &Project{Input: toSide(c, CPU), Exprs: x.Exprs, Out: x.Out}
				p.Why = whyCPU(serr)
				return p, nil
			}
			f := &Filter{Input: toSide(in, CPU), Pred: pred}
			f.Why = whyCPU(serr)
			p := &Project{Input: f, Exprs: x.Exprs, Out: x.Out}
			p.Why = f.Why
			return p, nil
		}
		p := &Project{Input: toSide(in, CPU), Exprs: x.Exprs, Out: x.Out}
		p.Why = whyCPU(serr)
		return p, nil
	case *Filter:
		if why := hostFilterWhy(x.Input, x.Pred, opts); why != "" {
			f := &Filter{Input: x.Input, Pred: x.Pred}
			f.Why = why
			return f, nil
		}
		in, err := place(x.Input, opts)
		if err != nil {
			return nil, err
		}
		fused, serr := opts.Supported(x.Input.Columns(), x.Pred, nil)
		if serr == nil {
			c := &Compute{Input: gpuInput(in), Pred: x.Pred, Fused: fused && opts.Fusion}
			c.Dev = GPU
			return c, nil
		}
		if opts.Strict && !errors.Is(serr, ErrHostOnly) {
			return nil, fmt.Errorf("device gpu: %w (use device auto to run it on the CPU)", serr)
		}
		f := &Filter{Input: toSide(in, CPU), Pred: x.Pred}
		f.Why = whyCPU(serr)
		return f, nil
	case *Scan:
		return x, nil
	case *Sort:
		// Sorting device batches gathers on the device; only the keys
		// travel to the host to be ordered.
		in, err := place(x.Input, opts)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Input = in
		c.Dev = in.Placement()
		if c.Dev == CPU {
			if why := scanSortWhy(in, x.Keys, opts); why == "" {
				c.Input, c.Dev = gpuInput(in), GPU
			} else {
				c.Why = why
			}
		}
		return &c, nil
	case *Limit:
		// A limit over GPU output slices device batches, so only the rows
		// kept are downloaded.
		in, err := place(x.Input, opts)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Input = in
		c.Dev = in.Placement()
		if c.Dev == CPU {
			c.Why = inputOnHost
		}
		return &c, nil
	case *Union:
		parts := make([]Node, len(x.Parts))
		onGPU := true
		for i, p := range x.Parts {
			pp, err := place(p, opts)
			if err != nil {
				return nil, err
			}
			parts[i] = pp
			onGPU = onGPU && pp.Placement() == GPU
		}
		c := *x
		c.Parts = parts
		if onGPU {
			c.Dev = GPU
		} else {
			for i := range c.Parts {
				c.Parts[i] = toSide(c.Parts[i], CPU)
			}
			c.Dev = CPU
			c.Why = "a part runs on the host"
		}
		return &c, nil
	}
	var why string
	switch x := n.(type) {
	case *Aggregate:
		g, reason, err := placeAggregate(x, opts)
		if err != nil || g != nil {
			return g, err
		}
		why = reason
	case *Join:
		g, reason, err := placeJoin(x, opts)
		if err != nil || g != nil {
			return g, err
		}
		why = reason
	case *Window:
		g, reason, err := placeWindow(x, opts)
		if err != nil || g != nil {
			return g, err
		}
		why = reason
	default:
		why = hostOnly(n)
	}
	// Every other operator runs on the CPU; its inputs come to the host.
	inputs := n.Inputs()
	placedIn := make([]Node, len(inputs))
	for i, in := range inputs {
		p, err := place(in, opts)
		if err != nil {
			return nil, err
		}
		placedIn[i] = toSide(p, CPU)
	}
	out := withInputs(n, placedIn)
	if w, ok := out.(interface{ setWhy(string) }); ok {
		w.setWhy(why)
	}
	return out, nil
}

// hostOver places n on the CPU (its note kept) and its inputs as they
// would be, brought to the host.
func hostOver(n Node, opts PlaceOptions) (Node, error) {
	inputs := n.Inputs()
	placedIn := make([]Node, len(inputs))
	for i, in := range inputs {
		p, err := place(in, opts)
		if err != nil {
			return nil, err
		}
		placedIn[i] = toSide(p, CPU)
	}
	return withInputs(n, placedIn), nil
}

// inputOnHost is the EXPLAIN note of an operator that follows its input
// to the host.
const inputOnHost = "its input is on the host"

// scanSortWhy says why a sort over host input stays on the CPU ("" when
// it moves to the device). A sort reading a table (or columns chosen from
// one) runs on the device when the device orders every key: it sorts the
// resident table's keys and gathers only the rows it outputs, where the
// host would sort every row. Keys the host would order anyway, and tables
// too large to keep resident (the sort would hold them whole on the
// device), stay with the host's copy.
func scanSortWhy(in Node, keys []opspec.SortKey, opts PlaceOptions) string {
	scan, ok := in.(*Scan)
	if p, isProject := in.(*Project); isProject && onlyColumns(p.Exprs) {
		scan, ok = p.Input.(*Scan)
	}
	if !ok || scan.Table == nil {
		return inputOnHost
	}
	for _, c := range scan.Columns() {
		if c.Type == coldata.Null {
			return inputOnHost
		}
	}
	if why := sortNote(in.Columns(), keys); strings.HasPrefix(why, "keys sorted on the host") {
		return inputOnHost + "; the device would not sort its keys (" + strings.TrimPrefix(why, "keys sorted on the host: ") + ")"
	}
	if b := scannedBytes(scan); opts.DeviceMemory > 0 && b > opts.DeviceMemory/2 {
		return fmt.Sprintf("its input is on the host; its scan's %d columns take %s, over the half of device memory a table may keep resident", len(scan.Cols), byteSize(b))
	}
	return ""
}

// hostOnly is why an operator without a device form runs on the CPU in a
// GPU plan.
func hostOnly(n Node) string {
	switch x := n.(type) {
	case *Distinct:
		return "DISTINCT has no device operator"
	case *SetOp:
		if x.Except {
			return "EXCEPT has no device operator"
		}
		return "INTERSECT has no device operator"
	case *CTERef:
		return "a CTE's rows are kept on the host for its readers"
	case *Recursive:
		return "WITH RECURSIVE iterates on the host"
	case *WorkScan:
		return "a recursive CTE's working table is on the host"
	case *Values:
		return "literal rows are made on the host"
	}
	return "no device operator"
}

// gpuInput makes n produce device batches: a scan reads the device-resident
// copy of its table; anything else is transferred.
func gpuInput(n Node) Node {
	switch x := n.(type) {
	case *Scan:
		c := *x
		c.Dev = GPU
		return &c
	case *DeviceAggregate:
		// Its groups stay on the device for the reader.
		c := *x
		c.Dev = GPU
		return &c
	case *Project:
		// Columns chosen from a table or from a GROUP BY's groups (a
		// derived table's names, SELECT DISTINCT's columns) are chosen on
		// the device, from the resident table or the groups kept there,
		// instead of on the host and uploaded.
		switch x.Input.(type) {
		case *Scan, *DeviceAggregate:
			if x.Dev == CPU && onlyColumns(x.Exprs) {
				// A selection runs no kernel; it is described as the
				// other column choices on the device are.
				c := &Compute{Input: gpuInput(x.Input), Exprs: x.Exprs, Out: x.Out, Fused: true}
				c.Dev = GPU
				return c
			}
		}
	}
	return toSide(n, GPU)
}

// withInputs returns a copy of n reading the given inputs.
func withInputs(n Node, in []Node) Node {
	switch x := n.(type) {
	case *Filter:
		c := *x
		c.Input = in[0]
		return &c
	case *Project:
		c := *x
		c.Input = in[0]
		return &c
	case *Sort:
		c := *x
		c.Input = in[0]
		return &c
	case *Limit:
		c := *x
		c.Input = in[0]
		return &c
	case *Distinct:
		c := *x
		c.Input = in[0]
		return &c
	case *Aggregate:
		c := *x
		c.Input = in[0]
		return &c
	case *Join:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Union:
		c := *x
		c.Parts = in
		return &c
	case *SetOp:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Window:
		c := *x
		c.Input = in[0]
		return &c
	case *Compute:
		c := *x
		c.Input = in[0]
		return &c
	case *Transfer:
		c := *x
		c.Input = in[0]
		return &c
	case *DeviceAggregate:
		c := *x
		c.Input = in[0]
		return &c
	case *DeviceWindow:
		c := *x
		c.Input = in[0]
		return &c
	case *DeviceJoin:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Exchange:
		c := *x
		c.Input = in[0]
		return &c
	case *CTERef:
		c := *x
		c.Body = in[0]
		return &c
	case *Recursive:
		c := *x
		c.Base, c.Step = in[0], in[1]
		return &c
	}
	return n
}

// whyCPU is the EXPLAIN note of a node kept on the CPU because its
// expressions cannot run on the GPU now: a function without a device form,
// an expression only the host evaluates, kernels still compiling.
// hostFilterWhy says why a filter over scan input runs on the CPU ("" when
// it need not): the scanned columns take more than the half of the device
// memory a table may keep resident (gpuexec's residentShare), so every
// query would upload them all again in chunks, where the host reads only
// the predicate's columns and copies only the rows the filter keeps
// (ClickBench Q24's SELECT * over 84 GB at 100M rows).
func hostFilterWhy(input Node, pred expr.Expr, opts PlaceOptions) string {
	s, ok := input.(*Scan)
	if !ok || pred == nil || opts.DeviceMemory == 0 {
		return ""
	}
	if b := scannedBytes(s); b > opts.DeviceMemory/2 {
		return fmt.Sprintf("its scan's %d columns take %s, over the half of device memory a table may keep resident; the host filters them without copying", len(s.Cols), byteSize(b))
	}
	return ""
}

// byteSize renders n bytes with a binary unit.
func byteSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func whyCPU(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// PassThrough returns column references to every input column (the
// outputs of a Compute that only filters).
func PassThrough(inputs []Column) []expr.Expr {
	out := make([]expr.Expr, len(inputs))
	for i, c := range inputs {
		out[i] = &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
	}
	return out
}

// onlyColumns reports whether every expression is a plain column reference.
func onlyColumns(es []expr.Expr) bool {
	for _, e := range es {
		if _, ok := e.(*expr.ColumnRef); !ok {
			return false
		}
	}
	return true
}

// ScannedRows is the rows of the tables the scans in n read (CTE bodies
// included; subqueries inside expressions are not): what auto placement
// weighs to keep tiny queries on the CPU.
func ScannedRows(n Node) int64 {
	var rows int64
	if s, ok := n.(*Scan); ok && s.Table != nil {
		rows += s.Table.Rows
	}
	for _, in := range n.Inputs() {
		rows += ScannedRows(in)
	}
	return rows
}

// OnHost returns a copy of the root n whose EXPLAIN line says why the
// whole plan runs on the CPU.
func OnHost(n Node, why string) Node {
	out := withInputs(n, n.Inputs())
	if w, ok := out.(interface{ setWhy(string) }); ok {
		w.setWhy(why)
	}
	return out
}
