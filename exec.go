package gsql

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// run executes one statement. Row-returning statements give a reader.
func (db *DB) run(ctx context.Context, st sql.Statement, args []any) (res Result, rdr array.RecordReader, err error) {
	defer recoverInternal(&err)
	if err := ctx.Err(); err != nil {
		return Result{}, nil, err
	}
	sess := db.sessionOf(ctx)
	ctx = planner.WithLastInsertID(ctx, sess.lastInsertID.Load())
	if sw, ok := st.(*sql.ShowWarnings); ok {
		// Reads the previous statement's warnings, keeping them.
		return Result{}, showWarnings(sess.warnings.Load(), sw.Count), nil
	}
	ctx, warnings := db.startWarnings(ctx)
	defer func() {
		if err == nil && res.LastInsertID != 0 {
			sess.lastInsertID.Store(res.LastInsertID)
		}
		if err == nil && rdr == nil {
			warnings.Append(res.Warnings...)
			res.Warnings, res.WarningCount = warnings.List(), warnings.Count()
		}
	}()
	switch s := st.(type) {
	case *sql.Select:
		rdr, err := db.query(ctx, s.Stmt, args)
		return Result{}, rdr, err
	case *sql.CreateTable:
		n, err := db.createTable(ctx, s, args)
		return Result{RowsAffected: n}, nil, err
	case *sql.DropTable:
		// One change, one commit: every table or, on any error, none.
		_, err := db.cat.DropTables(s.Names, s.IfExists)
		return Result{}, nil, err
	case *sql.Insert:
		n, warnings, lastID, err := db.insert(ctx, s, args)
		return Result{RowsAffected: n, Warnings: warnings, LastInsertID: lastID}, nil, err
	case *sql.CreateView:
		return Result{}, nil, db.createView(ctx, s)
	case *sql.DropView:
		return Result{}, nil, db.cat.DropView(s.Name, s.IfExists)
	case *sql.CreateIndex:
		return Result{}, nil, db.cat.CreateIndexDef(catalog.IndexDef{Name: s.Name, Table: s.Table, Columns: s.Columns, Unique: s.Unique}, s.IfNotExists)
	case *sql.DropIndex:
		return Result{}, nil, db.cat.DropIndex(s.Name, s.Table, s.IfExists)
	case *sql.Update:
		n, err := db.update(ctx, s, args)
		return Result{RowsAffected: n}, nil, err
	case *sql.Delete:
		n, err := db.delete(ctx, s, args)
		return Result{RowsAffected: n}, nil, err
	case *sql.ShowCreateTable:
		t, err := db.cat.Get(s.Table)
		if err != nil {
			// A statement that reads a table: MySQL's 1146, as SELECT's.
			return Result{}, nil, &planner.Error{Kind: planner.UnknownTable, Object: s.Table, Msg: fmt.Sprintf("unknown table %q", s.Table)}
		}
		name, text := coldata.NewBuilder(coldata.String, 1), coldata.NewBuilder(coldata.String, 1)
		name.AppendString(t.Name)
		text.AppendString(createTableText(t))
		return Result{}, rowsReader([]string{"Table", "Create Table"}, []*coldata.Vec{name.Finish(), text.Finish()}), nil
	case *sql.ShowTables:
		b := coldata.NewBuilder(coldata.String, 0)
		names := append(db.cat.List(), db.cat.Views()...)
		sort.Strings(names)
		for _, t := range names {
			b.AppendString(t)
		}
		return Result{}, rowsReader([]string{"name"}, []*coldata.Vec{b.Finish()}), nil
	case *sql.Describe:
		if s.Query != nil {
			return db.describeQuery(ctx, s.Query, args)
		}
		t, err := db.describeTarget(ctx, s.Table)
		if err != nil {
			return Result{}, nil, err
		}
		return Result{}, db.describeTable(ctx, t, s.Full), nil
	case *sql.Set:
		return Result{}, nil, db.sessionOf(ctx).set(s)
	case *sql.Explain:
		sel, ok := s.Stmt.(*sql.Select)
		if !ok {
			return Result{}, nil, &sql.Error{Kind: sql.ErrUnsupported, Msg: "not supported: EXPLAIN of a statement other than SELECT", Line: 1, Col: 1}
		}
		lines, err := db.explain(ctx, sel.Stmt, args, s.Analyze, s.Verbose)
		if err != nil {
			return Result{}, nil, err
		}
		b := coldata.NewBuilder(coldata.String, len(lines))
		for _, l := range lines {
			b.AppendString(l)
		}
		return Result{}, rowsReader([]string{"plan"}, []*coldata.Vec{b.Finish()}), nil
	}
	return Result{}, nil, errkind.Errorf(errkind.Unsupported, "not supported: statement %T", st)
}

