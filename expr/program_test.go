package expr

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// progBatch is a batch of price, discount and tax (DECIMAL(15,2)) and a
// BIGINT, n rows from seed.
func progBatch(seed int64, n int) *coldata.Batch {
	r := rand.New(rand.NewSource(seed))
	t := coldata.DecimalOf(15, 2)
	cols := []*coldata.Vec{coldata.NewVec(t, n), coldata.NewVec(t, n), coldata.NewVec(t, n), coldata.NewVec(coldata.Int64, n)}
	for i := 0; i < n; i++ {
		cols[0].Decs[i] = decimal.FromInt64(r.Int63n(10_000_000))
		cols[1].Decs[i] = decimal.FromInt64(r.Int63n(11))
		cols[2].Decs[i] = decimal.FromInt64(r.Int63n(9))
		cols[3].Ints[i] = r.Int63n(1000)
	}
	cols[1].SetNull(3)
	return coldata.NewBatch(cols, n)
}

func progCall(t testing.TB, name string, args ...Expr) Expr {
	t.Helper()
	e, err := NewCall(scFn(t, name), args)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// copyBatch deep-copies b's vectors, to check later that b is unchanged.
func copyBatch(b *coldata.Batch) []string {
	var out []string
	for _, c := range b.Cols {
		var s strings.Builder
		for i := 0; i < b.Len; i++ {
			fmt.Fprint(&s, c.Value(i), ",")
		}
		out = append(out, s.String())
	}
	return out
}

// TestProgramMatchesEval evaluates lists of expressions with shared
// sub-expressions, intermediate results that alias an input column (a
// widening cast shares the column's data) and outputs that are also
// arguments, batch after batch, and compares every output with Eval's;
// the input columns must come out unchanged (a recycled buffer that an
// input or output still uses would be overwritten by the next batch).
func TestProgramMatchesEval(t *testing.T) {
	d := coldata.DecimalOf(15, 2)
	price := &ColumnRef{Index: 0, Name: "price", T: d}
	disc := &ColumnRef{Index: 1, Name: "disc", T: d}
	tax := &ColumnRef{Index: 2, Name: "tax", T: d}
	qty := &ColumnRef{Index: 3, Name: "qty", T: coldata.Int64}
	one := &Literal{Value: int64(1), T: coldata.Int64}
	discPrice := progCall(t, "*", price, progCall(t, "-", one, disc))
	charge := progCall(t, "*", discPrice, progCall(t, "+", one, tax))
	wide, err := CastTo(price, coldata.DecimalOf(38, 2))
	if err != nil {
		t.Fatal(err)
	}
	sum := progCall(t, "+", price, tax)
	for _, tc := range []struct {
		name  string
		exprs []Expr
		// sameAs has as many distinct sub-expressions.
		sameAs []Expr
	}{
		{"q1", []Expr{price, disc, discPrice, charge}, []Expr{charge}},
		{"twice", []Expr{discPrice, discPrice}, []Expr{discPrice}},
		{"widened", []Expr{progCall(t, "+", wide, one), progCall(t, "*", wide, wide)}, []Expr{progCall(t, "+", wide, progCall(t, "-", one, one))}},
		{"output-and-argument", []Expr{sum, progCall(t, "*", sum, disc), progCall(t, "<", progCall(t, "*", sum, disc), qty)}, []Expr{progCall(t, "<", progCall(t, "*", sum, disc), qty)}},
		{"column-only", []Expr{tax, qty}, []Expr{progCall(t, "+", tax, tax)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProgram(tc.exprs)
			if want := len(NewProgram(tc.sameAs).nodes); len(p.nodes) != want {
				t.Errorf("%d nodes, want %d", len(p.nodes), want)
			}
			var kept [][]*coldata.Vec
			var want [][]string
			var inputs []*coldata.Batch
			var inputWant [][]string
			for k := 0; k < 6; k++ {
				b := progBatch(int64(k), 4096)
				before := copyBatch(b)
				got, err := p.Eval(b)
				if err != nil {
					t.Fatal(err)
				}
				var w []string
				for i, e := range tc.exprs {
					v, err := Eval(e, b)
					if err != nil {
						t.Fatal(err)
					}
					w = append(w, copyBatch(coldata.NewBatch([]*coldata.Vec{v}, b.Len))[0])
					if g := copyBatch(coldata.NewBatch([]*coldata.Vec{got[i]}, b.Len))[0]; g != w[i] {
						t.Fatalf("batch %d: %s differs from Eval", k, e)
					}
				}
				if after := copyBatch(b); fmt.Sprint(after) != fmt.Sprint(before) {
					t.Fatalf("batch %d: the input changed", k)
				}
				kept = append(kept, got)
				want = append(want, w)
				inputs = append(inputs, b)
				inputWant = append(inputWant, before)
			}
			// Inputs and outputs stay valid while later batches evaluate.
			for k, b := range inputs {
				if after := copyBatch(b); fmt.Sprint(after) != fmt.Sprint(inputWant[k]) {
					t.Fatalf("batch %d: the input changed after later batches", k)
				}
			}
			for k, got := range kept {
				for i := range got {
					if g := copyBatch(coldata.NewBatch([]*coldata.Vec{got[i]}, 4096))[0]; g != want[k][i] {
						t.Fatalf("batch %d output %d changed after later batches", k, i)
					}
				}
			}
		})
	}
}

// TestProgramVolatile checks that calls of a volatile function are not
// shared: each occurrence runs.
func TestProgramVolatile(t *testing.T) {
	calls := 0
	vol := &Function{Name: "test_counter", MaxArgs: 0, Volatile: true,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			calls++
			return coldata.NewConst(coldata.Int64, int64(calls), n), nil
		}}
	c1 := &Call{Fn: vol, T: coldata.Int64}
	c2 := &Call{Fn: vol, T: coldata.Int64}
	p := NewProgram([]Expr{c1, c2, progCall(t, "+", c1, &Literal{Value: int64(1), T: coldata.Int64})})
	out, err := p.Eval(progBatch(1, 10))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("volatile function ran %d times, want 3", calls)
	}
	if out[0].Int(0) == out[1].Int(0) {
		t.Fatalf("two volatile calls share a result")
	}
}

// TestProgramErrors checks that a failing call reports as Eval does.
func TestProgramErrors(t *testing.T) {
	big := &Literal{Value: int64(1) << 62, T: coldata.Int64}
	e := progCall(t, "*", &ColumnRef{Index: 3, Name: "qty", T: coldata.Int64}, big)
	b := progBatch(1, 100)
	_, want := Eval(e, b)
	_, got := NewProgram([]Expr{e}).Eval(b)
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Fatalf("Program error %v, Eval error %v", got, want)
	}
}
