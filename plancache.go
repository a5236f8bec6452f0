package gsql

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// planCacheSize bounds the plans kept: enough for a dashboard's or an
// application's working set of statements.
const planCacheSize = 256

// planCache keeps the placed plans of recent SELECTs (text and argument
// values), so that running
// a statement again skips parsing, binding and placement (a tenth of a
// millisecond, a fifth of a warm GPU query). A plan is valid while the
// catalog is at the version it was bound against (any change to any table
// or view misses) and for the device settings it was placed for. Plans are
// read-only once placed: concurrent queries share them and build their
// own operators.
type planCache struct {
	mu           sync.Mutex
	entries      map[planKey]*list.Element
	order        *list.List // front: most recently used
	hits, misses atomic.Uint64
	// memos are the statements whose GPU plan ran out of device memory
	// lately (cpuMemo), by memoKey; cpuRuns counts runs of their
	// remembered CPU plans.
	memos   map[planKey]*cpuMemo
	cpuRuns atomic.Uint64
}

type planKey struct {
	text, args, device string
	strict             bool
	// disabled are the session's disabled rules: another set plans
	// otherwise, so sessions never share a plan made under other rules.
	disabled planner.RuleSet
}

type planEntry struct {
	key     planKey
	version uint64
	node    planner.Node
	// memo is the statement's key in memos (memoKey).
	memo planKey
}

func (c *planCache) get(k planKey, version uint64) (n planner.Node, memo planKey, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok || el.Value.(*planEntry).version != version {
		c.misses.Add(1)
		return nil, planKey{}, false
	}
	c.order.MoveToFront(el)
	c.hits.Add(1)
	e := el.Value.(*planEntry)
	return e.node, e.memo, true
}

func (c *planCache) put(k planKey, version uint64, n planner.Node, memo planKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries, c.order = map[planKey]*list.Element{}, list.New()
	}
	if el, ok := c.entries[k]; ok {
		el.Value = &planEntry{key: k, version: version, node: n, memo: memo}
		c.order.MoveToFront(el)
		return
	}
	c.entries[k] = c.order.PushFront(&planEntry{key: k, version: version, node: n, memo: memo})
	for c.order.Len() > planCacheSize {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*planEntry).key)
	}
}

// PlanCacheStats counts lookups of the plan cache.
type PlanCacheStats struct {
	Hits, Misses uint64
	// CPURuns counts runs of remembered CPU plans: statements whose GPU
	// plan kept running out of device memory (auto mode).
	CPURuns uint64
}

