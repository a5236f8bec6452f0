// Package gsql is an embeddable SQL query engine whose operators run as CUDA
// kernels over device-resident Arrow column batches, with a pure-Go CPU
// backend that gives identical answers where no GPU is present.
//
// Open a database, create or register tables, and run SQL:
//
//	db, _ := gsql.Open(gsql.Options{})
//	db.Exec(ctx, "CREATE TABLE people (name VARCHAR, visibility VARCHAR)")
//	rdr, _ := db.Query(ctx, "SELECT UPPER(name) FROM people WHERE visibility = ?", "public")
//
// Results are Arrow records (array.RecordReader). The package also registers
// a database/sql driver named "gsql".
package gsql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/spill"
	"github.com/gsqlengine/gsql/sql"
	"github.com/gsqlengine/gsql/storage"
)

// Options configure a database.
type Options struct {
	// Device selects where operators run: "auto" (the GPU when gsql was
	// built with CUDA support and a device is present, else the CPU; a
	// SELECT whose GPU plan runs out of device memory before its first
	// rows runs again on the CPU, as RanOn, EXPLAIN ANALYZE and
	// Stats.CPUFallbacks say), "gpu" (the GPU or an error; never a silent
	// fallback) or "cpu". Empty means auto.
	Device string
	// Devices lists the GPUs the database opens: "all" or GPU numbers
	// such as "0,2"; empty (the default) opens GPU 0 alone. Each gets its
	// own device state (context, pool, resident tables, counters in
	// Stats.Devices); a listed GPU that is missing or fails to open is
	// skipped (Stats.SkippedDevices), or with Device "gpu" fails the GPU.
	// With several open, device plans spread over all of them (the
	// place_exchanges rule): large tables by row groups, small ones
	// replicated, exchanges where rows must meet; the first listed device
	// runs the final steps.
	Devices string
	// SpreadRows is the table size from which a plan over several GPUs
	// spreads a table's row groups over them; smaller tables are
	// replicated on each (0: planner.DefaultSpreadRows, 1M rows).
	SpreadRows int64
	// PoolLimit caps the GPU memory pool in bytes (0: no limit).
	PoolLimit uint64
	// CacheBudget caps the device memory of resident tables (0: half the
	// device's memory, or of PoolLimit).
	CacheBudget uint64
	// NoFusion runs GPU filters and projections through the kernel library
	// (one kernel per function) instead of fused kernels, for comparison.
	NoFusion bool
	// NoPool allocates device memory with cuMemAlloc directly, for
	// comparison with the pool.
	NoPool bool
	// ResultMemory caps the page-locked host memory that GPU query results
	// are downloaded into and Arrow records are built over (0: 4 GiB). A
	// result that does not fit goes to ordinary Go memory. Strings read
	// from a record (array.String.Value) point into that memory, which is
	// reused once the record is released: copy them to keep them longer.
	ResultMemory uint64
	// NoResultPool downloads GPU results into Go memory (for comparisons).
	NoResultPool bool
	// MemoryLimit caps the host memory of each GROUP BY's and join's state
	// (0: no cap). A GROUP BY or equi-join past it spills: its inputs are
	// split by key into partitions on disk (in TempDir) and processed one
	// partition at a time. A join without equal keys past it fails with an
	// error naming the limit.
	MemoryLimit uint64
	// Compression is how an on-disk database compresses the segments it
	// writes from now on: "none" (the default: scans read the memory map
	// without a copy), "lz4" or "zstd" (Arrow IPC body compression;
	// docs/BENCHMARKS.md "Compressed storage" has the measured ratios and
	// decompression speeds). Segments of any codec read back.
	Compression string
	// AutoGPUMinRows is, with Device "auto", the rows a query must read
	// (its scanned tables' rows) for its plan to go to the GPU: a query
	// over fewer runs on the CPU, which answers it sooner, and EXPLAIN
	// says so. Over more, the parts of a plan whose estimated rows cost
	// the CPU less than their operators' launches cost the GPU (a 64th
	// of this each) run on the CPU (the placement rule place_by_cost;
	// EXPLAIN shows each decision with its estimate). 0 means 100,000;
	// negative places every query by its operators alone.
	AutoGPUMinRows int64
	// AdmissionWait bounds how long, in auto mode, a GPU query waits in
	// the device's admission queue for its share of device memory (the
	// queries before it hold the rest) before it runs on the CPU instead,
	// as RanOn and EXPLAIN ANALYZE say. 0 means 2 seconds; negative waits
	// as long as the query lives. With Device "gpu" a query always waits.
	AdmissionWait time.Duration
	// TempDir is where queries spill state past MemoryLimit: each query
	// makes its own directory there and removes it when it ends, and Open
	// removes those left by processes that died. Empty: the database's
	// spill/ directory for an on-disk database, the system's temporary
	// directory otherwise.
	TempDir string
	// NoQueryGC leaves garbage collection to the Go runtime's own pacing.
	// By default a query that finishes with more than a thirty-second of
	// the live heap (and at least 16 MiB) allocated since the last collection
	// starts one in the background, so that later queries reuse that
	// memory instead of growing the heap into new pages (querygc.go).
	NoQueryGC bool
	// NoHeapLimit leaves the Go runtime's memory limit alone. By default
	// gsql sets it (debug.SetMemoryLimit) to the heap bytes of the open
	// databases' tables plus a quarter (at least 256 MiB, and 256 MiB
	// above the live heap), so that the garbage of loads and queries is
	// collected before it grows to the size of the tables (heaplimit.go);
	// a limit the program set itself, or GOMEMLIMIT, is kept.
	NoHeapLimit bool
	// Path, when set, keeps the database on disk in that directory: a new
	// path creates it, an existing one opens it, and every statement is
	// committed durably before it returns. Empty means in memory.
	Path string
	// ReadOnly opens Path for reading only: without the write lock, so
	// that it works while another process writes, and every statement that
	// would change a table fails.
	ReadOnly bool
	// DisabledRules switches optimizer rules off by name (planner.RuleNames
	// lists them; EXPLAIN names those that changed a plan): every session
	// starts with these, and SET disabled_rules = '...' changes a
	// session's. An unknown name fails Open.
	DisabledRules []string
}

