package randq

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
)

// Query is one generated query.
type Query struct {
	Name string // r001, r002, ... (or the shape's name)
	// Seed regenerates this query alone: One(Seed).
	Seed int64
	// Features are what the query exercises (Features lists them all).
	Features []string
	SQL      string // the text every engine runs, unless Duck is set
	Duck     string // DuckDB's text where the dialects differ, else ""
	// Keys are the output columns of the top-level ORDER BY, in its
	// order: every output column, so the order is total.
	Keys []int
	// Limited: a LIMIT cuts the ordered rows.
	Limited bool
	// Tables are the base tables it reads.
	Tables []string
}

// Features are the feature tags a query may carry.
var Features = []string{
	"join", "left-join", "derived", "distinct", "hits-self-join", "tpch-join-3+",
	"in", "not-in", "exists", "not-exists", "scalar-subquery", "correlated",
	"window", "window-over-groups", "top-n-per-group", "lag-lead", "running-sum", "frame", "rank",
	"topk", "order-by-agg", "order-by-expr", "count-distinct", "having",
	"cte", "cte-twice", "case-key", "date-bucket", "union", "intersect",
}

// Generate makes n queries from seed: query i (from 0) is One of its own
// seed, so any one of them can be regenerated alone.
func Generate(seed int64, n int) []Query {
	out := make([]Query, n)
	for i := range out {
		out[i] = One(seed*1_000_003 + int64(i))
		out[i].Name = fmt.Sprintf("r%03d", i+1)
	}
	return out
}

// One makes the query of one seed.
func One(seed int64) Query {
	g := &gen{rng: rand.New(rand.NewSource(seed)), feats: map[string]bool{}, tabs: map[string]bool{}}
	var s stmt
	switch r := g.intn(100); {
	case r < 22:
		s = g.aggregate(g.source())
	case r < 34:
		s = g.rowWindow()
	case r < 48:
		s = g.groupWindow()
	case r < 62:
		s = g.scalarList()
	case r < 80:
		s = g.withCTE()
	default:
		s = g.setOp()
	}
	q := g.finish(s)
	q.Seed = seed
	q.Name = fmt.Sprintf("seed%d", seed)
	return q
}

type gen struct {
	rng   *rand.Rand
	alias int
	feats map[string]bool
	tabs  map[string]bool
	// keyless names the tables read through a SELECT DISTINCT input,
	// which does not carry their primary key.
	keyless map[string]bool
	// duck lists parts of the text that DuckDB is given another way
	// (gsql's text, DuckDB's): finish makes Query.Duck from them.
	duck [][2]string
}

func (g *gen) intn(n int) int        { return g.rng.Intn(n) }
func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }
func (g *gen) feat(f ...string) {
	for _, x := range f {
		g.feats[x] = true
	}
}

func pick[T any](g *gen, xs []T) T { return xs[g.intn(len(xs))] }

func (g *gen) newAlias(p string) string {
	g.alias++
	return fmt.Sprintf("%s%d", p, g.alias)
}

// item is one select-list entry.
type item struct{ expr, as string }

// stmt is a query before its top-level ORDER BY: its text without it and
// its output columns. order are the columns (with direction) the
// top-level ORDER BY puts first, preferred before the rest.
type stmt struct {
	text  string
	cols  []string
	order []orderKey
	// rowLevel: one output row per input row (or per many-valued key):
	// always cut with a LIMIT.
	rowLevel bool
}

type orderKey struct {
	col  int
	desc bool
}

// finish adds the top-level ORDER BY (the preferred keys, then every
// other output column) and usually a LIMIT.
func (g *gen) finish(s stmt) Query {
	var keys []int
	var parts []string
	seen := map[int]bool{}
	for _, k := range s.order {
		if seen[k.col] {
			continue
		}
		seen[k.col] = true
		keys = append(keys, k.col)
		dir := ""
		if k.desc {
			dir = " DESC"
		}
		parts = append(parts, fmt.Sprintf("%d%s NULLS LAST", k.col+1, dir))
	}
	for i := range s.cols {
		if !seen[i] {
			keys = append(keys, i)
			parts = append(parts, fmt.Sprintf("%d NULLS LAST", i+1))
		}
	}
	text := s.text + " ORDER BY " + strings.Join(parts, ", ")
	limited := s.rowLevel || g.chance(0.8)
	if limited {
		text += fmt.Sprintf(" LIMIT %d", pick(g, []int{1, 3, 10, 10, 25, 100, 500}))
	}
	q := Query{SQL: text, Keys: keys, Limited: limited}
	if len(g.duck) > 0 {
		q.Duck = text
		for _, d := range g.duck {
			q.Duck = strings.ReplaceAll(q.Duck, d[0], d[1])
		}
	}
	for f := range g.feats {
		q.Features = append(q.Features, f)
	}
	sort.Strings(q.Features)
	for t := range g.tabs {
		q.Tables = append(q.Tables, t)
	}
	sort.Strings(q.Tables)
	return q
}

// ref is one base table in a FROM clause, under an alias.
type ref struct {
	t     *table
	alias string
}

