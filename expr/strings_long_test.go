package expr

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// strEval1 evaluates a function on one row given as Go values (string,
// int, int64 or nil) and returns the value or fails the test.
func strEval1(t *testing.T, name, sig string, args ...any) any {
	t.Helper()
	types := strSig(sig, len(args))
	vecs := make([]*coldata.Vec, len(args))
	for i, a := range args {
		vecs[i] = strVec(types[i], a)
	}
	out, err := strFn(t, name).Eval(vecs, 1)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.Value(0)
}

func TestStrLongStrings(t *testing.T) {
	unit := "ab日😀" // 4 characters, 9 bytes
	s := strings.Repeat(unit, 10000)
	if len(s) < 64<<10 {
		t.Fatal("test string too short")
	}
	spaces := strings.Repeat(" ", 70000)
	checks := []struct {
		name, sig string
		args      []any
		want      any
	}{
		{"length", "S", []any{s}, int64(90000)},
		{"char_length", "S", []any{s}, int64(40000)},
		{"substring", "SII", []any{s, 39999}, "日😀"},
		{"substring", "SII", []any{s, -3, 2}, "b日"},
		{"substring", "SII", []any{s, 5, 4}, unit},
		{"substring", "SII", []any{s, 40001}, ""},
		{"substring", "SII", []any{s, 2, 39998}, s[1 : len(s)-4]},
		{"left", "SI", []any{s, 4}, unit},
		{"left", "SI", []any{s, 39999}, s[:len(s)-4]},
		{"right", "SI", []any{s, 5}, "😀" + unit},
		{"right", "SI", []any{s, 39996}, s[9:]},
		{"upper", "S", []any{s}, strings.ToUpper(s)},
		{"lower", "S", []any{strings.ToUpper(s)}, strings.ToLower(strings.ToUpper(s))},
		{"locate", "SSI", []any{"😀a", s, 39996}, int64(39996)},
		{"locate", "SSI", []any{"😀a", s, 39997}, int64(0)},
		{"locate", "SSI", []any{"😀x", s}, int64(0)},
		{"instr", "SS", []any{s + "x", "😀x"}, int64(40000)},
		{"split_part", "SSI", []any{s, "😀", -2}, "ab日"},
		{"split_part", "SSI", []any{s, "😀", 10000}, "ab日"},
		{"split_part", "SSI", []any{s, "😀", 10001}, ""},
		{"split_part", "SSI", []any{s, "", 39999}, "日"},
		{"substring_index", "SSI", []any{s, "😀", 9999}, s[:len(s)-13]},
		{"substring_index", "SSI", []any{s, "😀", -2}, unit},
		{"replace", "SSS", []any{s, "日", ""}, strings.ReplaceAll(s, "日", "")},
		{"replace", "SSS", []any{s, "a", "AAAA"}, strings.ReplaceAll(s, "a", "AAAA")},
		{"concat", "S", []any{s, "|", s}, s + "|" + s},
		{"concat_ws", "S", []any{"日", s, nil, s}, s + "日" + s},
		{"repeat", "SI", []any{"ab日", 30000}, strings.Repeat("ab日", 30000)},
		{"char_length", "S", []any{strings.Repeat("ab日", 30000)}, int64(90000)},
		{"lpad", "SIS", []any{"x", 70000, "日本"}, strings.Repeat("日本", 34999) + "日x"},
		{"rpad", "SIS", []any{s, 39999, "?"}, s[:len(s)-4]},
		{"rpad", "SIS", []any{s, 40002, "?"}, s + "??"},
		{"trim", "SS", []any{spaces + s + spaces}, s},
		{"ltrim", "SS", []any{spaces + "x" + spaces}, "x" + spaces},
		{"rtrim", "SS", []any{s + "日日日", "日"}, s},
		{"space", "I", []any{70000}, spaces},
		{"reverse", "S", []any{strings.Repeat("a日", 40000)}, strings.Repeat("日a", 40000)},
		{"like", "SSS", []any{s, "%😀ab日😀"}, true},
		{"like", "SSS", []any{s, "ab%_日😀"}, true},
		{"like", "SSS", []any{s, "%😀😀%"}, false},
		{"like", "SSS", []any{s, strings.Repeat("__日_", 10000)}, true},
		{"contains", "SS", []any{s, "😀ab日😀"}, true},
		{"ends_with", "SS", []any{s, unit + unit}, true},
		{"strcmp", "SS", []any{s, s + "a"}, int64(-1)},
	}
	for _, c := range checks {
		got := strEval1(t, c.name, c.sig, c.args...)
		if got != c.want {
			t.Errorf("%s on long input: got %s, want %s", c.name, strShow(got), strShow(c.want))
		}
	}
	rev := strEval1(t, "reverse", "S", s).(string)
	if back := strEval1(t, "reverse", "S", rev); back != s || !strings.HasPrefix(rev, "😀日ba") {
		t.Errorf("reverse of long string is wrong")
	}
}

