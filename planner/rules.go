package planner

import (
	"fmt"
	"strings"
)

// The optimizer is this list of named rules, run in order over every bound
// plan (and over each subquery's plan, which the binder plans and runs on
// its own). Each rule rewrites the plan into one that gives the same rows,
// and lives in its own file, rule_<name>.go, whose first comment is a
// worked example. A rule can be switched off by name, per database
// (gsql.Options.DisabledRules) or per session (SET disabled_rules =
// 'a,b'), so that a wrong answer can be bisected to the rule that caused
// it; EXPLAIN's last line names the rules that changed the plan.
//
// The logical rules run right after binding, on plans with every operator
// on the CPU. The placement rules run when the database places the plan
// on its devices (Placed), and only where the rule says.
//
// To add a rule: write rule_<name>.go (the example first, then the
// function), add an entry here at the place where what it needs is true
// (filters already pushed down, join order chosen...), and a test in
// rules_test.go's table.
var pipeline = []Rule{
	// Logical rules.
	{Name: "dependent_group_keys", Purpose: "group by key columns alone when other keys are arithmetic over them (ClickBench Q36)",
		apply: DependentGroupKeys},
	{Name: "sum_plus_const", Purpose: "SUM(x + c) as SUM(x) + c * COUNT(x), so sums over one column share two aggregates (ClickBench Q30)",
		apply: SumPlusConst},
	{Name: "fold_constants", Purpose: "evaluate constant expressions once and drop filters that are always true",
		apply: FoldConstants},
	{Name: "factor_ors", Purpose: "(A AND B) OR (A AND C) as A AND (B OR C), so that A can become a join key (TPC-H Q19)",
		apply: infallible(FactorOrs)},
	{Name: "outer_to_inner", Purpose: "a LEFT join under a predicate that no NULL-padded row passes as an inner join, free to be reordered",
		apply: infallible(OuterToInner)},
	// Filters go down first so that join ordering sees them on the
	// leaves (also those above an outer join), and again over the new
	// order.
	{Name: "push_filters", Purpose: "move filters into joins: one side's predicates below it, equalities as hash keys",
		apply: infallible(PushFilters)},
	{Name: "push_semi_joins", Purpose: "move semi and anti joins (IN, EXISTS) below the joins under them, onto the input whose columns they test (TPC-H Q18)",
		apply: infallible(PushSemiJoins)},
	{Name: "reorder_joins", Purpose: "order each tree of inner joins by estimated cost (dynamic programming, greedy above 12 inputs)",
		apply: infallible(ReorderJoins)},
	{Name: "push_filters", Purpose: "push the filters of the new join order down again",
		apply: infallible(PushFilters)},
	{Name: "reduce_grouped_joins", Purpose: "a semi join below a grouped join's aggregate, so it groups only rows that can match (TPC-H Q17)",
		apply: infallible(ReduceGroupedJoins)},
	{Name: "semi_join_bounds", Purpose: "a semi or anti join whose residual compares one right-side value with the left side as a join with that value's MIN/MAX per key: one row per key, whatever the key's skew",
		apply: infallible(SemiJoinBounds)},
	{Name: "distinct_as_group_by", Purpose: "SELECT DISTINCT as a GROUP BY of its columns: the parallel, device and spilling grouping path",
		apply: infallible(DistinctAsGroupBy)},
	{Name: "setops_as_group_by", Purpose: "INTERSECT and EXCEPT as a GROUP BY over both inputs, keeping groups by the sides they came from",
		apply: infallible(SetOpsAsGroupBy)},
	{Name: "prune_columns", Purpose: "make every scan read only the columns used above it, and drop LEFT joins that add no rows and whose right columns nothing reads",
		apply: infallible(PruneColumns)},

	// Placement rules.
	{Name: "place_by_cost", Purpose: "in auto mode, keep each subtree whose estimated rows cost the CPU less than its operators' launches cost the GPU on the CPU, whole (issue 39)",
		Placement: true, Auto: true, applyOptions: func(n Node, o RuleOptions) Node {
			return PlaceByCost(n, CostOptions{MinRows: o.AutoMinRows})
		}},
	{Name: "pre_aggregate_joins", Purpose: "count a left join's right side per join key below the join (host plans only; TPC-H Q13)",
		Placement: true, HostOnly: true, apply: infallible(PreAggregateJoins)},

	// Device rules: over the placed plan, when several GPUs are open.
	{Name: "place_exchanges", Purpose: "spread a device plan over every open GPU: tables by row groups, exchanges (repartition, broadcast, gather) where rows must meet",
		Devices: true, applyDevices: func(n Node, o RuleOptions) Node {
			return PlaceExchanges(n, ExchangeOptions{Devices: o.Devices, SpreadRows: o.SpreadRows})
		}},
}