// source is a FROM clause and the columns it offers (qualified).
type source struct {
	from  string
	where []string
	refs  []ref // base tables read directly (for subquery predicates)
	ids   []string
	dims  []string
	his   []string
	nums  []string // numbers to aggregate, integers and decimals
	decs  []string // the decimals among nums
	dates []string // DATE and TIMESTAMP columns
	hits  bool
}

func (s *source) add(r ref) {
	t, a := r.t, r.alias
	q := func(cs []string) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = a + "." + c
		}
		return out
	}
	s.dims = append(s.dims, q(t.dims)...)
	s.his = append(s.his, q(t.his)...)
	s.nums = append(s.nums, q(t.ints)...)
	s.nums = append(s.nums, q(t.decs)...)
	s.decs = append(s.decs, q(t.decs)...)
	s.dates = append(s.dates, q(t.dates)...)
	s.dates = append(s.dates, q(t.times)...)
}

// filter is one of t's predicates under alias a.
func (g *gen) filter(t *table, a string) string {
	return strings.ReplaceAll(pick(g, t.filters), "$", a)
}

// source picks a FROM clause: hits (alone or joined to a per-user derived
// table of hits) or a TPC-H join.
func (g *gen) source() source {
	if g.chance(0.5) {
		return g.hitsSource()
	}
	return g.tpchSource(1 + g.intn(6))
}

func (g *gen) hitsSource() source {
	g.tabs["hits"] = true
	a := g.newAlias("h")
	s := source{from: "hits " + a, refs: []ref{{hits, a}}, ids: []string{a + ".WatchID"}, hits: true}
	s.add(ref{hits, a})
	if g.chance(0.3) {
		// hits joined to users of hits: a self-join by UserID through a
		// derived table with one row per user, so the join keeps at most
		// the rows of hits.
		u := g.newAlias("u")
		g.feat("join", "derived", "hits-self-join")
		inner := g.newAlias("x")
		if g.chance(0.5) {
			g.feat("distinct")
			s.from += fmt.Sprintf(" JOIN (SELECT DISTINCT %s.UserID FROM hits %s WHERE %s) %s ON %s.UserID = %s.UserID",
				inner, inner, g.filter(hits, inner), u, a, u)
		} else {
			join := "JOIN"
			if g.chance(0.4) {
				join = "LEFT JOIN"
				g.feat("left-join")
			}
			having := ""
			if g.chance(0.5) {
				g.feat("having")
				having = fmt.Sprintf(" HAVING COUNT(*) > %d", 1+g.intn(4))
			}
			s.from += fmt.Sprintf(" %s (SELECT %s.UserID, COUNT(*) AS uc, MAX(%s.%s) AS um FROM hits %s WHERE %s GROUP BY %s.UserID%s) %s ON %s.UserID = %s.UserID",
				join, inner, inner, pick(g, hits.ints), inner, g.filter(hits, inner), inner, having, u, a, u)
			s.nums = append(s.nums, u+".uc", u+".um")
		}
	}
	return s
}