// TestStrSlicedInput feeds vectors whose offsets do not start at zero (as
// coldata.Slice makes them) and checks them against the unsliced rows.
func TestStrSlicedInput(t *testing.T) {
	vals := make([]any, 40)
	for i := range vals {
		switch i % 5 {
		case 0:
			vals[i] = nil
		case 1:
			vals[i] = strings.Repeat("ab", i)
		case 2:
			vals[i] = "héllo wörld " + strings.Repeat("x", i)
		default:
			vals[i] = "First Last"
		}
	}
	full := strVec(coldata.String, vals...)
	sl := coldata.Slice(full, 16, 40)
	if sl.Offsets[0] == 0 {
		t.Fatal("slice did not keep shared offsets")
	}
	calls := []struct {
		name  string
		extra []*coldata.Vec
	}{
		{"upper", nil},
		{"lower", nil},
		{"reverse", nil},
		{"char_length", nil},
		{"length", nil},
		{"substring", []*coldata.Vec{strConst(coldata.Int64, 2, 24), strConst(coldata.Int64, 5, 24)}},
		{"split_part", []*coldata.Vec{strConst(coldata.String, " ", 24), strConst(coldata.Int64, 2, 24)}},
		{"left", []*coldata.Vec{strConst(coldata.Int64, 3, 24)}},
		{"concat", []*coldata.Vec{strConst(coldata.String, "!", 24)}},
		{"like", []*coldata.Vec{strConst(coldata.String, "%l_o%", 24)}},
	}
	for _, c := range calls {
		f := strFn(t, c.name)
		got, err := f.Eval(append([]*coldata.Vec{sl}, c.extra...), 24)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := 0; i < 24; i++ {
			args := []*coldata.Vec{strVec(coldata.String, vals[16+i])}
			for _, e := range c.extra {
				args = append(args, e)
			}
			want, err := f.Eval(args, 1)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			strCheckRow(t, c.name+" sliced", got, i, want.Value(0))
		}
	}
}