// DB is a database, in memory or on disk (Options.Path). It is safe for
// concurrent use.
type DB struct {
	cat      *catalog.Catalog
	store    *storage.Store // nil for an in-memory database
	planner  *planner.Planner
	plans    planCache
	keySets  keySetCache
	opts     Options
	gpuState gpuState
	// disabledRules is Options.DisabledRules; session is the default
	// session, where Exec and Query run.
	disabledRules planner.RuleSet
	session       *Session
	// tempDir is where queries spill (Options.TempDir resolved).
	tempDir string

	mu        sync.RWMutex
	device    string // "cpu" or "gpu": what queries use now
	requested string // "auto", "gpu" or "cpu"
	closed    atomic.Bool
	// cpuFallbacks counts statements that ran on the CPU after their GPU
	// plan ran out of device memory (auto mode, fallback.go).
	cpuFallbacks atomic.Uint64
	// deviceKeyChecks counts INSERTs whose unique keys the GPU checked
	// (keycheck.go).
	deviceKeyChecks atomic.Uint64
	hooks           testHooks
}

// Result reports what a statement without rows did.
type Result struct {
	RowsAffected int64
	// LastInsertID is the first number an INSERT gave an AUTO_INCREMENT
	// column (MySQL's LAST_INSERT_ID()), 0 when it gave none.
	LastInsertID int64
	// Warnings are the notes of the last statement run (INSERT IGNORE's
	// skipped duplicates, a SELECT's invalid dates): the first
	// expr.MaxWarnings; WarningCount counts them all.
	Warnings     []Warning
	WarningCount int64
}

// ErrClosed is returned by every method of a closed DB.
var ErrClosed = errors.New("gsql: database is closed")