// planKey is the cache key of a statement run with args under the
// disabled rules; ok is false when its plan must not be reused (a
// volatile function, an argument of a type that has no exact rendering).
func (db *DB) planKey(text string, args []any, disabled planner.RuleSet) (k planKey, ok bool) {
	if !cacheableText(text) {
		return planKey{}, false
	}
	// The planner binds arguments into the plan as constants, so a plan
	// serves the same values again (a prepared statement run repeatedly).
	var b strings.Builder
	for _, a := range args {
		switch v := a.(type) {
		case nil:
			b.WriteString("n;")
		case int64, int, int32, float64, bool:
			fmt.Fprintf(&b, "%T:%v;", v, v)
		case string:
			fmt.Fprintf(&b, "s%d:%s;", len(v), v)
		default:
			return planKey{}, false
		}
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	return planKey{text: text, args: b.String(), device: db.device, strict: db.requested == "gpu", disabled: disabled}, true
}

// queryCached runs a statement from a cached plan; ok is false on a miss.
// args are the statement's, for planning it again on the CPU should its
// GPU plan run out of device memory; a statement whose GPU plan did so
// repeatedly runs its remembered CPU plan (cpuMemo).
func (db *DB) queryCached(ctx context.Context, key planKey, args []any) (rdr array.RecordReader, ok bool, err error) {
	version := db.cat.Version()
	n, memo, ok := db.plans.get(key, version)
	if !ok {
		return nil, false, nil
	}
	defer recoverInternal(&err)
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	ctx, _ = db.startWarnings(ctx)
	if rdr, ok, err := db.runRemembered(ctx, memo, version, db.hostPlanText(key.text, args)); ok {
		return rdr, true, err
	}
	rdr, err = db.execute(ctx, n, true, db.hostPlanText(key.text, args), db.plans.outcome(memo))
	return rdr, true, err
}

// runRemembered runs statement memo's remembered CPU plan (planned by
// plan once per catalog version); ok is false when there is none now.
func (db *DB) runRemembered(ctx context.Context, memo planKey, version uint64, plan hostPlanFunc) (rdr array.RecordReader, ok bool, err error) {
	why, cpu := db.plans.rememberedCPU(memo, version)
	if why == "" {
		return nil, false, nil
	}
	if cpu == nil {
		if cpu, err = plan(ctx, db.ruleOptions(ctx)); err != nil {
			return nil, true, err
		}
		db.plans.keepCPU(memo, version, cpu)
	}
	db.plans.cpuRuns.Add(1)
	rdr, err = db.execute(ctx, cpu, true, nil, nil)
	if r, ok := rdr.(*opReader); ok {
		r.ranOn = "cpu: " + why
	}
	return rdr, true, err
}

// queryAndCache plans a SELECT, keeps the plan when its placement is final,
// and runs it.
func (db *DB) queryAndCache(ctx context.Context, key planKey, sel *sql.Select, args []any) (rdr array.RecordReader, err error) {
	defer recoverInternal(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Subqueries run while binding and the plan read the same CTE results.
	ctx, shared := operators.WithSharedResults(ctx)
	defer func() { keepShared(shared, rdr, err) }()
	ctx, warnings := db.startWarnings(ctx)
	version := db.cat.Version()
	memo := db.memoKey(sel.Stmt, key)
	// A plan evicted from the cache leaves its statement's memory.
	if rdr, ok, err := db.runRemembered(ctx, memo, version, db.hostPlan(sel.Stmt, args)); ok {
		return rdr, err
	}
	ro := db.ruleOptions(ctx)
	n, err := db.planner.PlanSelectWith(ctx, sel.Stmt, args, ro)
	if err != nil {
		return nil, err
	}
	placed, final, err := db.placeFinal(n, ro)
	if err != nil {
		return nil, err
	}
	var note func(bool)
	// A statement whose binding warned (constant text read as a date, a
	// subquery run while binding) is planned again each time, so that
	// each run gives the warnings: a cached plan skips binding.
	if final && warnings.Count() == 0 {
		db.plans.put(key, version, placed, memo)
		note = db.plans.outcome(memo)
	}
	return db.execute(ctx, placed, final, db.hostPlan(sel.Stmt, args), note)
}

// volatileWords are functions whose value changes between runs of one
// statement: a statement naming one is planned afresh each time (the
// planner may fold a call into a constant).
var volatileWords = []string{"rand", "now", "current_", "sysdate", "curdate", "curtime", "localtime", "uuid", "unix_timestamp", "utc_", "last_insert_id"}

// cacheableText reports whether a statement's plan may be reused: it names
// no volatile function. The test is on the text and conservative: a word
// that starts like one (a column called "nowhere") only costs the cache,
// but a name that merely holds one inside it (p_brand, known) is no call
// of it: a volatile word counts where no letter, digit or '_' precedes it.
func cacheableText(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range volatileWords {
		for at := 0; ; {
			i := strings.Index(lower[at:], w)
			if i < 0 {
				break
			}
			i += at
			if i == 0 || !identByte(lower[i-1]) {
				return false
			}
			at = i + 1
		}
	}
	return true
}

// identByte reports whether c may continue an unquoted identifier.
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// In auto mode a statement whose GPU plan keeps running out of device
// memory pays for a failed attempt and a CPU run each time; after
// cpuPlanAfter such fallbacks in a row the cache remembers its CPU plan
// for cpuPlanFor and runs that straight away (RanOn and EXPLAIN say so).
// Then the GPU plan is tried again: the memory may be free by now.
var (
	cpuPlanAfter = 3
	cpuPlanFor   = time.Minute
)

// cpuMemo is what the cache remembers of one statement's fallbacks.
type cpuMemo struct {
	ooms  int       // fallbacks for lack of device memory in a row
	until time.Time // the CPU plan is used until then (zero: not now)
	why   string
	// node is the CPU plan once planned, for the catalog version.
	node    planner.Node
	version uint64
}

// memoKey is the key of a statement's cpuMemo: its text as the parser
// prints it (so that EXPLAIN of the statement finds it too) under key's
// arguments, device and rules.
func (db *DB) memoKey(stmt sqlparser.SelectStatement, key planKey) planKey {
	key.text = sqlparser.String(stmt)
	return key
}

// outcome is execute's note for statement memo: it counts fallbacks in a
// row and remembers the CPU plan after cpuPlanAfter of them.
func (c *planCache) outcome(memo planKey) func(oom bool) {
	return func(oom bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		m := c.memos[memo]
		if !oom {
			if m != nil && m.until.IsZero() {
				delete(c.memos, memo) // a GPU run went through: the count restarts
			}
			return
		}
		if m == nil {
			if c.memos == nil {
				c.memos = map[planKey]*cpuMemo{}
			}
			if len(c.memos) >= planCacheSize {
				// Bounded as the plans are: forget the lot rather than grow.
				clear(c.memos)
			}
			m = &cpuMemo{}
			c.memos[memo] = m
		}
		m.ooms++
		if m.ooms >= cpuPlanAfter && m.until.IsZero() {
			m.until = time.Now().Add(cpuPlanFor)
			m.why = fmt.Sprintf("its gpu plan ran out of device memory %d times in a row; the cpu plan is remembered until %s",
				m.ooms, m.until.UTC().Format(time.TimeOnly))
		}
	}
}

// rememberedCPU returns why statement memo runs its CPU plan now ("":
// it does not) and that plan when it was kept for the catalog version.
func (c *planCache) rememberedCPU(memo planKey, version uint64) (why string, node planner.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.memos[memo]
	if m == nil || m.until.IsZero() {
		return "", nil
	}
	if time.Now().After(m.until) {
		delete(c.memos, memo) // the GPU plan gets its chance again
		return "", nil
	}
	if m.version == version {
		node = m.node
	}
	return m.why, node
}

// keepCPU keeps statement memo's CPU plan, placed for version.
func (c *planCache) keepCPU(memo planKey, version uint64, n planner.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.memos[memo]; m != nil {
		m.node, m.version = n, version
	}
}

// explainRemembered is EXPLAIN (ANALYZE) of a statement whose CPU plan
// the cache remembers (ok false: it has none now): that plan, after a
// first line that says why.
func (db *DB) explainRemembered(ctx context.Context, stmt sqlparser.SelectStatement, args []any, analyze, verbose bool) (lines []string, ok bool, err error) {
	key, cacheable := db.planKey(sqlparser.String(stmt), args, db.sessionOf(ctx).rules())
	if !cacheable {
		return nil, false, nil
	}
	why, _ := db.plans.rememberedCPU(key, db.cat.Version())
	if why == "" {
		return nil, false, nil
	}
	first := "ran on the cpu: " + why
	ro := db.ruleOptions(ctx)
	ro.Trace = &planner.RuleTrace{}
	n, err := db.hostPlan(stmt, args)(ctx, ro)
	if err != nil {
		return nil, true, err
	}
	if !analyze {
		first = "cpu plan: " + why
		return append(append([]string{first}, planner.ExplainAnalyze(n, execbuild.TopNotes(n))...), ro.Trace.Lines(verbose)...), true, nil
	}
	built, err := db.build(n)
	if err != nil {
		return nil, true, err
	}
	if _, err := operators.Drain(ctx, built.Root); err != nil {
		return nil, true, err
	}
	return append(append([]string{first}, built.ExplainAnalyze(n)...), ro.Trace.Lines(verbose)...), true, nil
}