// showWarnings is SHOW WARNINGS (Level, Code, Message) over w, or with
// count SHOW COUNT(*) WARNINGS.
func showWarnings(w *expr.Warnings, count bool) array.RecordReader {
	if count {
		b := coldata.NewBuilder(coldata.Int64, 1)
		b.AppendInt(w.Count())
		return rowsReader([]string{"@@session.warning_count"}, []*coldata.Vec{b.Finish()})
	}
	level, code, msg := coldata.NewBuilder(coldata.String, 0), coldata.NewBuilder(coldata.Int64, 0), coldata.NewBuilder(coldata.String, 0)
	for _, x := range w.List() {
		level.AppendString(x.Level)
		code.AppendInt(int64(x.Code))
		msg.AppendString(x.Msg)
	}
	return rowsReader([]string{"Level", "Code", "Message"}, []*coldata.Vec{level.Finish(), code.Finish(), msg.Finish()})
}

// plan binds a SELECT and places its operators, under the rule settings
// of the statement's session.
func (db *DB) plan(ctx context.Context, stmt sqlparser.SelectStatement, args []any) (planner.Node, error) {
	return db.planWith(ctx, stmt, args, db.ruleOptions(ctx))
}

func (db *DB) planWith(ctx context.Context, stmt sqlparser.SelectStatement, args []any, ro planner.RuleOptions) (planner.Node, error) {
	n, err := db.planner.PlanSelectWith(ctx, stmt, args, ro)
	if err != nil {
		return nil, err
	}
	return db.place(n, ro)
}

func (db *DB) query(ctx context.Context, stmt sqlparser.SelectStatement, args []any) (rdr array.RecordReader, err error) {
	ctx, shared := operators.WithSharedResults(ctx)
	defer func() { keepShared(shared, rdr, err) }()
	ro := db.ruleOptions(ctx)
	n, err := db.planner.PlanSelectWith(ctx, stmt, args, ro)
	if err != nil {
		return nil, err
	}
	placed, final, err := db.placeFinal(n, ro)
	if err != nil {
		return nil, err
	}
	return db.execute(ctx, placed, final, db.hostPlan(stmt, args), nil)
}

// keepShared hands the statement's store of CTE results (nil: the
// statement does not own one) to its reader, which closes it when the
// statement ends; without a reader (an error) it closes it now.
func keepShared(shared *operators.SharedResults, rdr array.RecordReader, err error) {
	if shared == nil {
		return
	}
	if r, ok := rdr.(*opReader); ok && err == nil {
		r.shared = shared
		return
	}
	shared.Close()
}

// execute builds a placed plan's operators and opens its reader. final is
// placeFinal's: false when work went to the CPU while GPU kernels compiled.
// onCPU plans the statement for the CPU alone: in auto mode a GPU plan
// that runs out of device memory before its first batch runs that instead
// (fallback.go; nil: never). note, when set, hears how a GPU attempt
// ended: true when it ran out of device memory and fell back, false when
// it finished on the GPU (the plan cache's CPU-plan memory counts them).
func (db *DB) execute(ctx context.Context, n planner.Node, final bool, onCPU hostPlanFunc, note func(oom bool)) (array.RecordReader, error) {
	fallback := onCPU != nil && db.mayFallBack(n)
	built, err := db.build(n)
	if err != nil {
		return nil, err
	}
	release, busy, err := db.admit(ctx, n, built, fallback)
	if err != nil {
		return nil, err
	}
	if busy != "" {
		// Nothing was opened: the CPU plan runs in the attempt's place.
		cctx, op, err := db.fallBack(ctx, onCPU)
		if err != nil {
			return nil, err
		}
		cpu := newOpReader(cctx, schemaOf(n), op)
		cpu.ranOn, cpu.collect = "cpu: "+busy, !db.opts.NoQueryGC
		return cpu, nil
	}
	root := built.Root
	if onCPU != nil {
		// A plan with no CPU twin (a remembered CPU plan) is no attempt.
		root = db.attemptRoot(root)
	}
	rdr := newOpReader(ctx, schemaOf(n), root)
	rdr.ranOn = "cpu"
	rdr.collect = !db.opts.NoQueryGC
	rdr.release = release
	if fallback && note != nil {
		rdr.gpuDone = func() { note(false) }
	}
	switch {
	case hasDeviceNode(n) && final:
		rdr.ranOn = "gpu"
	case hasDeviceNode(n):
		rdr.ranOn = "gpu and cpu: some GPU kernels compiling"
	case !final:
		rdr.ranOn = "cpu: GPU kernels compiling"
	}
	operators.UseResultMemory(built.Root) // the reader releases each batch's memory
	if built.GPU != nil && hasDeviceNode(n) {
		if deviceTimingOn(ctx) {
			rdr.timeOnDevice(built.GPU.Dev)
		}
		rdr.stats = append(rdr.stats, built.AllStats()...)
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		release()
		if rdr.timer != nil {
			_, _ = rdr.timer.Stop()
		}
		if !fallback || !shouldFallBack(ctx, err) {
			return nil, err
		}
		why := fallbackReason(err, built.Waits)
		if note != nil {
			note(true)
		}
		cctx, op, err := db.fallBack(ctx, onCPU)
		if err != nil {
			return nil, err
		}
		cpu := newOpReader(cctx, rdr.schema, op)
		cpu.ranOn, cpu.collect = "cpu: "+why, rdr.collect
		return cpu, nil
	}
	if fallback {
		waits := built.Waits
		rdr.fallback = func(cause error) (context.Context, operators.Operator, string, error) {
			why := fallbackReason(cause, waits)
			if note != nil {
				note(true)
			}
			cctx, op, err := db.fallBack(rdr.ctx, onCPU)
			return cctx, op, "cpu: " + why, err
		}
	}
	return rdr, nil
}