// Open creates an empty in-memory database, or opens (creating it if
// needed) the on-disk database at opts.Path.
func Open(opts Options) (*DB, error) {
	cat := catalog.New()
	db := &DB{cat: cat, opts: opts}
	db.planner = &planner.Planner{Catalog: cat, Run: execbuild.Run, RunOnce: db.runOnce}
	if opts.ReadOnly && opts.Path == "" {
		return nil, errors.New("gsql: ReadOnly needs a Path")
	}
	rules, err := planner.RuleSetOf(opts.DisabledRules)
	if err != nil {
		return nil, fmt.Errorf("gsql: Options.DisabledRules: %w", err)
	}
	db.disabledRules = rules
	db.session = db.Session()
	if _, err := parseDevices(opts.Devices); err != nil {
		return nil, fmt.Errorf("gsql: Options.Devices: %w", err)
	}
	codec, err := storage.ParseCodec(opts.Compression)
	if err != nil {
		return nil, fmt.Errorf("gsql: Options.Compression: %w", err)
	}
	if opts.Path != "" {
		st, err := openStore(cat, opts.Path, opts.ReadOnly)
		if err != nil {
			return nil, err
		}
		st.SetCodec(codec)
		db.store = st
	}
	db.tempDir = spillDir(opts)
	// Spill directories of processes that died; what cannot be removed
	// now is tried again at the next Open.
	_, _ = spill.CleanStale(db.tempDir)
	if err := db.SetDevice(opts.Device); err != nil {
		if db.store != nil {
			db.store.Close()
		}
		return nil, err
	}
	db.trackHeap()
	return db, nil
}

// spillDir is Options.TempDir, or its default.
func spillDir(opts Options) string {
	switch {
	case opts.TempDir != "":
		return opts.TempDir
	case opts.Path != "" && !opts.ReadOnly:
		return filepath.Join(opts.Path, "spill")
	}
	return os.TempDir()
}

// Close releases the database: an in-memory one's tables are dropped, an
// on-disk one's write lock is released and its files unmapped (results
// read from it must not be used after Close).
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.untrackHeap()
	err := db.closeGPU()
	if db.store != nil {
		if serr := db.store.Close(); err == nil {
			err = serr
		}
	}
	return err
}

// Device returns the device queries run on now: "cpu" or "gpu".
func (db *DB) Device() string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.device
}

// SetDevice selects "auto", "gpu" or "cpu" for later statements.
func (db *DB) SetDevice(d string) error {
	d = strings.ToLower(strings.TrimSpace(d))
	var use string
	switch d {
	case "", "auto":
		d, use = "auto", "cpu"
		if _, err := db.gpu(); err == nil {
			use = "gpu"
		}
	case "cpu":
		use = "cpu"
	case "gpu":
		if _, err := db.gpu(); err != nil {
			return fmt.Errorf("device gpu: %w", err)
		}
		use = "gpu"
	default:
		return fmt.Errorf("unknown device %q (want auto, gpu or cpu)", d)
	}
	db.mu.Lock()
	db.device, db.requested = use, d
	db.mu.Unlock()
	return nil
}

// Tables lists the table names in sorted order.
func (db *DB) Tables() []string { return db.cat.List() }

// TableSchema returns a table's Arrow schema.
func (db *DB) TableSchema(name string) (*arrow.Schema, error) {
	t, err := db.cat.Get(name)
	if err != nil {
		return nil, err
	}
	return t.Schema(), nil
}