// tpchSource joins up to n TPC-H tables: a fact table and parents of the
// tables already in (foreign key to primary key), each joined on every
// key it shares with them, so the join never holds more rows than the
// fact table. Parents may come filtered in a derived table or by a LEFT
// JOIN with a condition; a child table may be attached aggregated per
// key.
func (g *gen) tpchSource(n int) source {
	root := pick(g, []string{"lineitem", "lineitem", "orders", "orders", "partsupp", "customer", "supplier", "part"})
	var s source
	in := map[string]string{} // table name -> alias
	rt := tpchTable(root)
	a := g.newAlias(root[:1])
	in[root] = a
	g.tabs[root] = true
	if g.chance(0.12) && len(rt.parents) > 0 {
		// A SELECT DISTINCT input: the foreign keys and dimensions of the
		// fact, each distinct combination once.
		g.feat("distinct", "derived")
		cols := []string{}
		for _, f := range rt.parents {
			for _, c := range f.cols {
				if !slices.Contains(cols, c[0]) {
					cols = append(cols, c[0])
				}
			}
		}
		dims := slices.Clone(rt.dims)
		g.rng.Shuffle(len(dims), func(i, j int) { dims[i], dims[j] = dims[j], dims[i] })
		if len(dims) > 0 {
			dims = dims[:1+g.intn(len(dims))]
		}
		for _, d := range dims {
			if !slices.Contains(cols, d) {
				cols = append(cols, d)
			}
		}
		x := g.newAlias("x")
		s.from = fmt.Sprintf("(SELECT DISTINCT %s FROM %s %s WHERE %s) %s", qualify(x, cols), root, x, g.filter(rt, x), a)
		dt := &table{name: root}
		for _, c := range cols {
			if slices.Contains(rt.dims, c) {
				dt.dims = append(dt.dims, c)
			} else {
				dt.his = append(dt.his, c)
			}
		}
		dt.parents = rt.parents
		s.add(ref{dt, a})
		s.ids = strings.Split(qualify(a, cols), ", ")
		rt = dt
		if g.keyless == nil {
			g.keyless = map[string]bool{}
		}
		g.keyless[root] = true
	} else {
		s.from = root + " " + a
		s.refs = append(s.refs, ref{rt, a})
		s.add(ref{rt, a})
		s.ids = strings.Split(qualify(a, rt.ids), ", ")
	}
	tables := map[string]*table{root: rt}
	for len(in) < n {
		// Candidate parents of the tables in.
		var cands []string
		for name := range in {
			for _, f := range tables[name].parents {
				if _, ok := in[f.parent]; !ok && !slices.Contains(cands, f.parent) {
					cands = append(cands, f.parent)
				}
			}
		}
		if len(cands) == 0 {
			break
		}
		sort.Strings(cands)
		p := pick(g, cands)
		pt := tpchTable(p)
		pa := g.newAlias(p[:1])
		var on []string
		for name, al := range in {
			for _, f := range tables[name].parents {
				if f.parent == p {
					for _, c := range f.cols {
						on = append(on, fmt.Sprintf("%s.%s = %s.%s", al, c[0], pa, c[1]))
					}
				}
			}
		}
		sort.Strings(on)
		g.feat("join")
		switch r := g.intn(10); {
		case r < 6:
			s.from += fmt.Sprintf(" JOIN %s %s ON %s", p, pa, strings.Join(on, " AND "))
			s.refs = append(s.refs, ref{pt, pa})
		case r < 8:
			// LEFT JOIN with a filter in ON: rows of parents that fail
			// it come back as NULLs.
			g.feat("left-join")
			on = append(on, g.filter(pt, pa))
			s.from += fmt.Sprintf(" LEFT JOIN %s %s ON %s", p, pa, strings.Join(on, " AND "))
		default:
			g.feat("derived")
			x := g.newAlias("x")
			s.from += fmt.Sprintf(" JOIN (SELECT %s FROM %s %s WHERE %s) %s ON %s", qualify(x, columnsOf(pt)), p, x, g.filter(pt, x), pa, strings.Join(on, " AND "))
		}
		s.add(ref{pt, pa})
		in[p] = pa
		tables[p] = pt
		g.tabs[p] = true
	}
	if len(in) >= 3 {
		g.feat("tpch-join-3+")
	}
	if g.chance(0.25) {
		g.attachChildAggregate(&s, in)
	}
	return s
}

