package gsql

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow/array"

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
}

func (c *planCache) get(k planKey, version uint64) (planner.Node, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok || el.Value.(*planEntry).version != version {
		c.misses.Add(1)
		return nil, false
	}
	c.order.MoveToFront(el)
	c.hits.Add(1)
	return el.Value.(*planEntry).node, true
}

func (c *planCache) put(k planKey, version uint64, n planner.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries, c.order = map[planKey]*list.Element{}, list.New()
	}
	if el, ok := c.entries[k]; ok {
		el.Value = &planEntry{key: k, version: version, node: n}
		c.order.MoveToFront(el)
		return
	}
	c.entries[k] = c.order.PushFront(&planEntry{key: k, version: version, node: n})
	for c.order.Len() > planCacheSize {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*planEntry).key)
	}
}

// PlanCacheStats counts lookups of the plan cache.
type PlanCacheStats struct {
	Hits, Misses uint64
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
// GPU plan run out of device memory.
func (db *DB) queryCached(ctx context.Context, key planKey, args []any) (rdr array.RecordReader, ok bool, err error) {
	n, ok := db.plans.get(key, db.cat.Version())
	if !ok {
		return nil, false, nil
	}
	defer recoverInternal(&err)
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	ctx, _ = db.startWarnings(ctx)
	rdr, err = db.execute(ctx, n, true, db.hostPlanText(key.text, args))
	return rdr, true, err
}

// queryAndCache plans a SELECT, keeps the plan when its placement is final,
// and runs it.
func (db *DB) queryAndCache(ctx context.Context, key planKey, sel *sql.Select, args []any) (rdr array.RecordReader, err error) {
	defer recoverInternal(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, _ = db.startWarnings(ctx)
	version := db.cat.Version()
	ro := db.ruleOptions(ctx)
	n, err := db.planner.PlanSelectWith(ctx, sel.Stmt, args, ro)
	if err != nil {
		return nil, err
	}
	placed, final, err := db.placeFinal(n, ro)
	if err != nil {
		return nil, err
	}
	if final {
		db.plans.put(key, version, placed)
	}
	return db.execute(ctx, placed, final, db.hostPlan(sel.Stmt, args))
}

// volatileWords are functions whose value changes between runs of one
// statement: a statement naming one is planned afresh each time (the
// planner may fold a call into a constant).
var volatileWords = []string{"rand", "now", "current_", "sysdate", "curdate", "curtime", "localtime", "uuid", "unix_timestamp", "utc_", "last_insert_id"}

// cacheableText reports whether a statement's plan may be reused: it names
// no volatile function (a conservative test on the text: a column called
// "nowhere" only costs the cache).
func cacheableText(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range volatileWords {
		if strings.Contains(lower, w) {
			return false
		}
	}
	return true
}