// TestStrNoPanic throws random arguments (invalid UTF-8, extreme integers,
// NULLs, constants) at every string function: no call may panic, each
// result must be well formed, and a batch must agree with the same rows
// evaluated one at a time.
func TestStrNoPanic(t *testing.T) {
	sigs := map[string]string{
		"length": "S", "char_length": "S", "upper": "S", "lower": "S", "substring": "SII", "left": "SI", "right": "SI",
		"concat": "SSS", "concat_ws": "SSS", "substring_index": "SSI", "split_part": "SSI", "locate": "SSI",
		"instr": "SS", "replace": "SSS", "trim": "SS", "ltrim": "SS", "rtrim": "SS", "lpad": "SIS", "rpad": "SIS",
		"reverse": "S", "repeat": "SI", "space": "I", "starts_with": "SS", "ends_with": "SS", "contains": "SS",
		"like": "SS", "ascii": "S", "strcmp": "SS",
	}
	arity := map[string][]int{"substring": {2, 3}, "locate": {2, 3}, "trim": {1, 2}, "ltrim": {1, 2}, "rtrim": {1, 2}, "concat": {1, 3}, "concat_ws": {2, 3}}
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"", "a", " ", ",", "%", "_", `\`, "é", "日本", "😀", "\xff", "\xe6\x97", "\x97", "\xed\xa0\x80", "\xc0\x80", "aa"}
	ints := []int64{0, 1, 2, 3, -1, -2, -3, 7, 100, math.MaxInt64, math.MinInt64, math.MaxInt32, 1000}
	randStr := func() any {
		if rng.Intn(8) == 0 {
			return nil
		}
		var sb strings.Builder
		for k := rng.Intn(6); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return sb.String()
	}
	randInt := func() any {
		if rng.Intn(8) == 0 {
			return nil
		}
		return ints[rng.Intn(len(ints))]
	}
	const rows = 64
	for name, sig := range sigs {
		f := strFn(t, name)
		ars := arity[name]
		if ars == nil {
			ars = []int{len(sig)}
		}
		for _, na := range ars {
			types := strSig(sig, na)
			for iter := 0; iter < 30; iter++ {
				cols := make([][]any, na)
				args := make([]*coldata.Vec, na)
				for a := 0; a < na; a++ {
					gen := randStr
					if types[a] == coldata.Int64 {
						gen = randInt
					}
					cols[a] = make([]any, rows)
					if rng.Intn(3) == 0 { // a constant argument
						v := gen()
						for r := range cols[a] {
							cols[a][r] = v
						}
						args[a] = strConst(types[a], v, rows)
					} else {
						for r := range cols[a] {
							cols[a][r] = gen()
						}
						args[a] = strVec(types[a], cols[a]...)
					}
				}
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s panicked: %v (args %v)", name, p, cols)
						}
					}()
					got, err := f.Eval(args, rows)
					if err != nil {
						// Only a row that fails alone too (a size guard,
						// a bad ESCAPE) may fail the batch.
						for r := 0; r < rows; r++ {
							one := make([]*coldata.Vec, na)
							for a := range one {
								one[a] = strVec(types[a], cols[a][r])
							}
							if _, err1 := f.Eval(one, 1); err1 != nil {
								return
							}
						}
						t.Fatalf("%s: batch failed (%v) but every row alone succeeds", name, err)
					}
					if got.Type == coldata.String && !got.Const {
						if len(got.Offsets) != rows+1 || int(got.Offsets[rows]) != len(got.Bytes) {
							t.Fatalf("%s: malformed offsets", name)
						}
					}
					for r := 0; r < rows; r++ {
						one := make([]*coldata.Vec, na)
						for a := range one {
							one[a] = strVec(types[a], cols[a][r])
						}
						w, err := f.Eval(one, 1)
						if err != nil {
							t.Fatalf("%s row %d alone: %v", name, r, err)
						}
						strCheckRow(t, name+" batch vs row", got, r, w.Value(0))
					}
				}()
			}
		}
	}
}

func TestStrSizeGuards(t *testing.T) {
	// Each row is small, the batch total is over the limit: an error.
	n := 2000
	out, err := strFn(t, "repeat").Eval([]*coldata.Vec{strConst(coldata.String, "abcdefgh", n), strVec(coldata.Int64, func() []any {
		v := make([]any, n)
		for i := range v {
			v[i] = 100_000
		}
		return v
	}()...)}, n)
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("repeat over the limit: got %v, %v", out, err)
	}
	if _, err := strFn(t, "space").Eval([]*coldata.Vec{strVec(coldata.Int64, int64(strMaxGrowBytes)+1)}, 1); err == nil {
		t.Fatal("space over the limit: no error")
	}
}

// TestStrThroughCall binds calls with NewCall and evaluates them with Eval,
// the path the planner uses (all-literal arguments take the constant path).
func TestStrThroughCall(t *testing.T) {
	lit := func(v any) Expr {
		switch x := v.(type) {
		case string:
			return &Literal{Value: x, T: coldata.String}
		case int:
			return &Literal{Value: int64(x), T: coldata.Int64}
		}
		return &Literal{Value: nil, T: coldata.Null}
	}
	col := &ColumnRef{Index: 0, Name: "name", T: coldata.String}
	batch := coldata.NewBatch([]*coldata.Vec{strVec(coldata.String, "First Last", "Solo", nil)}, 3)
	bind := func(name string, args ...Expr) Expr {
		t.Helper()
		f := strFn(t, name)
		e, err := NewCall(f, args)
		if err != nil {
			t.Fatalf("bind %s: %v", name, err)
		}
		return e
	}
	// The redact projection of DESIGN.md: CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)).
	e := bind("CONCAT", bind("LEFT", bind("SPLIT_PART", col, lit(" "), lit(2)), lit(1)), lit(" "), bind("split_part", col, lit(" "), lit(1)))
	got, err := Eval(e, batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []any{"L First", " Solo", nil} {
		strCheckRow(t, "redact", got, i, want)
	}
	c := bind("substr", lit("Sakila"), lit(-5), lit(3))
	got, err = Eval(c, batch)
	if err != nil {
		t.Fatal(err)
	}
	strCheckRow(t, "constant substr", got, 2, "aki")
	nl := bind("concat", col, lit(nil))
	got, err = Eval(nl, batch)
	if err != nil {
		t.Fatal(err)
	}
	strCheckRow(t, "concat with NULL literal", got, 0, nil)
	if _, err := NewCall(strFn(t, "concat"), nil); err == nil {
		t.Error("CONCAT() bound without error")
	}
	if _, err := NewCall(strFn(t, "concat_ws"), []Expr{lit(",")}); err == nil {
		t.Error("CONCAT_WS(',') bound without error")
	}
}