// attachChildAggregate LEFT JOINs a child table aggregated per foreign
// key to the table it references (one row per key, NULLs where the
// parent has no children).
func (g *gen) attachChildAggregate(s *source, in map[string]string) {
	var names []string
	for name := range in {
		// A child joins its parent on the parent's key, which a
		// DISTINCT input of the parent does not have.
		if len(children(name)) > 0 && !g.keyless[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	p := pick(g, names)
	var cs []childFK
	for _, c := range children(p) {
		if _, ok := in[c.child.name]; !ok {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	c := pick(g, cs)
	x, a := g.newAlias("x"), g.newAlias("ca")
	nums := append(slices.Clone(c.child.ints), c.child.decs...)
	m := "1"
	if len(nums) > 0 {
		m = x + "." + pick(g, nums)
	}
	join := "JOIN"
	if g.chance(0.6) {
		join = "LEFT JOIN"
		g.feat("left-join")
	}
	g.feat("join", "derived")
	g.tabs[c.child.name] = true
	s.from += fmt.Sprintf(" %s (SELECT %s.%s AS ck, COUNT(*) AS cn, SUM(%s) AS cs FROM %s %s WHERE %s GROUP BY %s.%s) %s ON %s.ck = %s.%s",
		join, x, c.childCol, m, c.child.name, x, g.filter(c.child, x), x, c.childCol, a, a, in[p], c.pkCol)
	s.nums = append(s.nums, a+".cn", a+".cs")
}

func columnsOf(t *table) []string {
	var out []string
	for _, cs := range [][]string{t.ids, t.dims, t.his, t.ints, t.decs, t.dates, t.times} {
		for _, c := range cs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	for _, f := range t.parents {
		for _, c := range f.cols {
			if !slices.Contains(out, c[0]) {
				out = append(out, c[0])
			}
		}
	}
	return out
}

func qualify(a string, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = a + "." + c
	}
	return strings.Join(out, ", ")
}

// where is the source's conditions plus up to two filters of its tables
// and, sometimes, a subquery predicate.
func (g *gen) where(s source) string {
	conds := slices.Clone(s.where)
	for i := g.intn(3); i > 0 && len(s.refs) > 0; i-- {
		r := pick(g, s.refs)
		c := g.filter(r.t, r.alias)
		if !slices.Contains(conds, c) {
			conds = append(conds, c)
		}
	}
	if len(s.refs) > 0 && g.chance(0.35) {
		conds = append(conds, g.subqueryPred(pick(g, s.refs)))
	}
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// subqueryPred is an IN, NOT IN, EXISTS, NOT EXISTS or scalar subquery
// predicate on a base table of the FROM clause.
func (g *gen) subqueryPred(r ref) string {
	x := g.newAlias("s")
	if r.t == hits {
		g.tabs["hits"] = true
		f := g.filter(hits, x)
		switch g.intn(6) {
		case 0:
			g.feat("in")
			return fmt.Sprintf("%s.UserID IN (SELECT %s.UserID FROM hits %s WHERE %s)", r.alias, x, x, f)
		case 1:
			g.feat("not-in")
			return fmt.Sprintf("%s.CounterID NOT IN (SELECT %s.CounterID FROM hits %s WHERE %s AND %s)", r.alias, x, x, f, g.filter(hits, x))
		case 2:
			g.feat("exists", "correlated")
			return fmt.Sprintf("EXISTS (SELECT 1 FROM hits %s WHERE %s.UserID = %s.UserID AND %s.WatchID <> %s.WatchID AND %s)", x, x, r.alias, x, r.alias, f)
		case 3:
			g.feat("not-exists", "correlated")
			return fmt.Sprintf("NOT EXISTS (SELECT 1 FROM hits %s WHERE %s.UserID = %s.UserID AND %s)", x, x, r.alias, f)
		case 4:
			g.feat("scalar-subquery", "correlated")
			m := pick(g, hits.ints)
			return fmt.Sprintf("%s.%s > (SELECT AVG(%s.%s) FROM hits %s WHERE %s.%s = %s.%s)", r.alias, m, x, m, x, x, "CounterID", r.alias, "CounterID")
		default:
			g.feat("scalar-subquery")
			m := pick(g, hits.ints)
			return fmt.Sprintf("%s.%s >= (SELECT AVG(%s.%s) FROM hits %s WHERE %s)", r.alias, m, x, m, x, f)
		}
	}
	// TPC-H: through a child table's foreign key to this table's key, a
	// parent's key, or the table's own numbers.
	cs := children(r.t.name)
	if len(cs) > 0 && g.chance(0.6) {
		c := pick(g, cs)
		g.tabs[c.child.name] = true
		f := g.filter(c.child, x)
		switch g.intn(4) {
		case 0:
			g.feat("in")
			return fmt.Sprintf("%s.%s IN (SELECT %s.%s FROM %s %s WHERE %s)", r.alias, c.pkCol, x, c.childCol, c.child.name, x, f)
		case 1:
			g.feat("not-in")
			return fmt.Sprintf("%s.%s NOT IN (SELECT %s.%s FROM %s %s WHERE %s)", r.alias, c.pkCol, x, c.childCol, c.child.name, x, f)
		case 2:
			g.feat("exists", "correlated")
			return fmt.Sprintf("EXISTS (SELECT 1 FROM %s %s WHERE %s.%s = %s.%s AND %s)", c.child.name, x, x, c.childCol, r.alias, c.pkCol, f)
		default:
			g.feat("not-exists", "correlated")
			return fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s %s WHERE %s.%s = %s.%s AND %s)", c.child.name, x, x, c.childCol, r.alias, c.pkCol, f)
		}
	}
	if len(r.t.parents) > 0 && g.chance(0.5) {
		p := pick(g, r.t.parents)
		pt := tpchTable(p.parent)
		g.tabs[pt.name] = true
		g.feat("in")
		var l, rr []string
		for _, c := range p.cols {
			l = append(l, r.alias+"."+c[0])
			rr = append(rr, x+"."+c[1])
		}
		if len(l) > 1 {
			// Row values: gsql takes (a, b) IN (SELECT c, d ...), DuckDB
			// 1.1 does not ("Subquery returns 2 columns - expected 1"):
			// its text says EXISTS, the same over these non-NULL keys.
			f := g.filter(pt, x)
			text := fmt.Sprintf("(%s) IN (SELECT %s FROM %s %s WHERE %s)", strings.Join(l, ", "), strings.Join(rr, ", "), pt.name, x, f)
			var eqs []string
			for i := range l {
				eqs = append(eqs, rr[i]+" = "+l[i])
			}
			g.duck = append(g.duck, [2]string{text, fmt.Sprintf("EXISTS (SELECT 1 FROM %s %s WHERE %s AND %s)", pt.name, x, strings.Join(eqs, " AND "), f)})
			return text
		}
		return fmt.Sprintf("%s IN (SELECT %s FROM %s %s WHERE %s)", l[0], rr[0], pt.name, x, g.filter(pt, x))
	}
	nums := append(slices.Clone(r.t.ints), r.t.decs...)
	if len(nums) == 0 {
		g.feat("exists")
		return fmt.Sprintf("EXISTS (SELECT 1 FROM %s %s WHERE %s)", r.t.name, x, g.filter(r.t, x))
	}
	m := pick(g, nums)
	g.feat("scalar-subquery")
	if len(r.t.dims) > 0 && g.chance(0.6) {
		g.feat("correlated")
		d := pick(g, r.t.dims)
		return fmt.Sprintf("%s.%s > (SELECT AVG(%s.%s) FROM %s %s WHERE %s.%s = %s.%s)", r.alias, m, x, m, r.t.name, x, x, d, r.alias, d)
	}
	return fmt.Sprintf("%s.%s < (SELECT AVG(%s.%s) FROM %s %s WHERE %s)", r.alias, m, x, m, r.t.name, x, g.filter(r.t, x))
}

// key is a GROUP BY or PARTITION BY expression: a dimension, a CASE
// bucket of a number, or a date bucket.
func (g *gen) key(s source, many bool) string {
	switch r := g.intn(10); {
	case r < 1 && len(s.nums) > 0:
		g.feat("case-key")
		m := pick(g, s.nums)
		return fmt.Sprintf("CASE WHEN %s < %d THEN 'low' WHEN %s < %d THEN 'mid' ELSE 'high' END", m, 1+g.intn(10), m, 20+g.intn(1000))
	case r < 3 && len(s.dates) > 0:
		g.feat("date-bucket")
		d := pick(g, s.dates)
		if strings.HasSuffix(d, "EventTime") && g.chance(0.5) {
			return fmt.Sprintf("EXTRACT(%s FROM %s)", pick(g, []string{"hour", "minute", "day"}), d)
		}
		if g.chance(0.5) {
			return fmt.Sprintf("DATE_TRUNC('%s', %s)", pick(g, []string{"month", "week", "day", "year", "quarter"}), d)
		}
		return fmt.Sprintf("EXTRACT(%s FROM %s)", pick(g, []string{"year", "month", "dow", "day", "quarter"}), d)
	case r < 4 && many && len(s.his) > 0:
		return pick(g, s.his)
	}
	if len(s.dims) == 0 {
		return pick(g, s.his)
	}
	return pick(g, s.dims)
}

// agg is an aggregate of the source's rows, and whether it is exact (an
// integer, so equal values are equal in every engine).
func (g *gen) agg(s source) (string, bool) {
	if len(s.nums) == 0 {
		return "COUNT(*)", true
	}
	m := pick(g, s.nums)
	exact := !slices.Contains(s.decs, m)
	switch g.intn(11) {
	case 0, 1:
		return "COUNT(*)", true
	case 2, 3:
		return "SUM(" + m + ")", true
	case 4:
		return "AVG(" + m + ")", false
	case 5:
		return "MIN(" + m + ")", true
	case 6:
		return "MAX(" + m + ")", true
	case 7:
		g.feat("count-distinct")
		if len(s.his) > 0 && g.chance(0.5) {
			return "COUNT(DISTINCT " + pick(g, s.his) + ")", true
		}
		return "COUNT(DISTINCT " + pick(g, slices.Concat(s.dims, s.his)) + ")", true
	case 8:
		g.feat("order-by-expr")
		return fmt.Sprintf("MAX(%s) - MIN(%s)", m, m), true
	case 9:
		g.feat("order-by-expr")
		return fmt.Sprintf("SUM(%s) * 2 + COUNT(*)", m), exact
	default:
		g.feat("order-by-expr")
		return fmt.Sprintf("SUM(CASE WHEN %s > %d THEN 1 ELSE 0 END)", m, g.intn(50)), true
	}
}

// grouped is a GROUP BY query over s: its keys, aggregates and text.
type grouped struct {
	text  string
	items []string // the select list
	tail  string   // FROM ... GROUP BY ... [HAVING ...]
	keys  []string // key expressions
	aggs  []string
	cols  []string // output names: k0.., a0..
}

func (g *gen) groupBy(s source, nkeys, naggs int, having bool) grouped {
	var gr grouped
	// Bounded tries: a source with few columns may offer fewer distinct
	// keys or aggregates than asked for.
	for try := 0; len(gr.keys) < nkeys && try < 20; try++ {
		k := g.key(s, nkeys == 1)
		if !slices.Contains(gr.keys, k) {
			gr.keys = append(gr.keys, k)
		} else if len(s.dims)+len(s.his) <= len(gr.keys) {
			break
		}
	}
	for try := 0; len(gr.aggs) < naggs && try < 20; try++ {
		a, _ := g.agg(s)
		if !slices.Contains(gr.aggs, a) {
			gr.aggs = append(gr.aggs, a)
		}
	}
	for i, k := range gr.keys {
		gr.cols = append(gr.cols, fmt.Sprintf("k%d", i))
		gr.items = append(gr.items, fmt.Sprintf("%s AS k%d", k, i))
	}
	for i, a := range gr.aggs {
		gr.cols = append(gr.cols, fmt.Sprintf("a%d", i))
		gr.items = append(gr.items, fmt.Sprintf("%s AS a%d", a, i))
	}
	gr.tail = fmt.Sprintf(" FROM %s%s GROUP BY %s", s.from, g.where(s), strings.Join(gr.keys, ", "))
	if having {
		g.feat("having")
		gr.tail += fmt.Sprintf(" HAVING COUNT(*) > %d", pick(g, []int{1, 2, 5, 10}))
	}
	gr.text = "SELECT " + strings.Join(gr.items, ", ") + gr.tail
	return gr
}

// aggregate is a top-k: GROUP BY keys, ordered by an aggregate or an
// expression of aggregates.
func (g *gen) aggregate(s source) stmt {
	g.feat("topk")
	gr := g.groupBy(s, 1+g.intn(2), 1+g.intn(3), g.chance(0.3))
	nk := len(gr.keys)
	ord := []orderKey{{nk + g.intn(len(gr.aggs)), g.chance(0.7)}}
	g.feat("order-by-agg")
	return stmt{text: gr.text, cols: gr.cols, order: ord, rowLevel: true}
}

// rowWindow is a window over base rows: ranks with a filter on the rank
// (top-n per group), LAG/LEAD, running sums and sliding frames.
func (g *gen) rowWindow() stmt {
	s := g.source()
	for len(s.nums) == 0 {
		s = g.source()
	}
	g.feat("window")
	part := g.key(s, false)
	m := pick(g, s.nums)
	// Window keys say where NULLs go: gsql (MySQL) puts them first
	// ascending, DuckDB last, and a frame over them differs.
	byID := nullsLast(s.ids)
	order := m + " DESC NULLS LAST, " + byID
	items := []string{part + " AS p", m + " AS m"}
	cols := []string{"p", "m"}
	for i, id := range s.ids {
		items = append(items, fmt.Sprintf("%s AS id%d", id, i))
		cols = append(cols, fmt.Sprintf("id%d", i))
	}
	mw := m
	if slices.Contains(s.decs, m) && g.chance(0.85) {
		// gsql has no SUM/AVG of a DECIMAL over a window yet; mostly use
		// a DOUBLE so that the query measures the window, sometimes keep
		// the DECIMAL so that the missing support stays in view.
		mw = "CAST(" + m + " AS DOUBLE)"
	}
	nw := 1 + g.intn(2)
	rankCol := ""
	for i := 0; i < nw; i++ {
		var w string
		switch g.intn(6) {
		case 0:
			g.feat("rank", "top-n-per-group")
			w = fmt.Sprintf("ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s)", part, order)
			rankCol = fmt.Sprintf("w%d", i)
		case 1:
			g.feat("rank", "top-n-per-group")
			w = fmt.Sprintf("%s() OVER (PARTITION BY %s ORDER BY %s DESC NULLS LAST)", pick(g, []string{"RANK", "DENSE_RANK"}), part, m)
			rankCol = fmt.Sprintf("w%d", i)
		case 2:
			g.feat("lag-lead")
			w = fmt.Sprintf("%s(%s, %d) OVER (PARTITION BY %s ORDER BY %s)", pick(g, []string{"LAG", "LEAD"}), m, 1+g.intn(3), part, byID)
		case 3:
			g.feat("running-sum")
			w = fmt.Sprintf("SUM(%s) OVER (PARTITION BY %s ORDER BY %s ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", mw, part, byID)
		case 4:
			g.feat("frame")
			w = fmt.Sprintf("%s(%s) OVER (PARTITION BY %s ORDER BY %s ROWS BETWEEN %d PRECEDING AND %d FOLLOWING)", pick(g, []string{"SUM", "AVG", "MIN", "MAX"}), mw, part, byID, 1+g.intn(5), g.intn(3))
		default:
			g.feat("frame")
			w = fmt.Sprintf("COUNT(*) OVER (PARTITION BY %s)", part)
		}
		items = append(items, fmt.Sprintf("%s AS w%d", w, i))
		cols = append(cols, fmt.Sprintf("w%d", i))
	}
	where := g.where(s)
	if rankCol == "" && g.chance(0.3) {
		g.feat("rank")
		items = append(items, fmt.Sprintf("ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn", part, order))
		cols = append(cols, "rn")
		rankCol = "rn"
	}
	inner := fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(items, ", "), s.from, where)
	if rankCol != "" {
		// Keep the first rows of each partition: the rank filter of a
		// top-n per group, over a derived table.
		g.feat("top-n-per-group", "derived")
		return stmt{text: fmt.Sprintf("SELECT %s FROM (%s) t WHERE t.%s <= %d", strings.Join(cols, ", "), inner, rankCol, 1+g.intn(5)),
			cols: cols, order: []orderKey{{0, false}, {slices.Index(cols, rankCol), false}}, rowLevel: true}
	}
	return stmt{text: inner, cols: cols, order: []orderKey{{len(cols) - 1, g.chance(0.5)}}, rowLevel: true}
}

// groupWindow is a window over GROUP BY results: ranks of an aggregate
// within a key (top-n per group), LAG/LEAD and running sums over groups.
func (g *gen) groupWindow() stmt {
	s := g.source()
	g.feat("window", "window-over-groups")
	gr := g.groupBy(s, 2, 1+g.intn(2), g.chance(0.2))
	// Window functions of the grouped rows: partition by the first key,
	// order by the aggregate (ties broken by the second key).
	a0 := gr.aggs[0]
	k0, k1 := gr.keys[0], gr.keys[len(gr.keys)-1]
	if len(gr.keys) < 2 {
		k1 = k0
	}
	var ws []string
	rankIdx := -1
	for i := 0; i < 1+g.intn(2); i++ {
		var w string
		switch g.intn(5) {
		case 0:
			g.feat("rank")
			w = fmt.Sprintf("ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s DESC NULLS LAST, %s NULLS LAST)", k0, a0, k1)
			rankIdx = i
		case 1:
			g.feat("rank")
			w = fmt.Sprintf("RANK() OVER (PARTITION BY %s ORDER BY %s DESC NULLS LAST)", k0, a0)
			rankIdx = i
		case 2:
			g.feat("lag-lead")
			w = fmt.Sprintf("%s(%s) OVER (PARTITION BY %s ORDER BY %s NULLS LAST)", pick(g, []string{"LAG", "LEAD"}), a0, k0, k1)
		case 3:
			g.feat("running-sum")
			w = fmt.Sprintf("SUM(COUNT(*)) OVER (PARTITION BY %s ORDER BY %s NULLS LAST ROWS UNBOUNDED PRECEDING)", k0, k1)
		default:
			g.feat("frame")
			w = fmt.Sprintf("MAX(COUNT(*)) OVER (PARTITION BY %s ORDER BY %s NULLS LAST ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)", k0, k1)
		}
		ws = append(ws, w)
	}
	items := slices.Clone(gr.items)
	cols := slices.Clone(gr.cols)
	for i, w := range ws {
		items = append(items, fmt.Sprintf("%s AS w%d", w, i))
		cols = append(cols, fmt.Sprintf("w%d", i))
	}
	text := "SELECT " + strings.Join(items, ", ") + gr.tail
	if rankIdx >= 0 && g.chance(0.8) {
		g.feat("top-n-per-group", "derived")
		text = fmt.Sprintf("SELECT %s FROM (%s) t WHERE t.w%d <= %d", strings.Join(cols, ", "), text, rankIdx, 1+g.intn(3))
	}
	return stmt{text: text, cols: cols, order: []orderKey{{0, false}, {len(gr.keys), true}}, rowLevel: true}
}

// scalarList selects keys with a correlated scalar subquery per row: a
// count of children per TPC-H key, or a per-counter statistic of hits
// over grouped hits.
func (g *gen) scalarList() stmt {
	g.feat("scalar-subquery", "correlated")
	x := g.newAlias("s")
	if g.chance(0.4) {
		g.tabs["hits"] = true
		g.feat("derived")
		a := g.newAlias("g")
		k := pick(g, []string{"CounterID", "RegionID", "OS", "SearchEngineID"})
		m := pick(g, hits.ints)
		h := g.newAlias("h")
		f := g.filter(hits, h)
		sub := fmt.Sprintf("(SELECT %s(%s.%s) FROM hits %s WHERE %s.%s = %s.k AND %s)",
			pick(g, []string{"COUNT", "MAX", "SUM"}), x, m, x, x, k, a, g.filter(hits, x))
		if g.chance(0.3) {
			g.feat("count-distinct")
			sub = fmt.Sprintf("(SELECT COUNT(DISTINCT %s.UserID) FROM hits %s WHERE %s.%s = %s.k AND %s)", x, x, x, k, a, g.filter(hits, x))
		}
		text := fmt.Sprintf("SELECT %s.k, %s.c, %s AS sq FROM (SELECT %s.%s AS k, COUNT(*) AS c FROM hits %s WHERE %s GROUP BY %s.%s) %s",
			a, a, sub, h, k, h, f, h, k, a)
		return stmt{text: text, cols: []string{"k", "c", "sq"}, order: []orderKey{{2, g.chance(0.7)}}, rowLevel: true}
	}
	var parents []string
	for _, t := range tpchTables {
		if len(children(t.name)) > 0 && t.name != "region" {
			parents = append(parents, t.name)
		}
	}
	pt := tpchTable(pick(g, parents))
	c := pick(g, children(pt.name))
	g.tabs[pt.name], g.tabs[c.child.name] = true, true
	a := g.newAlias(pt.name[:1])
	src := source{from: pt.name + " " + a, refs: []ref{{pt, a}}}
	agg := "COUNT(*)"
	nums := append(slices.Clone(c.child.ints), c.child.decs...)
	if len(nums) > 0 && g.chance(0.5) {
		agg = fmt.Sprintf("%s(%s.%s)", pick(g, []string{"SUM", "MAX", "MIN"}), x, pick(g, nums))
	}
	sub := fmt.Sprintf("(SELECT %s FROM %s %s WHERE %s.%s = %s.%s AND %s)", agg, c.child.name, x, x, c.childCol, a, c.pkCol, g.filter(c.child, x))
	cols := []string{"id", "sq"}
	items := []string{fmt.Sprintf("%s.%s AS id", a, c.pkCol), sub + " AS sq"}
	if len(pt.dims) > 0 {
		items = append(items, fmt.Sprintf("%s.%s AS d", a, pick(g, pt.dims)))
		cols = append(cols, "d")
	}
	text := fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(items, ", "), src.from, g.where(src))
	return stmt{text: text, cols: cols, order: []orderKey{{1, g.chance(0.7)}}, rowLevel: true}
}

// withCTE wraps a GROUP BY in a CTE read once (filtered, ranked or
// joined to a dimension) or twice (against its own average, or joined to
// its per-key maximum: the arg-max of each group).
func (g *gen) withCTE() stmt {
	s := g.source()
	g.feat("cte")
	gr := g.groupBy(s, 2, 1+g.intn(2), g.chance(0.2))
	head := "WITH c AS (" + gr.text + ") "
	cols := gr.cols
	list := strings.Join(cols, ", ")
	if len(gr.keys) < 2 {
		// Too few keys for the shapes below: the CTE read once.
		return stmt{text: head + "SELECT " + list + " FROM c", cols: cols, order: []orderKey{{len(gr.keys), true}}, rowLevel: true}
	}
	switch g.intn(4) {
	case 0:
		// Top-n per first key over the grouped rows (the shape (a)).
		g.feat("window", "window-over-groups", "rank", "top-n-per-group")
		n := 1 + g.intn(3)
		text := head + fmt.Sprintf("SELECT %s, rn FROM (SELECT %s, ROW_NUMBER() OVER (PARTITION BY k0 ORDER BY a0 DESC NULLS LAST, k1 NULLS LAST) AS rn FROM c) t WHERE rn <= %d", list, list, n)
		return stmt{text: text, cols: append(slices.Clone(cols), "rn"), order: []orderKey{{0, false}, {len(cols), false}}, rowLevel: true}
	case 1:
		g.feat("cte-twice", "scalar-subquery")
		text := head + fmt.Sprintf("SELECT %s FROM c WHERE a0 > (SELECT AVG(a0) FROM c)", list)
		return stmt{text: text, cols: cols, order: []orderKey{{2, true}}, rowLevel: true}
	case 2:
		g.feat("cte-twice", "join", "derived")
		var qs []string
		for _, c := range cols {
			qs = append(qs, "c."+c)
		}
		text := head + fmt.Sprintf("SELECT %s FROM c JOIN (SELECT k0, MAX(a0) AS mx FROM c GROUP BY k0) m ON c.k0 = m.k0 AND c.a0 = m.mx", strings.Join(qs, ", "))
		return stmt{text: text, cols: cols, order: []orderKey{{2, true}}, rowLevel: true}
	default:
		g.feat("cte-twice", "in")
		text := head + fmt.Sprintf("SELECT %s FROM c WHERE k0 IN (SELECT k0 FROM (SELECT k0 FROM c GROUP BY k0 ORDER BY COUNT(*) DESC, k0 LIMIT %d) t)", list, 1+g.intn(5))
		return stmt{text: text, cols: cols, order: []orderKey{{2, true}}, rowLevel: true}
	}
}

// keyPairs are columns of the same values in two tables, for set
// operations.
var keyPairs = [][2][2]string{
	{{"hits", "UserID"}, {"hits", "UserID"}},
	{{"hits", "CounterID"}, {"hits", "CounterID"}},
	{{"hits", "RegionID"}, {"hits", "RegionID"}},
	{{"customer", "c_custkey"}, {"orders", "o_custkey"}},
	{{"part", "p_partkey"}, {"lineitem", "l_partkey"}},
	{{"partsupp", "ps_suppkey"}, {"lineitem", "l_suppkey"}},
	{{"supplier", "s_nationkey"}, {"customer", "c_nationkey"}},
	{{"orders", "o_orderkey"}, {"lineitem", "l_orderkey"}},
}

func tableOf(name string) *table {
	if name == "hits" {
		return hits
	}
	return tpchTable(name)
}

// setOp is a UNION, UNION ALL or INTERSECT of keys of two filtered
// tables (listed, or counted in an outer query), or a UNION ALL of two
// grouped branches.
func (g *gen) setOp() stmt {
	if g.chance(0.3) {
		// Two grouped branches of one table under different filters.
		g.feat("union")
		s := g.source()
		k := g.key(s, false)
		m := "COUNT(*)"
		if len(s.nums) > 0 && g.chance(0.5) {
			m = "SUM(" + pick(g, s.nums) + ")"
		}
		b := func(tag string) string {
			return fmt.Sprintf("SELECT '%s' AS tag, %s AS k, %s AS v FROM %s%s GROUP BY %s", tag, k, m, s.from, g.where(s), k)
		}
		return stmt{text: b("a") + " UNION ALL " + b("b"), cols: []string{"tag", "k", "v"}, order: []orderKey{{2, true}}, rowLevel: true}
	}
	p := pick(g, keyPairs)
	op := pick(g, []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT"})
	if strings.HasPrefix(op, "UNION") {
		g.feat("union")
	} else {
		g.feat("intersect")
	}
	branch := func(tc [2]string) string {
		t := tableOf(tc[0])
		g.tabs[t.name] = true
		a := g.newAlias("b")
		return fmt.Sprintf("SELECT %s.%s AS k FROM %s %s WHERE %s", a, tc[1], t.name, a, g.filter(t, a))
	}
	body := branch(p[0]) + " " + op + " " + branch(p[1])
	if g.chance(0.5) {
		return stmt{text: fmt.Sprintf("SELECT COUNT(*) AS n, MIN(k) AS lo, MAX(k) AS hi FROM (%s) t", body), cols: []string{"n", "lo", "hi"}}
	}
	return stmt{text: body, cols: []string{"k"}, order: []orderKey{{0, g.chance(0.5)}}, rowLevel: true}
}

// nullsLast joins ORDER BY items, each with NULLS LAST.
func nullsLast(items []string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it + " NULLS LAST"
	}
	return strings.Join(out, ", ")
}
