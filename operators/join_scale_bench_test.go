package operators_test

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// scaleJoinData is one size of the scaling join benchmarks: a build side
// of keys (ikey BIGINT, skey VARCHAR, payload BIGINT) and a probe side of
// 4x as many rows (ikey, skey, x BIGINT) whose keys hit the build side 80%
// of the time.
type scaleJoinData struct {
	build, probe *coldata.Batch
	hits         int // probe rows whose key is on the build side
	pairs        int // inner join output rows
}

var scaleJoinCache struct {
	mu   sync.Mutex
	data map[[2]int]*scaleJoinData
}

// scaleJoinTables returns the tables of buildRows build rows over
// buildRows/dup distinct keys (each key dup times), probed by 4*buildRows
// rows, with string keys when strs is set. Only one size is kept at a
// time: the 8M tables alone take most of a GiB.
func scaleJoinTables(buildRows, dup int, strs bool) *scaleJoinData {
	scaleJoinCache.mu.Lock()
	defer scaleJoinCache.mu.Unlock()
	id := [2]int{buildRows, dup}
	if d := scaleJoinCache.data[id]; d != nil && (!strs || d.build.Cols[1].Len > 0) {
		return d
	}
	scaleJoinCache.data = nil
	rng := rand.New(rand.NewSource(int64(buildRows + dup)))
	keys := buildRows / dup
	domain := keys * 5 / 4
	var names []string
	if strs {
		names = benchStrings(rng, domain, "key-")
	}
	perm := rng.Perm(domain)
	in := make([]bool, domain)
	for _, k := range perm[:keys] {
		in[k] = true
	}
	bi := coldata.NewVec(tInt, buildRows)
	bs := coldata.NewBuilder(tStr, buildRows)
	for i := 0; i < buildRows; i++ {
		k := perm[(i*7)%keys] // each key dup times, spread over the side
		bi.Ints[i] = int64(k)*7919 - 3_000_000
		if strs {
			bs.AppendString(names[k])
		}
	}
	sv := bs.Finish()
	if !strs {
		sv = coldata.NewVec(tStr, 0)
	}
	build := coldata.NewBatch([]*coldata.Vec{bi, sv, intVec(rng, buildRows, 0, 1<<40)}, buildRows)
	probeRows := 4 * buildRows
	pi, ps := coldata.NewVec(tInt, probeRows), coldata.NewBuilder(tStr, probeRows)
	hits := 0
	for i := 0; i < probeRows; i++ {
		k := rng.Intn(domain)
		if in[k] {
			hits++
		}
		pi.Ints[i] = int64(k)*7919 - 3_000_000
		if strs {
			ps.AppendString(names[k])
		}
	}
	pv := ps.Finish()
	if !strs {
		pv = coldata.NewVec(tStr, 0)
	}
	probe := coldata.NewBatch([]*coldata.Vec{pi, pv, intVec(rng, probeRows, 0, 1000)}, probeRows)
	d := &scaleJoinData{build: build, probe: probe, hits: hits, pairs: hits * dup}
	scaleJoinCache.data = map[[2]int]*scaleJoinData{id: d}
	return d
}

// runScaleJoin joins probe (or nothing, to time the build alone) with
// build on key column kc and returns the output rows.
func runScaleJoin(b *testing.B, d *scaleJoinData, kc int, kt coldata.Type, kind opspec.JoinKind, buildOnly bool) int {
	var left operators.Operator = &operators.Scan{Batches: []*coldata.Batch{d.probe}, Cols: []int{kc, 2}}
	if buildOnly {
		left = &operators.Scan{Cols: []int{kc, 2}}
	}
	j := &operators.HashJoin{
		Left:     left,
		Right:    &operators.Scan{Batches: []*coldata.Batch{d.build}, Cols: []int{kc, 2}},
		LeftKeys: []expr.Expr{colRef(0, kt)}, RightKeys: []expr.Expr{colRef(0, kt)},
		Kind: kind, LeftCols: 2, RightTypes: []coldata.Type{kt, tInt},
	}
	return countRows(b, j)
}

// BenchmarkHashJoinScale joins build sides of 1M to 8M rows with probe
// sides of 4x their rows: unique BIGINT keys (a primary key), BIGINT keys
// each on 4 build rows (lineitem's order keys: inner and semi joins),
// unique VARCHAR keys, and the build alone ("build"). It shows how the
// join's time grows with the build side past the caches:
//
//	go test ./operators -run '^$' -bench HashJoinScale -benchtime 3x -cpu 1,2
func BenchmarkHashJoinScale(b *testing.B) {
	cases := []struct {
		name      string
		rows, dup int
		strs      bool
		kind      opspec.JoinKind
		buildOnly bool
	}{
		{"int/unique/1M", 1 << 20, 1, false, opspec.InnerJoin, false},
		{"int/unique/1M/build", 1 << 20, 1, false, opspec.InnerJoin, true},
		{"int/unique/4M", 4 << 20, 1, false, opspec.InnerJoin, false},
		{"int/unique/4M/build", 4 << 20, 1, false, opspec.InnerJoin, true},
		{"int/unique/8M", 8 << 20, 1, false, opspec.InnerJoin, false},
		{"int/unique/8M/build", 8 << 20, 1, false, opspec.InnerJoin, true},
		{"int/dup4/4M", 4 << 20, 4, false, opspec.InnerJoin, false},
		{"int/dup4/4M/semi", 4 << 20, 4, false, opspec.SemiJoin, false},
		{"int/dup4/4M/build", 4 << 20, 4, false, opspec.InnerJoin, true},
		{"string/unique/1M", 1 << 20, 1, true, opspec.InnerJoin, false},
		{"string/unique/1M/build", 1 << 20, 1, true, opspec.InnerJoin, true},
	}
	for _, c := range cases {
		for _, path := range []string{"flat", "part"} {
			benchScaleCase(b, c.name+"/"+path, path == "flat", c.rows, c.dup, c.strs, c.kind, c.buildOnly)
		}
	}
}

// benchScaleCase runs one case of BenchmarkHashJoinScale, with one hash
// table (flat) or the radix-partitioned build.
func benchScaleCase(b *testing.B, name string, flat bool, rows, dup int, strs bool, kind opspec.JoinKind, buildOnly bool) {
	c := struct {
		rows, dup int
		strs      bool
		kind      opspec.JoinKind
		buildOnly bool
	}{rows, dup, strs, kind, buildOnly}
	{
		b.Run(name, func(b *testing.B) {
			if flat {
				defer operators.SetJoinPartitioning(1<<62, 1<<15, 1<<12)()
			}
			d := scaleJoinTables(c.rows, c.dup, c.strs)
			kc, kt := 0, tInt
			if c.strs {
				kc, kt = 1, tStr
			}
			want := d.pairs
			switch {
			case c.buildOnly:
				want = 0
			case c.kind == opspec.SemiJoin:
				want = d.hits
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n := runScaleJoin(b, d, kc, kt, c.kind, c.buildOnly); n != want {
					b.Fatalf("%d rows, want %d", n, want)
				}
			}
			rows := c.rows
			if !c.buildOnly {
				rows += d.probe.Len
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