// explain renders a SELECT's plan, then the rules that changed it (with
// verbose, every rule's state first); with analyze it runs the plan and
// adds each operator's statistics.
func (db *DB) explain(ctx context.Context, stmt sqlparser.SelectStatement, args []any, analyze, verbose bool) ([]string, error) {
	start := time.Now()
	lines, err := db.explainLines(ctx, stmt, args, analyze, verbose)
	if err != nil || !analyze {
		return lines, err
	}
	// The whole statement's time, beside the operators' own: a cost
	// outside them (planning, admission, a scan's load while the tree
	// opens) shows as the difference. The table cache's conversion of
	// every column of a streamed table hid there, ~480 ms a query.
	line := fmt.Sprintf("statement: time=%s (planning, admission, opening and running the plan)", time.Since(start).Round(time.Microsecond))
	// Before the rules line, which stays last.
	at := len(lines)
	if at > 0 && strings.HasPrefix(lines[at-1], "rules: ") {
		at--
	}
	return slices.Insert(lines, at, line), nil
}

// explainLines is explain without the statement's time.
func (db *DB) explainLines(ctx context.Context, stmt sqlparser.SelectStatement, args []any, analyze, verbose bool) ([]string, error) {
	if lines, ok, err := db.explainRemembered(ctx, stmt, args, analyze, verbose); ok {
		return lines, err
	}
	ro := db.ruleOptions(ctx)
	ro.Trace = &planner.RuleTrace{}
	ctx, runs := withSubqueryRuns(ctx)
	ctx, shared := operators.WithSharedResults(ctx)
	defer shared.Close()
	n, err := db.planWith(ctx, stmt, args, ro)
	if err != nil {
		return nil, err
	}
	trailer := func() []string {
		lines := ro.Trace.Lines(verbose)
		if l := runs.line(); l != "" {
			lines = append([]string{l}, lines...)
		}
		return lines
	}
	if !analyze {
		// The top-groups cuts the builder will make show on their GROUP BYs.
		return append(planner.ExplainAnalyze(n, execbuild.TopNotes(n)), trailer()...), nil
	}
	fallback := db.mayFallBack(n)
	built, err := db.build(n)
	if err != nil {
		return nil, err
	}
	release, busy, err := db.admit(ctx, n, built, fallback)
	if err != nil {
		return nil, err
	}
	if busy != "" {
		return db.explainOnCPU(ctx, stmt, args, verbose, admissionLine(busy))
	}
	_, err = operators.Drain(ctx, db.attemptRoot(built.Root))
	release()
	if err != nil && fallback && shouldFallBack(ctx, err) {
		// Drain closed the attempt: its device memory is back.
		return db.explainOnCPU(ctx, stmt, args, verbose, "ran on the cpu: "+fallbackReason(err, built.Waits))
	}
	if err != nil {
		return nil, err
	}
	return append(built.ExplainAnalyze(n), trailer()...), nil
}

// explainOnCPU is EXPLAIN ANALYZE of a SELECT whose GPU plan ran out of
// device memory or waited past its admission bound: its CPU plan, run,
// after a first line (first) that says why.
func (db *DB) explainOnCPU(ctx context.Context, stmt sqlparser.SelectStatement, args []any, verbose bool, first string) ([]string, error) {
	db.cpuFallbacks.Add(1)
	if db.hooks.beforeCPU != nil {
		db.hooks.beforeCPU()
	}
	ctx, _ = db.startWarnings(ctx)
	ro := db.ruleOptions(ctx)
	ro.Trace = &planner.RuleTrace{}
	n, err := db.hostPlan(stmt, args)(ctx, ro)
	if err != nil {
		return nil, fmt.Errorf("planning for the cpu after the gpu ran out of memory: %w", err)
	}
	built, err := db.build(n)
	if err != nil {
		return nil, fmt.Errorf("building the cpu plan after the gpu ran out of memory: %w", err)
	}
	if _, err := operators.Drain(ctx, built.Root); err != nil {
		return nil, err
	}
	lines := append([]string{first}, built.ExplainAnalyze(n)...)
	return append(lines, ro.Trace.Lines(verbose)...), nil
}