// Rule is one named rewrite of the pipeline.
type Rule struct {
	// Name is the rule's snake_case name, as SET disabled_rules and
	// EXPLAIN spell it.
	Name string
	// Purpose says in one line what the rule does.
	Purpose string
	// Placement marks the rules that run at placement, after the logical
	// ones; HostOnly ones only on plans that stay on the CPU.
	Placement, HostOnly bool
	apply               func(Node) (Node, error)
	// Auto marks the placement rules that run only on device plans in
	// auto mode (RuleOptions.AutoMinRows set), through applyOptions.
	Auto         bool
	applyOptions func(Node, RuleOptions) Node
	// Devices marks the rules that run over the placed plan of a
	// database with several GPUs (Distribute).
	Devices      bool
	applyDevices func(Node, RuleOptions) Node
}

// infallible adapts a rewrite that cannot fail.
func infallible(f func(Node) Node) func(Node) (Node, error) {
	return func(n Node) (Node, error) { return f(n), nil }
}

// Rules returns the pipeline in order; a rule that runs twice is listed
// twice.
func Rules() []Rule { return append([]Rule(nil), pipeline...) }

// RuleNames lists the rules' names in pipeline order, each once.
func RuleNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range pipeline {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	return out
}

// ruleBit numbers the rule names for RuleSet (a name has one bit, also
// when the rule runs twice).
var ruleBit = func() map[string]uint {
	m := map[string]uint{}
	for _, n := range RuleNames() {
		m[n] = uint(len(m))
	}
	return m
}()

// RuleSet is a set of rule names, a bit per name. It is comparable, so
// that the plan cache keys on the disabled rules.
type RuleSet uint64

// ParseRules reads a comma-separated list of rule names (spaces around a
// name and empty items are ignored; "" is the empty set). An unknown name
// is an *Error whose Object is the name.
func ParseRules(list string) (RuleSet, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return RuleSetOf(names)
}

// RuleSetOf makes the set of the named rules (names are matched without
// regard to case).
func RuleSetOf(names []string) (RuleSet, error) {
	var s RuleSet
	for _, n := range names {
		bit, ok := ruleBit[strings.ToLower(strings.TrimSpace(n))]
		if !ok {
			return 0, errorf(UnknownRule, n, "unknown rule %q (the rules: %s)", n, strings.Join(RuleNames(), ", "))
		}
		s |= 1 << bit
	}
	return s, nil
}

// Has reports whether the set holds the named rule.
func (s RuleSet) Has(name string) bool {
	bit, ok := ruleBit[name]
	return ok && s&(1<<bit) != 0
}