// FunctionNames lists the SQL functions gsql knows, for completion and docs.
func (db *DB) FunctionNames() []string {
	var out []string
	for _, n := range expr.Names() {
		if !strings.HasPrefix(n, "cast_to_") && n != "case" && strings.IndexFunc(n, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) < 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// RegisterTable creates a table holding the given records, which must all
// have the given schema. Column types are converted to gsql's types
// (integers to BIGINT, floats and decimals to DOUBLE, strings and binaries to
// VARCHAR); the records are shared when they need no conversion.
func (db *DB) RegisterTable(name string, schema *arrow.Schema, recs []arrow.Record) error {
	if db.closed.Load() {
		return ErrClosed
	}
	cols, err := tableColumns(name, schema)
	if err != nil {
		return err
	}
	target := catalog.Schema(cols)
	out := make([]arrow.Record, 0, len(recs))
	for _, r := range recs {
		if !r.Schema().Equal(schema) {
			return fmt.Errorf("register %s: record schema %s differs from %s", name, r.Schema(), schema)
		}
		if r.Schema().Equal(target) {
			out = append(out, r)
			continue
		}
		r.Retain() // tableRecord takes a reference; the caller keeps its own
		t, err := tableRecord(name, target, r)
		if err != nil {
			return err
		}
		out = append(out, t)
	}
	_, err = db.cat.Create(name, cols, out, false)
	return err
}

// tableColumns are the columns of a table made from records of schema.
func tableColumns(name string, schema *arrow.Schema) ([]catalog.Column, error) {
	cols := make([]catalog.Column, len(schema.Fields()))
	for i, f := range schema.Fields() {
		t, err := coldata.FromArrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("register %s: column %s: %w", name, f.Name, err)
		}
		if t == coldata.Null {
			t = coldata.String
		}
		cols[i] = catalog.Column{Name: f.Name, Type: t}
	}
	return cols, nil
}

// tableRecord returns r as a record of the table's schema target, taking
// over the caller's reference to r: its columns as they are when their
// types are the table's (no copy), else converted.
func tableRecord(name string, target *arrow.Schema, r arrow.Record) (arrow.Record, error) {
	defer r.Release()
	same := true
	for i, f := range target.Fields() {
		same = same && arrow.TypeEqual(f.Type, r.Column(i).DataType())
	}
	if same {
		return array.NewRecord(target, r.Columns(), r.NumRows()), nil
	}
	b, err := coldata.RecordToBatch(r)
	if err != nil {
		return nil, fmt.Errorf("register %s: %w", name, err)
	}
	for i, c := range b.Cols {
		if c.Type == coldata.Null {
			b.Cols[i] = coldata.NewConst(coldata.String, nil, b.Len).Materialize()
		}
	}
	return coldata.BatchToRecord(target, b), nil
}

// Exec runs one or more statements separated by semicolons, in the
// database's default session. Statements that return rows are run and
// their rows discarded. Placeholder arguments are allowed only when text
// holds a single statement.
func (db *DB) Exec(ctx context.Context, text string, args ...any) (Result, error) {
	return db.exec(ctx, text, args)
}

// exec is Exec in the session of ctx (sessionOf).
func (db *DB) exec(ctx context.Context, text string, args []any) (Result, error) {
	if db.closed.Load() {
		return Result{}, ErrClosed
	}
	stmts, err := sql.Parse(text)
	if err != nil {
		return Result{}, err
	}
	if len(args) > 0 && len(stmts) != 1 {
		return Result{}, fmt.Errorf("placeholder arguments need exactly one statement, got %d", len(stmts))
	}
	var res Result
	for _, st := range stmts {
		r, rdr, err := db.run(ctx, st, args)
		if err != nil {
			return res, err
		}
		if rdr != nil {
			n, err := drainReader(rdr)
			if err != nil {
				return res, err
			}
			r.RowsAffected = n
			sess := db.sessionOf(ctx)
			r.Warnings, r.WarningCount = sess.Warnings(), sess.WarningCount()
		}
		res.RowsAffected += r.RowsAffected
		res.Warnings, res.WarningCount = r.Warnings, r.WarningCount
		if r.LastInsertID != 0 {
			res.LastInsertID = r.LastInsertID // the last INSERT that numbered rows
		}
	}
	return res, nil
}

// Query runs one statement, in the database's default session, and
// returns its rows. Statements that return no rows are executed and give
// a reader with no columns and no records. Cancelling ctx stops the
// query; the reader then reports ctx's error.
func (db *DB) Query(ctx context.Context, text string, args ...any) (array.RecordReader, error) {
	return db.queryText(ctx, text, args)
}

// queryText is Query in the session of ctx (sessionOf).
func (db *DB) queryText(ctx context.Context, text string, args []any) (array.RecordReader, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	key, cacheable := db.planKey(text, args, db.sessionOf(ctx).rules())
	if cacheable {
		if rdr, ok, err := db.queryCached(ctx, key, args); ok {
			return rdr, err
		}
	}
	st, err := sql.ParseOne(text)
	if err != nil {
		return nil, err
	}
	if sel, ok := st.(*sql.Select); ok && cacheable {
		return db.queryAndCache(ctx, key, sel, args)
	}
	_, rdr, err := db.run(ctx, st, args)
	if err != nil {
		return nil, err
	}
	if rdr == nil {
		rdr = emptyReader()
	}
	return rdr, nil
}

func emptyReader() array.RecordReader {
	r, _ := array.NewRecordReader(arrow.NewSchema(nil, nil), nil)
	return r
}

func drainReader(r array.RecordReader) (int64, error) {
	defer r.Release()
	var n int64
	for r.Next() {
		n += r.Record().NumRows()
	}
	return n, r.Err()
}

// Stats describe the database's memory and caches.
type Stats struct {
	Device string
	Tables int
	// GPU holds the device's counters when the GPU is open.
	GPU *gpuexec.Stats
	// Cache is the device-resident table cache.
	Cache *gpuexec.CacheStats
	// Devices are every open GPU's counters, the one queries run on
	// first (GPU is its Stats); SkippedDevices say why GPUs listed in
	// Options.Devices are not open.
	Devices        []DeviceStats
	SkippedDevices []string
	// DeviceLinks name the pairs of GPUs that copy through host memory
	// because enabling their peer access failed.
	DeviceLinks []string
	// Plans counts the plan cache's lookups (SELECTs run by Query).
	Plans PlanCacheStats
	// TableMemory is each table's memory, by name; TableBytes and
	// TableMapped total their host bytes, a buffer that several tables
	// share counted once.
	TableMemory             []TableMemory
	TableBytes, TableMapped int64
	// CPUFallbacks counts the statements that ran on the CPU in auto mode
	// because their GPU plan ran out of device memory (or waited for it
	// past gpuexec.MemoryWait).
	CPUFallbacks uint64
	// DeviceKeyChecks counts the INSERTs whose PRIMARY KEY and UNIQUE
	// keys the GPU checked (large inserts on a GPU database; keycheck.go).
	DeviceKeyChecks uint64
}

// String renders the statistics for the shell's .stats.
func (s Stats) String() string {
	out := fmt.Sprintf("device: %s\ntables: %d\nplan cache: %d hits, %d misses\n", s.Device, s.Tables, s.Plans.Hits, s.Plans.Misses)
	if s.CPUFallbacks > 0 {
		out += fmt.Sprintf("auto: %d statements ran on the cpu after the gpu ran out of memory\n", s.CPUFallbacks)
	}
	if s.DeviceKeyChecks > 0 {
		out += fmt.Sprintf("unique keys: %d inserts checked on the gpu\n", s.DeviceKeyChecks)
	}
	if s.Plans.CPURuns > 0 {
		out += fmt.Sprintf("auto: %d runs of remembered cpu plans (their gpu plans kept running out of memory)\n", s.Plans.CPURuns)
	}
	if s.GPU != nil {
		m := s.GPU.Memory
		out += fmt.Sprintf("pool: %d bytes in use, %d peak, %d reserved, %d allocations (%d from the pool, %d upstream), largest free %d\n",
			m.InUse, m.Peak, m.Reserved, m.Allocs, m.PoolHits, m.UpstreamAllocs, m.LargestFree)
		out += fmt.Sprintf("kernels: %d launches, %d compiles (%s in NVRTC, %s loading modules), %d memory-cache hits, %d disk-cache hits\n",
			s.GPU.Launches, s.GPU.Compiles, s.GPU.CompileTime.Round(time.Millisecond), s.GPU.LoadTime.Round(time.Millisecond), s.GPU.MemoryCacheHits, s.GPU.DiskCacheHits)
		out += fmt.Sprintf("transfers: %d bytes to the device, %d bytes to the host\n", s.GPU.BytesToDevice, s.GPU.BytesToHost)
		if a := s.GPU.Admission; a.Waited > 0 {
			out += fmt.Sprintf("admission: %d queries admitted, %d waited (%s), %d past their bound, %d waiting; %d of %d bytes reserved\n",
				a.Admitted, a.Waited, a.WaitTime.Round(time.Millisecond), a.TimedOut, a.Waiting, a.InUse, a.Capacity)
		}
		r := s.GPU.Results
		out += fmt.Sprintf("result memory: %d bytes in use in %d blocks, %d peak, %d page-locked of %d, %d results from the pool, %d to Go memory\n",
			r.InUse, r.Lent, r.Peak, r.Reserved, r.Limit, r.Lends, r.Fallbacks)
		out += devicesString(s.Devices, s.SkippedDevices, s.DeviceLinks)
	}
	for _, t := range s.TableMemory {
		out += fmt.Sprintf("table %s: %d rows, %d bytes in host memory (%d in the heap, %d mapped from disk)",
			t.Name, t.Rows, t.Bytes, t.Heap(), t.Mapped)
		if t.Device > 0 {
			out += fmt.Sprintf(", %d resident on the device", t.Device)
		}
		out += "\n"
	}
	if len(s.TableMemory) > 0 {
		out += fmt.Sprintf("tables in host memory: %d bytes (%d in the heap, %d mapped from disk)\n",
			s.TableBytes, s.TableBytes-s.TableMapped, s.TableMapped)
	}
	if s.Cache != nil {
		out += fmt.Sprintf("resident tables: %d (%d of %d bytes), %d hits, %d misses (%d adding columns), %d evictions, %d column sets dropped for others\n",
			s.Cache.Tables, s.Cache.Bytes, s.Cache.Budget, s.Cache.Hits, s.Cache.Misses, s.Cache.ColumnUploads, s.Cache.Evictions, s.Cache.ColumnEvictions)
	}
	return out
}

// Stats returns the database's statistics.
func (db *DB) Stats() Stats {
	st := Stats{Device: db.Device(), Tables: len(db.cat.List()),
		Plans:        PlanCacheStats{Hits: db.plans.hits.Load(), Misses: db.plans.misses.Load(), CPURuns: db.plans.cpuRuns.Load()},
		CPUFallbacks: db.cpuFallbacks.Load(), DeviceKeyChecks: db.deviceKeyChecks.Load()}
	var cache *gpuexec.TableCache // nil holds nothing
	if db.Device() == "gpu" {
		if rt, err := db.gpu(); err == nil {
			cache = rt.Cache
			g, c := rt.Dev.Stats(), rt.Cache.Stats()
			st.GPU, st.Cache = &g, &c
			st.Devices, st.SkippedDevices, st.DeviceLinks = db.deviceStats(), db.gpuState.skipped, db.gpuState.links
		}
	}
	// Each table counts its own buffers once; the totals count a buffer
	// several tables share once.
	all := bufferSet{}
	for _, name := range db.cat.List() {
		t, err := db.cat.Get(name)
		if err != nil {
			continue // dropped meanwhile
		}
		tm := db.tableMemory(name, t, bufferSet{})
		tm.Device = int64(cache.TableBytes(name))
		total := db.tableMemory(name, t, all)
		st.TableBytes += total.Bytes
		st.TableMapped += total.Mapped
		st.TableMemory = append(st.TableMemory, tm)
	}
	return st
}

// recordBytes is the length of a record's Arrow buffers.
func recordBytes(rec arrow.Record) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
	}
	for _, c := range rec.Columns() {
		add(c.Data())
	}
	return n
}

// Verify reads every file of an on-disk database in full and checks it
// against the checksums its manifest recorded (opening checks only sizes
// and structure, to stay independent of the data's size). It returns the
// number of segments and bytes checked, and an error naming the first
// damaged file. An in-memory database has nothing to check.
func (db *DB) Verify(ctx context.Context) (segments int, bytes int64, err error) {
	if db.closed.Load() {
		return 0, 0, ErrClosed
	}
	if db.store == nil {
		return 0, 0, nil
	}
	return db.store.Verify(ctx)
}

// openStore opens the on-disk database at path and loads its tables into
// cat, which then commits every change to it.
func openStore(cat *catalog.Catalog, path string, readOnly bool) (*storage.Store, error) {
	open := storage.Open
	if readOnly {
		open = storage.OpenReadOnly
	}
	st, err := open(path)
	if err != nil {
		return nil, err
	}
	for _, t := range st.Tables() {
		if err := cat.Restore(t); err != nil {
			st.Close()
			return nil, fmt.Errorf("open database %s: table %s: %w", path, t.Name, err)
		}
	}
	if err := cat.RestoreSchema(st.Schema()); err != nil {
		st.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	cat.SetPersister(st)
	return st, nil
}