// collect runs a SELECT to the end and returns its columns and rows.
func (db *DB) collect(ctx context.Context, stmt sqlparser.SelectStatement, args []any) ([]planner.Column, []*coldata.Batch, error) {
	// The statement's subqueries and its plan share CTE results.
	ctx, shared := operators.WithSharedResults(ctx)
	defer shared.Close()
	n, err := db.plan(ctx, stmt, args)
	if err != nil {
		return nil, nil, err
	}
	built, err := db.build(n)
	if err != nil {
		return nil, nil, err
	}
	batches, err := operators.Drain(ctx, built.Root)
	return n.Columns(), batches, err
}

// schemaOf is the Arrow schema of n's result.
func schemaOf(n planner.Node) *arrow.Schema {
	cols := n.Columns()
	origins := planner.Origins(n)
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		t := c.Type
		if t == coldata.Null {
			t = coldata.String
		}
		f := coldata.ArrowField(c.Name, t, true)
		if o := origins[i]; o.Table != nil {
			f.Nullable = !o.NotNull()
			// After the type's own keys (a DATETIME(n)'s digits).
			keys, vals := f.Metadata.Keys(), f.Metadata.Values()
			keys = append(keys, FieldTable, FieldOrgTable, FieldColumn)
			vals = append(vals, o.Alias, o.Table.Name, o.Table.Columns[o.Col].Name)
			if role := o.KeyRole(); role != "" {
				keys, vals = append(keys, FieldKey), append(vals, role)
			}
			if o.Table.Columns[o.Col].NotNull {
				keys, vals = append(keys, FieldNotNull), append(vals, "1")
			}
			f.Metadata = arrow.NewMetadata(keys, vals)
		}
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}

// declaredColumn is a column as CREATE TABLE declares it.
func declaredColumn(c sql.ColumnDef) catalog.Column {
	return catalog.Column{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Default: c.Default, AutoIncrement: c.AutoIncrement}
}

// tableDefinition adds CREATE TABLE's keys to cols and checks what the
// columns declare against them: each DEFAULT a value of its column, an
// AUTO_INCREMENT column keyed.
func (db *DB) tableDefinition(ctx context.Context, s *sql.CreateTable, cols []catalog.Column) ([]catalog.Column, []catalog.Key, error) {
	cols, keys, err := tableKeys(s, cols)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkDefaults(ctx, cols); err != nil {
		return nil, nil, err
	}
	if err := checkAutoIncrement(cols, keys); err != nil {
		return nil, nil, err
	}
	return cols, keys, nil
}

func (db *DB) createTable(ctx context.Context, s *sql.CreateTable, args []any) (int64, error) {
	if s.AsSelect == nil {
		cols := make([]catalog.Column, len(s.Columns))
		for i, c := range s.Columns {
			cols[i] = declaredColumn(c)
		}
		cols, keys, err := db.tableDefinition(ctx, s, cols)
		if err != nil {
			return 0, err
		}
		_, err = db.cat.CreateKeyed(s.Name, cols, keys, nil, s.IfNotExists)
		return 0, err
	}
	if _, err := db.cat.Get(s.Name); err == nil {
		if s.IfNotExists {
			return 0, nil
		}
		return 0, &catalog.ObjectError{Table: s.Name, Exists: true}
	}
	outCols, batches, kept, err := db.collectKeep(ctx, s.AsSelect, args)
	defer releaseDevice(&kept)
	if err != nil {
		return 0, err
	}
	cols := make([]catalog.Column, len(outCols))
	for i, c := range outCols {
		t := c.Type
		if t == coldata.Null {
			t = coldata.String
		}
		cols[i] = catalog.Column{Name: c.Name, Type: t}
	}
	if len(s.Columns) > 0 {
		if len(s.Columns) != len(cols) {
			return 0, fmt.Errorf("CREATE TABLE %s: %d columns declared but the SELECT returns %d", s.Name, len(s.Columns), len(cols))
		}
		for i, c := range s.Columns {
			cols[i] = declaredColumn(c)
		}
	}
	cols, keys, err := db.tableDefinition(ctx, s, cols)
	if err != nil {
		return 0, err
	}
	recs, rows, err := convertBatches(batches, outCols, cols)
	if err != nil {
		return 0, fmt.Errorf("CREATE TABLE %s: %w", s.Name, err)
	}
	if _, err := db.cat.CreateKeyed(s.Name, cols, keys, recs, s.IfNotExists); err != nil {
		return 0, err
	}
	if sameTypes(outCols, cols) {
		db.adoptResident(s.Name, recs, 0, nil, &kept)
	}
	return rows, nil
}

