package expr

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestLikePairs checks the eight-a-step pair search against a plain scan
// for every start and end over random short data of a small alphabet
// (so pairs, repeats and near misses are frequent), including pairs at
// the first and last positions.
func TestLikePairs(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	alpha := []byte("ab\x00\x01\x80\xff")
	for trial := 0; trial < 300; trial++ {
		data := make([]byte, r.Intn(48))
		for i := range data {
			data[i] = alpha[r.Intn(len(alpha))]
		}
		c1, c2 := alpha[r.Intn(len(alpha))], alpha[r.Intn(len(alpha))]
		for pos := 0; pos <= len(data); pos++ {
			for end := pos; end <= len(data); end++ {
				want := -1
				for p := pos; p+1 < end; p++ {
					if data[p] == c1 && data[p+1] == c2 {
						want = p
						break
					}
				}
				if got := likePairs(data, pos, end, c1, c2); got != want {
					t.Fatalf("likePairs(%q, %d, %d, %q, %q) = %d, want %d", data, pos, end, c1, c2, got, want)
				}
			}
		}
	}
}

// likeScanOf compiles pat and runs the whole-column search over v's n
// rows; ok is whether the search ran.
func likeScanOf(pat string, v *coldata.Vec, n int) (r []byte, ok bool) {
	m := &likeMatcher{}
	m.compile([]byte(pat), likeDefaultEscape)
	r = make([]byte, n)
	return r, m.scanColumn(v.Offsets[:n+1], v.Bytes, v.Nulls, r)
}

// TestLikeScanEdges covers what the whole-column search must not get
// wrong: a literal split across two rows, a literal in a NULL row, empty
// rows, the literal at the very start and end of the data, a vector whose
// offsets do not start at zero, and a pattern whose other parts fail.
func TestLikeScanEdges(t *testing.T) {
	filler := strings.Repeat("xxxx ", 10) // no rare pair
	rows := []any{
		"special requests at the start", // 0
		filler,                          // 1
		"zz spe",                        // 2: "special" split over rows 2 and 3
		"cial zz",                       // 3
		"",                              // 4
		nil,                             // 5: NULL
		"special but no r-word",         // 6
		"requests then special",         // 7: wrong order
		filler,                          // 8
		"a special request s",           // 9
		"ends with special requests",    // 10
	}
	want := map[string][]any{
		"%special%":          {true, false, false, false, false, nil, true, true, false, true, true},
		"%special%requests%": {true, false, false, false, false, nil, false, false, false, false, true},
		"%cial%":             {true, false, false, true, false, nil, true, true, false, true, true},
		"special%":           {true, false, false, false, false, nil, true, false, false, false, false},
		"%special_requests":  {false, false, false, false, false, nil, false, false, false, false, true},
	}
	// Many rows without a match, so that the pairs searched for are rare.
	for k := 0; k < 60; k++ {
		rows = append(rows, filler)
		for pat := range want {
			want[pat] = append(want[pat], false)
		}
	}
	v := strVec(coldata.String, rows...)
	// The NULL row's storage holds a match, which must not leak out.
	nullRow := []byte("special requests")
	nb := append(append(append([]byte{}, v.Bytes[:v.Offsets[5]]...), nullRow...), v.Bytes[v.Offsets[5]:]...)
	offs := append([]int32(nil), v.Offsets...)
	for i := 6; i < len(offs); i++ {
		offs[i] += int32(len(nullRow))
	}
	v.Bytes, v.Offsets = nb, offs
	// And a copy whose rows start 7 bytes into its data.
	shifted := &coldata.Vec{Type: coldata.String, Len: v.Len, Nulls: v.Nulls,
		Bytes: append([]byte("special"), v.Bytes...), Offsets: make([]int32, len(v.Offsets))}
	for i, o := range v.Offsets {
		shifted.Offsets[i] = o + 7
	}
	f := strFn(t, "like")
	for pat, w := range want {
		for name, vec := range map[string]*coldata.Vec{"plain": v, "shifted": shifted} {
			got, err := f.Eval([]*coldata.Vec{vec, strConst(coldata.String, pat, len(rows))}, len(rows))
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if g := got.Value(i); g != w[i] {
					t.Errorf("%s: row %d %q LIKE %q = %v, want %v", name, i, rows[i], pat, g, w[i])
				}
				if got.Value(i) == nil && got.Bools[i] != 0 {
					t.Errorf("%s: row %d: NULL with data %d", name, i, got.Bools[i])
				}
			}
		}
	}
	// The cases above must have run the search (prefix patterns do not).
	for _, pat := range []string{"%special%", "%special%requests%", "%cial%", "%special_requests"} {
		if _, ok := likeScanOf(pat, v, len(rows)); !ok {
			t.Errorf("%q: the whole-column search did not run", pat)
		}
	}
}

// TestLikeScanDifferential compares the whole-column search with the
// reference matcher over rows mostly of filler with rare characters
// (multi-byte, invalid UTF-8, wildcards as data) mixed in, for random
// patterns, and checks that the search ran for many of them.
func TestLikeScanDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	rare := []string{"a", "b", "é", "日", "\xff", "\xe6", "%", "_", "ab", "ba", "bé"}
	const n = 600
	rows := make([]any, n)
	for i := range rows {
		var sb strings.Builder
		for k := r.Intn(30); k > 0; k-- {
			if r.Intn(12) == 0 {
				sb.WriteString(rare[r.Intn(len(rare))])
			} else {
				sb.WriteByte("xyz "[r.Intn(4)])
			}
		}
		rows[i] = sb.String()
		if i%50 == 7 {
			rows[i] = nil
		}
	}
	v := strVec(coldata.String, rows...)
	palpha := []string{"a", "b", "é", "日", "\xff", "x", "_", `\%`, "ab", "ba"}
	f := strFn(t, "like")
	ran := 0
	for k := 0; k < 300; k++ {
		var sb strings.Builder
		sb.WriteString("%")
		for j := 1 + r.Intn(4); j > 0; j-- {
			sb.WriteString(palpha[r.Intn(len(palpha))])
			if r.Intn(3) == 0 {
				sb.WriteString("%")
			}
		}
		if r.Intn(2) == 0 {
			sb.WriteString("%")
		}
		pat := sb.String()
		got, err := f.Eval([]*coldata.Vec{v, strConst(coldata.String, pat, n)}, n)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range rows {
			var want any
			if s != nil {
				want = strLikeRef(s.(string), pat, `\`)
			}
			if g := got.Value(i); g != want {
				t.Fatalf("%q LIKE %q = %v, want %v", s, pat, g, want)
			}
		}
		if res, ok := likeScanOf(pat, v, n); ok {
			ran++
			if !bytes.Equal(res, got.Bools[:n]) {
				t.Fatalf("%q: the search and LIKE disagree", pat)
			}
		}
	}
	if ran < 100 {
		t.Errorf("the whole-column search ran for %d of 300 patterns", ran)
	}
}