// Names lists the set's rules in pipeline order.
func (s RuleSet) Names() []string {
	var out []string
	for _, n := range RuleNames() {
		if s.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

// String is the set as SET disabled_rules takes it.
func (s RuleSet) String() string { return strings.Join(s.Names(), ",") }

// RuleOptions say how the rules run for one statement.
type RuleOptions struct {
	// Disabled are the rules that do not run.
	Disabled RuleSet
	// Trace, when set, records what each rule did (for EXPLAIN); nil
	// records nothing and costs nothing.
	Trace *RuleTrace
	// Devices is the number of GPUs a placed plan may spread over (the
	// device rules run from 2); SpreadRows is the table size from which
	// a table is spread rather than replicated (0: DefaultSpreadRows).
	Devices    int
	SpreadRows int64
	// AutoMinRows is, in auto mode on a device plan, the rows of CPU
	// work the GPU's fixed cost per query buys (Options.AutoGPUMinRows):
	// the auto rules (place_by_cost) run when it is positive.
	AutoMinRows int64
}

// RuleState is what one entry of the pipeline did to a statement's plan.
type RuleState uint8

const (
	// RuleNotRun: the rule has not run (a placement rule before
	// placement).
	RuleNotRun RuleState = iota
	// RuleNoChange: the rule ran and left the plan as it was.
	RuleNoChange
	// RuleFired: the rule changed the plan.
	RuleFired
	// RuleDisabled: the rule is switched off.
	RuleDisabled
	// RuleSkipped: a host-only rule on a plan placed on the GPU.
	RuleSkipped
)

func (s RuleState) String() string {
	switch s {
	case RuleNoChange:
		return "no change"
	case RuleFired:
		return "fired"
	case RuleDisabled:
		return "disabled"
	case RuleSkipped:
		return "skipped (device plan)"
	}
	return "not run"
}

// RuleTrace records what each entry of the pipeline did to one
// statement's plans: its main plan and the subqueries planned with it (a
// rule that changed any of them counts as fired).
type RuleTrace struct {
	states []RuleState // by pipeline entry
}

func (t *RuleTrace) record(i int, s RuleState) {
	if t == nil {
		return
	}
	if t.states == nil {
		t.states = make([]RuleState, len(pipeline))
	}
	if t.states[i] != RuleFired {
		t.states[i] = s
	}
}

// State is what pipeline entry i (an index into Rules()) did.
func (t *RuleTrace) State(i int) RuleState {
	if t == nil || t.states == nil {
		return RuleNotRun
	}
	return t.states[i]
}

// Fired lists the rules that changed the plan, in pipeline order, each
// name once.
func (t *RuleTrace) Fired() []string {
	var out []string
	seen := map[string]bool{}
	for i, r := range pipeline {
		if t.State(i) == RuleFired && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	return out
}

// Lines renders the trace for EXPLAIN: with verbose, a line per pipeline
// entry with its state; always, last, the line naming the rules that fired
// ("rules: none" when none did).
func (t *RuleTrace) Lines(verbose bool) []string {
	var out []string
	if verbose {
		for i, r := range pipeline {
			out = append(out, fmt.Sprintf("rule %d %s: %s", i+1, r.Name, t.State(i)))
		}
	}
	fired := t.Fired()
	if len(fired) == 0 {
		return append(out, "rules: none")
	}
	return append(out, "rules: "+strings.Join(fired, ", "))
}

// optimize runs the logical rules over a bound plan.
func optimize(n Node, o RuleOptions) (Node, error) {
	return runRules(n, o, false, true)
}

// Placed runs the placement rules over a plan about to be placed; host
// says whether it stays on the CPU (the database uses no GPU). In auto
// mode (o.AutoMinRows) place_by_cost may keep the whole plan on the CPU:
// HostByCost says so of the plan returned.
func Placed(n Node, o RuleOptions, host bool) (Node, error) {
	return runRules(n, o, true, host)
}

// runRules runs the rules of one phase in order. With a trace, a rule
// changed the plan when the plan's EXPLAIN text changed.
func runRules(n Node, o RuleOptions, placement, host bool) (Node, error) {
	var before string
	if o.Trace != nil {
		before = fingerprint(n)
	}
	for i, r := range pipeline {
		if r.Placement != placement || r.Devices {
			continue
		}
		if o.Disabled.Has(r.Name) {
			o.Trace.record(i, RuleDisabled)
			continue
		}
		if r.HostOnly && !host {
			o.Trace.record(i, RuleSkipped)
			continue
		}
		if r.Auto && (host || o.AutoMinRows <= 0) {
			continue
		}
		if r.Auto {
			n = r.applyOptions(n, o)
			// A plan kept on the CPU whole is a host plan for the
			// rules after it.
			host = HostByCost(n)
		} else {
			out, err := r.apply(n)
			if err != nil {
				// The statement's error as it was (FoldConstants finds
				// overflows): not wrapped, so that messages stay the same.
				return nil, err
			}
			n = out
		}
		if o.Trace != nil {
			after := fingerprint(n)
			state := RuleNoChange
			if after != before {
				state = RuleFired
			}
			o.Trace.record(i, state)
			before = after
		}
	}
	return n, nil
}

// Distribute runs the device rules over a placed plan (planner.Place's
// output) when o.Devices is 2 or more.
func Distribute(n Node, o RuleOptions) Node {
	for i, r := range pipeline {
		if !r.Devices || o.Devices < 2 {
			continue
		}
		if o.Disabled.Has(r.Name) {
			o.Trace.record(i, RuleDisabled)
			continue
		}
		var before string
		if o.Trace != nil {
			before = fingerprint(n)
		}
		n = r.applyDevices(n, o)
		if o.Trace != nil {
			state := RuleNoChange
			if fingerprint(n) != before {
				state = RuleFired
			}
			o.Trace.record(i, state)
		}
	}
	return n
}

// fingerprint is a plan's EXPLAIN text: what "changed the plan" means.
func fingerprint(n Node) string { return strings.Join(explainLines(n, 0), "\n") }

// mapInputs rewrites every input of n with f.
func mapInputs(n Node, f func(Node) (Node, error)) (Node, error) {
	ins := n.Inputs()
	if len(ins) == 0 {
		return n, nil
	}
	out := make([]Node, len(ins))
	for i, in := range ins {
		r, err := f(in)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return withInputs(n, out), nil
}