// tableKeys resolves CREATE TABLE's PRIMARY KEY and UNIQUE constraints
// against its columns (primary key columns become NOT NULL).
func tableKeys(s *sql.CreateTable, cols []catalog.Column) ([]catalog.Column, []catalog.Key, error) {
	if len(s.Keys) == 0 {
		return cols, nil, nil
	}
	defs := make([]catalog.Key, len(s.Keys))
	for i, k := range s.Keys {
		defs[i] = catalog.Key{Name: k.Name, Primary: k.Primary, Columns: k.Columns}
	}
	cols, keys, err := catalog.KeyDefs(cols, defs)
	if err != nil {
		return nil, nil, fmt.Errorf("CREATE TABLE %s: %w", s.Name, err)
	}
	return cols, keys, nil
}

// collectKeep is collect that also keeps the device batches of a SELECT
// whose rows come straight from the GPU (nil otherwise): the caller makes
// them a table's resident copy or releases them (releaseDevice).
func (db *DB) collectKeep(ctx context.Context, stmt sqlparser.SelectStatement, args []any) ([]planner.Column, []*coldata.Batch, []*gpuexec.DeviceBatch, error) {
	ctx, shared := operators.WithSharedResults(ctx)
	defer shared.Close()
	n, err := db.plan(ctx, stmt, args)
	if err != nil {
		return nil, nil, nil, err
	}
	built, err := db.build(n)
	if err != nil {
		return nil, nil, nil, err
	}
	keeper := operators.KeepDeviceResults(built.Root)
	batches, err := operators.Drain(ctx, built.Root)
	var kept []*gpuexec.DeviceBatch
	if keeper != nil {
		kept = keeper.Kept
	}
	if err != nil {
		releaseDevice(&kept)
		return nil, nil, nil, err
	}
	return n.Columns(), batches, kept, nil
}

func allColumnsInOrder(target []int, n int) bool {
	if len(target) != n {
		return false
	}
	for i, c := range target {
		if c != i {
			return false
		}
	}
	return true
}

func releaseDevice(bs *[]*gpuexec.DeviceBatch) {
	for _, b := range *bs {
		b.Release()
	}
	*bs = nil
}

// sameTypes reports whether query output columns have the table's types
// (no conversion, so the device rows are the table's rows).
func sameTypes(out []planner.Column, cols []catalog.Column) bool {
	if len(out) != len(cols) {
		return false
	}
	for i, c := range out {
		if c.Type != cols[i].Type {
			return false
		}
	}
	return true
}

// adoptResident makes the device batches a statement computed (*kept,
// after the resident batches of the table before it, old) the resident
// copy of table name, so that the next query scans it without an upload:
// a chain of GPU statements never round-trips through the host. It checks
// that the catalog's table is exactly what the statement left: the records
// before, followed by the added records it appended (a concurrent change
// makes it give up). It takes ownership of *kept and old.
func (db *DB) adoptResident(name string, before []arrow.Record, added int, old []*gpuexec.DeviceBatch, kept *[]*gpuexec.DeviceBatch) {
	batches := append(old, *kept...)
	*kept = nil
	defer releaseDevice(&batches)
	if len(batches) == len(old) {
		return
	}
	t, err := db.cat.Get(name)
	if err != nil || len(t.Records) != len(before)+added {
		return
	}
	for i, r := range before {
		if t.Records[i] != r {
			return
		}
	}
	var rows int64
	for _, b := range batches {
		if len(b.Cols) != len(t.Columns) {
			return
		}
		rows += int64(b.Len)
	}
	rt, err := db.gpu()
	if err != nil || rows != t.Rows {
		return
	}
	rt.Cache.Adopt(name, t.Version, batches)
	batches = nil
}

// convertBatches casts query output to a table's column types (strictly, as
// an INSERT does) and makes records of it.
func convertBatches(batches []*coldata.Batch, from []planner.Column, to []catalog.Column) ([]arrow.Record, int64, error) {
	schema := catalog.Schema(to)
	var recs []arrow.Record
	var rows int64
	for _, b := range batches {
		cols := make([]*coldata.Vec, len(to))
		for i := range to {
			v, err := convertColumn(b.Cols[i], to[i], int(rows))
			if err != nil {
				return nil, 0, err
			}
			cols[i] = v
		}
		recs = append(recs, coldata.BatchToRecord(schema, &coldata.Batch{Cols: cols, Len: b.Len}))
		rows += int64(b.Len)
	}
	return recs, rows, nil
}

