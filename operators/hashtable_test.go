package operators

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// randKeyVec returns n random values of type t from a domain of about
// domain values, NULL about one row in nullEvery (0: never), sometimes as
// a constant vector.
func randKeyVec(rng *rand.Rand, t coldata.Type, n, domain, nullEvery int) *coldata.Vec {
	if t == coldata.Null {
		return coldata.NewConst(coldata.Null, nil, n)
	}
	if rng.Intn(10) == 0 {
		var val any
		switch t {
		case coldata.Bool:
			val = rng.Intn(2) == 0
		case coldata.Int64:
			val = int64(rng.Intn(domain))
		case coldata.Float64:
			val = float64(rng.Intn(domain))
		case coldata.String:
			val = fmt.Sprint("s", rng.Intn(domain))
		}
		if nullEvery > 0 && rng.Intn(4) == 0 {
			val = nil
		}
		return coldata.NewConst(t, val, n)
	}
	b := coldata.NewBuilder(t, n)
	for i := 0; i < n; i++ {
		if nullEvery > 0 && rng.Intn(nullEvery) == 0 {
			b.AppendNull()
			continue
		}
		x := rng.Intn(domain)
		switch t {
		case coldata.Bool:
			b.AppendBool(x%2 == 0)
		case coldata.Int64:
			b.AppendInt(int64(x) - int64(domain/2))
		case coldata.Float64:
			f := float64(x) / 4
			switch x % 17 {
			case 0:
				f = math.Copysign(0, -1)
			case 1:
				f = math.NaN()
			}
			b.AppendFloat(f)
		case coldata.String:
			b.AppendString(fmt.Sprintf("k%d%s", x, "xyzw"[:x%4]))
		}
	}
	return b.Finish()
}

// TestHashTableMatchesRowKeys checks ids against a map over AppendRowKey
// (the encoding that defines grouping equality), for mixes of key types,
// NULLs, constants and enough distinct keys to grow the table.
func TestHashTableMatchesRowKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	typeSets := [][]coldata.Type{
		{coldata.Int64},
		{coldata.String},
		{coldata.Float64},
		{coldata.Bool, coldata.Int64},
		{coldata.String, coldata.Int64, coldata.Float64},
		{coldata.Null, coldata.String},
		{coldata.Bool},
	}
	for _, types := range typeSets {
		for _, domain := range []int{3, 100, 5000, -300} {
			name := fmt.Sprint(types, domain)
			ht := newHashTable(types)
			if domain < 0 {
				// Colliding hashes: every probe meets other keys' tags.
				domain, ht.weakHash = -domain, true
			}
			if domain != 100 {
				// Batches probe in parallel parts.
				ht.partRows = 200
			}
			ref := map[string]uint32{}
			var key []byte
			keys := make([]keyVec, len(types))
			for batch := 0; batch < 8; batch++ {
				n := 1 + rng.Intn(3000)
				vecs := make([]*coldata.Vec, len(types))
				// Batches with and without NULLs take different hashing
				// loops, which must agree.
				nullEvery := []int{0, 7}[batch%2]
				for i, ty := range types {
					vecs[i] = randKeyVec(rng, ty, n, domain, nullEvery)
					keys[i].prepare(vecs[i], n)
				}
				ids := make([]uint32, n)
				var created []int32
				if err := ht.findOrInsert(keys, 0, n, ids, nil, &created); err != nil {
					t.Fatal(err)
				}
				var wantCreated []int32
				for r := 0; r < n; r++ {
					key = opspec.AppendRowKey(key[:0], vecs, r)
					g, ok := ref[string(key)]
					if !ok {
						g = uint32(len(ref))
						ref[string(key)] = g
						wantCreated = append(wantCreated, int32(r))
					}
					if ids[r] != g {
						t.Fatalf("%s: batch %d row %d: id %d, want %d", name, batch, r, ids[r], g)
					}
				}
				if fmt.Sprint(created) != fmt.Sprint(wantCreated) {
					t.Fatalf("%s: created %v, want %v", name, created, wantCreated)
				}
				// find agrees with findOrInsert on stored tuples.
				found := make([]uint32, n)
				ht.find(keys, 0, n, found)
				for r := 0; r < n; r++ {
					if found[r] != ids[r] {
						t.Fatalf("%s: find row %d = %d, want %d", name, r, found[r], ids[r])
					}
				}
			}
			if ht.n != len(ref) {
				t.Fatalf("%s: %d ids, want %d", name, ht.n, len(ref))
			}
			// The stored keys read back as the first-seen values.
			cols := make([]*coldata.Vec, len(types))
			for i := range types {
				v, err := ht.column(i)
				if err != nil {
					t.Fatal(err)
				}
				cols[i] = v
			}
			for g := 0; g < ht.n; g++ {
				key = opspec.AppendRowKey(key[:0], cols, g)
				if ref[string(key)] != uint32(g) {
					t.Fatalf("%s: stored key %d reads back as another key", name, g)
				}
			}
		}
	}
}

// TestHashTableFindAbsent: tuples never inserted find -1, NULLs included.
func TestHashTableFindAbsent(t *testing.T) {
	ht := newHashTable([]coldata.Type{coldata.Int64, coldata.String})
	ins := []*coldata.Vec{mkInts(1, 2, 3), mkStrs("a", "b", "c")}
	keys := make([]keyVec, 2)
	for i, v := range ins {
		keys[i].prepare(v, 3)
	}
	if err := ht.findOrInsert(keys, 0, 3, make([]uint32, 3), nil, nil); err != nil {
		t.Fatal(err)
	}
	probe := []*coldata.Vec{mkInts(1, 2, 3, 4), mkStrs("a", "c", "c", "a")}
	probe[1].SetNull(3)
	for i, v := range probe {
		keys[i].prepare(v, 4)
	}
	got := make([]uint32, 4)
	ht.find(keys, 0, 4, got)
	if got[0] != 0 || got[1] != noID || got[2] != 2 || got[3] != noID {
		t.Fatalf("find = %v", got)
	}
}