// convertColumn converts v to the column's type, rejecting strings that are
// not numbers when the column is numeric and NULLs in NOT NULL columns
// (MySQL's strict mode). firstRow numbers rows in messages.
func convertColumn(v *coldata.Vec, col catalog.Column, firstRow int) (*coldata.Vec, error) {
	if col.NotNull {
		for i := 0; i < v.Len; i++ {
			if v.IsNull(i) {
				return nil, &catalog.NotNullError{Column: col.Name, Row: firstRow + i + 1}
			}
		}
	}
	if v.Type == col.Type {
		return v.Materialize(), nil
	}
	if v.Type == coldata.String && (col.Type == coldata.Int64 || col.Type == coldata.Float64 || col.Type == coldata.Bool || col.Type.IsDecimal()) {
		for i := 0; i < v.Len; i++ {
			if v.IsNull(i) {
				continue
			}
			s := strings.TrimSpace(string(v.Str(i)))
			var err error
			switch col.Type {
			case coldata.Int64:
				_, err = strconv.ParseInt(s, 10, 64)
			case coldata.Float64:
				_, err = strconv.ParseFloat(s, 64)
			default:
				if col.Type.IsDecimal() {
					if _, ok := decimal.Parse(s, col.Type.Scale()); !ok {
						err = fmt.Errorf("not a number")
					}
				}
			case coldata.Bool:
				switch strings.ToLower(s) {
				case "true", "false", "1", "0":
				default:
					err = fmt.Errorf("not a boolean")
				}
			}
			if err != nil {
				return nil, errkind.Errorf(errkind.BadValue, "incorrect %s value %q for column %q at row %d", col.Type, s, col.Name, firstRow+i+1)
			}
		}
	}
	var src expr.Expr = &expr.ColumnRef{Index: 0, Name: col.Name, T: v.Type}
	if v.Type == coldata.String && col.Type == coldata.Bool {
		// 'true'/'false' are not numbers: compare the text instead of casting.
		out := coldata.NewVec(coldata.Bool, v.Len)
		for i := 0; i < v.Len; i++ {
			if v.IsNull(i) {
				out.SetNull(i)
				continue
			}
			s := strings.ToLower(strings.TrimSpace(string(v.Str(i))))
			if s == "true" || s == "1" {
				out.Bools[i] = 1
			}
		}
		return out, nil
	}
	c, err := expr.CastTo(src, col.Type)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", col.Name, err)
	}
	out, err := expr.Eval(c, &coldata.Batch{Cols: []*coldata.Vec{v}, Len: v.Len})
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", col.Name, err)
	}
	if col.Type.IsTemporal() {
		// A value that is not a date converts to NULL in CAST; INSERT
		// rejects it instead (MySQL's strict mode).
		for i := 0; i < v.Len; i++ {
			if out.IsNull(i) && !v.IsNull(i) {
				bad := fmt.Sprint(v.Value(i))
				if v.Type == coldata.String {
					bad = string(v.Str(i))
				}
				return nil, errkind.Errorf(errkind.BadValue, "incorrect %s value %q for column %q at row %d", col.Type, bad, col.Name, firstRow+i+1)
			}
		}
	}
	return out.Materialize(), nil
}

// insert runs INSERT and returns the rows it wrote, its warnings, and the
// first AUTO_INCREMENT number it gave (0: none), LAST_INSERT_ID's value.
func (db *DB) insert(ctx context.Context, s *sql.Insert, args []any) (int64, []Warning, int64, error) {
	t, err := db.cat.Get(s.Table)
	if err != nil {
		return 0, nil, 0, err
	}
	// target[i] is the table column receiving source column i.
	var target []int
	if s.Columns == nil {
		for i := range t.Columns {
			target = append(target, i)
		}
	} else {
		seen := map[int]bool{}
		for _, name := range s.Columns {
			ci := t.ColumnIndex(name)
			if ci < 0 {
				return 0, nil, 0, &planner.Error{Kind: planner.UnknownColumn, Object: name, Msg: fmt.Sprintf("unknown column %q in table %s", name, t.Name)}
			}
			if seen[ci] {
				return 0, nil, 0, errkind.Errorf(errkind.DuplicateColumn, "column %q specified twice", name)
			}
			seen[ci] = true
			target = append(target, ci)
		}
	}
	var src []*coldata.Batch
	var srcCols []planner.Column
	var kept []*gpuexec.DeviceBatch
	defer releaseDevice(&kept)
	if s.Select != nil {
		srcCols, src, kept, err = db.collectKeep(ctx, s.Select, args)
		if err != nil {
			return 0, nil, 0, err
		}
		if len(srcCols) != len(target) {
			return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %d columns selected for %d target columns", t.Name, len(srcCols), len(target))
		}
	}
	rows, dup, err := db.bindInsert(ctx, t, s, target, args)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
	}
	if s.Select == nil {
		types := make([]coldata.Type, len(target))
		for i, ci := range target {
			types[i] = t.Columns[ci].Type
		}
		b, err := valuesBatch(rows, len(target), types)
		if err != nil {
			return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
		}
		src = []*coldata.Batch{b}
	}
	var total int64
	var out []*coldata.Batch
	var nullWarnings []nullWarning
	auto, counter, firstID := autoColumn(t), int64(0), int64(0)
	defaults := map[int]any{} // each DEFAULT's value, evaluated on first use
	if auto >= 0 {
		counter = autoCounter(t, auto)
	}
	for _, b := range src {
		full := make([]*coldata.Vec, len(t.Columns))
		for i, ci := range target {
			col := t.Columns[ci]
			if ci == auto {
				col.NotNull = false // NULLs are numbered below
			}
			_, hasDefault := catalog.ImplicitDefault(col.Type)
			ignoreNull := s.Ignore && col.NotNull && hasDefault
			if ignoreNull {
				col.NotNull = false // NULLs become the default below
			}
			v, err := convertColumn(b.Cols[i], col, int(total))
			if err != nil {
				return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
			}
			if ignoreNull {
				v, nullWarnings = fillImplicitDefault(v, ci, int(total), nullWarnings)
			}
			if ci == auto {
				var first int64
				if v, first, err = numberRows(v, &counter); err != nil {
					return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
				}
				if firstID == 0 {
					firstID = first
				}
			}
			full[ci] = v
		}
		for ci, c := range t.Columns {
			if full[ci] != nil {
				continue
			}
			switch {
			case ci == auto:
				v, first, err := autoValues(b.Len, &counter)
				if err != nil {
					return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
				}
				if firstID == 0 {
					firstID = first
				}
				full[ci] = v
			case c.Default != "":
				v, ok := defaults[ci]
				if !ok {
					// Once per statement: every batch gets the same value.
					if v, err = db.defaultValue(ctx, c); err != nil {
						return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, err)
					}
					defaults[ci] = v
				}
				full[ci] = coldata.NewConst(c.Type, v, b.Len).Materialize()
			case c.NotNull:
				return 0, nil, 0, fmt.Errorf("INSERT INTO %s: %w", t.Name, &catalog.NoDefaultError{Column: c.Name})
			default:
				full[ci] = coldata.NewConst(c.Type, nil, b.Len).Materialize()
			}
		}
		out = append(out, &coldata.Batch{Cols: full, Len: b.Len})
		total += int64(b.Len)
	}
	if total == 0 {
		return 0, nil, 0, nil
	}
	all := coldata.Concat(out, len(t.Columns))
	warnings := nullWarningList(t, nullWarnings)
	if keys := db.cat.UniqueKeys(t); len(keys) > 0 {
		n, keyWarnings, err := db.insertKeyed(ctx, t, keys, s, all, dup)
		if err != nil {
			return 0, nil, 0, err
		}
		return n, append(warnings, keyWarnings...), firstID, nil
	}
	// The rows the GPU computed extend the table's resident copy when they
	// are its rows unconverted, every column in order.
	var old []*gpuexec.DeviceBatch
	if len(kept) > 0 && allColumnsInOrder(target, len(t.Columns)) && sameTypes(srcCols, t.Columns) {
		if rt, err := db.gpu(); err == nil {
			old, _ = rt.Cache.Resident(t.Name, t.Version)
		}
	}
	if err := db.cat.Append(t.Name, all); err != nil {
		releaseDevice(&old)
		return 0, nil, 0, err
	}
	if old != nil {
		db.adoptResident(t.Name, t.Records, 1, old, &kept)
	}
	return total, warnings, firstID, nil
}

// nullWarning is a NULL that INSERT IGNORE stored in NOT NULL column col
// of statement row row (0-based) as the column's implicit default.
type nullWarning struct{ row, col int }

// fillImplicitDefault replaces v's NULLs with its type's implicit default
// (catalog.ImplicitDefault), noting each; firstRow numbers v's rows.
func fillImplicitDefault(v *coldata.Vec, col, firstRow int, notes []nullWarning) (*coldata.Vec, []nullWarning) {
	if !v.HasNulls() {
		return v, notes
	}
	def, _ := catalog.ImplicitDefault(v.Type)
	b := coldata.NewBuilder(v.Type, v.Len)
	for i := 0; i < v.Len; i++ {
		if v.IsNull(i) {
			b.AppendValue(def)
			notes = append(notes, nullWarning{firstRow + i, col})
			continue
		}
		b.AppendFrom(v, i)
	}
	return b.Finish(), notes
}