func mkInts(xs ...int64) *coldata.Vec {
	v := coldata.NewVec(coldata.Int64, len(xs))
	copy(v.Ints, xs)
	return v
}

func mkStrs(xs ...string) *coldata.Vec {
	b := coldata.NewBuilder(coldata.String, len(xs))
	for _, x := range xs {
		b.AppendString(x)
	}
	return b.Finish()
}

// TestEqualBytes: equal exactly when bytes.Equal is, for every length up to
// 40 and a difference at every position.
func TestEqualBytes(t *testing.T) {
	for n := 0; n <= 40; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + i)
		}
		b := append([]byte(nil), a...)
		if !equalBytes(a, b) {
			t.Fatalf("len %d: equal strings differ", n)
		}
		if n > 0 && equalBytes(a, b[:n-1]) {
			t.Fatalf("len %d: prefix equals", n)
		}
		for i := 0; i < n; i++ {
			b[i] ^= 1
			if equalBytes(a, b) {
				t.Fatalf("len %d: difference at %d missed", n, i)
			}
			b[i] ^= 1
		}
	}
}

// TestHashRangeOrderMatters: tuples of string columns that hold the same
// values in another order, or split one string differently, hash apart
// (all of them once hashed alike: ("abc", "") and ("", "abc")), with and
// without NULLs in the columns.
func TestHashRangeOrderMatters(t *testing.T) {
	tuples := [][3]any{{"abc", "", "x"}, {"", "abc", "x"}, {"ab", "c", "x"}, {"a", "bc", "x"},
		{"x", "y", "z"}, {"y", "x", "z"}, {"x", "z", "y"}, {nil, "", "x"}, {"", nil, "x"}, {"", "", "x"}}
	for _, withNull := range []bool{false, true} {
		for _, ncols := range []int{2, 3} {
			cols := make([]*coldata.Vec, ncols)
			for c := range cols {
				b := coldata.NewBuilder(coldata.String, len(tuples))
				for _, tu := range tuples {
					switch {
					case tu[c] == nil && !withNull:
						b.AppendString("z")
					case tu[c] == nil:
						b.AppendNull()
					default:
						b.AppendString(tu[c].(string))
					}
				}
				cols[c] = b.Finish()
			}
			ht := newHashTable(make([]coldata.Type, ncols))
			keys := make([]keyVec, ncols)
			for c, v := range cols {
				ht.types[c] = coldata.String
				keys[c].prepare(v, len(tuples))
			}
			h := make([]uint64, len(tuples))
			ht.hashRange(keys, h, 0, len(tuples))
			seen := map[uint64]int{}
			for r, x := range h {
				if o, ok := seen[x]; ok && string(opspec.AppendRowKey(nil, cols, o)) != string(opspec.AppendRowKey(nil, cols, r)) {
					t.Fatalf("%d columns, NULLs %v: rows %d and %d hash alike", ncols, withNull, o, r)
				}
				seen[x] = r
			}
		}
	}
}

// TestAppendKeyBytes: appendKeyBytes appends what append does, for every
// length up to 40 at every place in a source (its end included), into
// destinations with and without room past the key.
func TestAppendKeyBytes(t *testing.T) {
	src := make([]byte, 48)
	for i := range src {
		src[i] = byte('a' + i)
	}
	for lo := 0; lo <= len(src); lo++ {
		for hi := lo; hi <= len(src) && hi-lo <= 40; hi++ {
			for _, room := range []int{0, 8, 16, 64} {
				dst := make([]byte, 3, 3+hi-lo+room)
				copy(dst, "xyz")
				got := appendKeyBytes(dst, src, int32(lo), int32(hi))
				want := append([]byte("xyz"), src[lo:hi]...)
				if string(got) != string(want) {
					t.Fatalf("src[%d:%d], room %d: %q, want %q", lo, hi, room, got, want)
				}
			}
		}
	}
}

// BenchmarkHashTableProbeFixed finds or inserts a BIGINT key of 20K
// values over 0..200K (GROUP BY l_partkey's table: issue 40) for 342K
// rows in batches of 64K, on one goroutine: the table's walk, hashing
// included.
func BenchmarkHashTableProbeFixed(b *testing.B) {
	rng := rand.New(rand.NewSource(17))
	const rows, batch = 342_000, 1 << 16
	const groups = 20_000
	parts := rng.Perm(200_000)[:groups]
	var vecs []*coldata.Vec
	for lo := 0; lo < rows; lo += batch {
		v := coldata.NewVec(coldata.Int64, min(batch, rows-lo))
		for i := range v.Ints {
			v.Ints[i] = int64(parts[rng.Intn(groups)])
		}
		vecs = append(vecs, v)
	}
	ids := make([]uint32, batch)
	keys := make([]keyVec, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ht := newHashTable([]coldata.Type{coldata.Int64})
		ht.partRows = 1 << 30
		for _, v := range vecs {
			keys[0].prepare(v, v.Len)
			if err := ht.findOrInsert(keys, 0, v.Len, ids, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		if ht.n < groups*9/10 {
			b.Fatalf("%d groups", ht.n)
		}
		ht.release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}