// nullWarningList is MySQL's warning 1048 for each noted NULL, row by
// row and left to right, as MySQL stores them.
func nullWarningList(t *catalog.Table, notes []nullWarning) []Warning {
	sort.Slice(notes, func(i, j int) bool {
		if notes[i].row != notes[j].row {
			return notes[i].row < notes[j].row
		}
		return notes[i].col < notes[j].col
	})
	var out []Warning
	for _, n := range notes {
		out = append(out, Warning{Level: "Warning", Code: 1048, Msg: fmt.Sprintf("Column '%s' cannot be null", t.Columns[n.col].Name)})
	}
	return out
}

// valuesBatch turns constant rows into a batch, each column of the common
// type of its values (the target column's type is applied later, strictly),
// except that numbers bound for a DECIMAL column convert to it directly,
// from their text: 100000000000000000.01 has no DOUBLE of its own.
func valuesBatch(rows [][]expr.Expr, ncols int, target []coldata.Type) (*coldata.Batch, error) {
	cols := make([]*coldata.Vec, ncols)
	one := &coldata.Batch{Len: 1}
	for c := 0; c < ncols; c++ {
		types := make([]coldata.Type, len(rows))
		numeric := true
		for r, row := range rows {
			types[r] = row[c].Type()
			switch p := types[r].Physical(); {
			case p == coldata.Int64 && types[r] == coldata.Int64, p == coldata.Float64, p == coldata.Decimal, p == coldata.Null:
			default:
				numeric = false
			}
		}
		t := expr.Unify(types...)
		if c < len(target) && target[c].IsDecimal() && numeric {
			t = target[c]
		}
		if t == coldata.Null {
			t = coldata.String
		}
		bld := coldata.NewBuilder(t, len(rows))
		for _, row := range rows {
			e, err := expr.CastTo(row[c], t)
			if err != nil {
				return nil, err
			}
			v, err := expr.Eval(e, one)
			if err != nil {
				return nil, err
			}
			bld.AppendFrom(v, 0)
		}
		cols[c] = bld.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: len(rows)}, nil
}

// build makes the operator tree of a placed plan.
func (db *DB) build(n planner.Node) (*execbuild.Built, error) {
	db.mu.RLock()
	strict, onGPU := db.requested == "gpu", db.device == "gpu"
	db.mu.RUnlock()
	var rt *operators.DeviceRuntime
	if onGPU {
		rt, _ = db.gpu()
	}
	o := execbuild.BuildOptions{GPU: rt, Strict: strict, MemoryLimit: db.opts.MemoryLimit, TempDir: db.tempDir}
	if rt != nil {
		o.Devices, o.Transport = db.gpuState.spread, db.gpuState.transport
	}
	return execbuild.BuildWith(n, o)
}

// hasDeviceNode reports whether any operator of the plan runs on the GPU.
func hasDeviceNode(n planner.Node) bool {
	if n.Placement() == planner.GPU {
		return true
	}
	for _, in := range n.Inputs() {
		if hasDeviceNode(in) {
			return true
		}
	}
	return false
}

// describeQuery lists the columns a query returns, as DESCRIBE of a table
// does (DuckDB's DESCRIBE SELECT ...); the query is planned, not run.
func (db *DB) describeQuery(ctx context.Context, stmt sqlparser.SelectStatement, args []any) (Result, array.RecordReader, error) {
	n, err := db.plan(ctx, stmt, args)
	if err != nil {
		return Result{}, nil, err
	}
	var rows []columnInfo
	for _, c := range n.Columns() {
		t := c.Type
		if t == coldata.Null {
			t = coldata.String
		}
		rows = append(rows, columnInfo{field: c.Name, typ: MySQLTypeName(t), null: "YES", isString: t == coldata.String})
	}
	return Result{}, describeRows(rows, false), nil
}

// ResultSchema returns the Arrow schema of a query's result without
// running it: the bound plan's output columns (what Flight SQL's
// GetFlightInfo announces before the client fetches the rows). It is nil,
// with no error, for a statement that is not a plain query (EXPLAIN, SHOW,
// DML): those have a schema only once run.
func (db *DB) ResultSchema(ctx context.Context, text string, args ...any) (*arrow.Schema, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	st, err := sql.ParseOne(text)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return nil, nil
	}
	n, err := db.planner.PlanSelectWith(ctx, sel.Stmt, args, db.ruleOptions(ctx))
	if err != nil {
		return nil, err
	}
	return schemaOf(n), nil
}
