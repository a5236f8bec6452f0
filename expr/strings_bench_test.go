package expr

import (
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

const strBenchRows = 1 << 20

var strBenchFirst = []string{"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "José", "Zoë"}
var strBenchLast = []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Müller", "Søren"}

// strBenchNames builds the redact benchmark's name column: "First Last"
// drawn from fixed lists with a fixed seed.
func strBenchNames() *coldata.Vec {
	rng := rand.New(rand.NewSource(42))
	b := coldata.NewBuilder(coldata.String, strBenchRows)
	for i := 0; i < strBenchRows; i++ {
		b.AppendString(strBenchFirst[rng.Intn(len(strBenchFirst))] + " " + strBenchLast[rng.Intn(len(strBenchLast))])
	}
	return b.Finish()
}

func strBench(b *testing.B, name string, args []*coldata.Vec) {
	f, ok := Lookup(name)
	if !ok {
		b.Fatalf("no function %s", name)
	}
	var bytesIn int64
	if !args[0].Const {
		bytesIn = int64(len(args[0].Bytes))
	}
	b.SetBytes(bytesIn)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Eval(args, strBenchRows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(strBenchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkStrSubstring(b *testing.B) {
	names := strBenchNames()
	strBench(b, "substring", []*coldata.Vec{names, coldata.NewConst(coldata.Int64, int64(2), strBenchRows), coldata.NewConst(coldata.Int64, int64(5), strBenchRows)})
}

func BenchmarkStrSubstringNegative(b *testing.B) {
	names := strBenchNames()
	strBench(b, "substring", []*coldata.Vec{names, coldata.NewConst(coldata.Int64, int64(-4), strBenchRows)})
}

func BenchmarkStrConcat(b *testing.B) {
	names := strBenchNames()
	strBench(b, "concat", []*coldata.Vec{names, coldata.NewConst(coldata.String, " - ", strBenchRows), names})
}

func BenchmarkStrSplitPart(b *testing.B) {
	names := strBenchNames()
	strBench(b, "split_part", []*coldata.Vec{names, coldata.NewConst(coldata.String, " ", strBenchRows), coldata.NewConst(coldata.Int64, int64(2), strBenchRows)})
}

func BenchmarkStrSplitPartLast(b *testing.B) {
	names := strBenchNames()
	strBench(b, "split_part", []*coldata.Vec{names, coldata.NewConst(coldata.String, " ", strBenchRows), coldata.NewConst(coldata.Int64, int64(-1), strBenchRows)})
}

func BenchmarkStrLikeInfix(b *testing.B) {
	names := strBenchNames()
	strBench(b, "like", []*coldata.Vec{names, coldata.NewConst(coldata.String, "%son%", strBenchRows)})
}

func BenchmarkStrLikeGeneric(b *testing.B) {
	names := strBenchNames()
	strBench(b, "like", []*coldata.Vec{names, coldata.NewConst(coldata.String, "J_%s%n", strBenchRows)})
}

func BenchmarkStrUpper(b *testing.B) {
	names := strBenchNames()
	strBench(b, "upper", []*coldata.Vec{names})
}

// TPC-H-like comment text: sentences of the specification's grammar
// (clause 4.2.2.14) over a few of its words, weighted as its
// distributions weight them; enough to give LIKE realistic byte and word
// frequencies.
var (
	commentNouns = []string{"packages", "requests", "accounts", "deposits", "foxes", "ideas", "theodolites",
		"pinto beans", "instructions", "dependencies", "excuses", "platelets", "asymptotes", "courts", "dolphins"}
	commentNounW = []int{40, 40, 40, 40, 20, 20, 20, 20, 20, 10, 10, 10, 10, 5, 5}
	commentVerbs = []string{"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect", "integrate"}
	commentVerbW = []int{20, 20, 20, 20, 20, 10, 10, 10, 5, 5, 5}
	commentAdjs  = []string{"special", "pending", "unusual", "express", "regular", "final", "ironic", "even", "bold", "silent", "quick"}
	commentAdjW  = []int{20, 20, 20, 20, 50, 40, 40, 30, 20, 10, 1}
	commentAdvs  = []string{"furiously", "slyly", "carefully", "blithely", "quickly", "fluffily"}
	commentAdvW  = []int{50, 50, 50, 40, 30, 20}
	commentPreps = []string{"about", "above", "according to", "across", "after", "against", "along", "alongside of", "among", "around", "at"}
	commentPrepW = []int{50, 50, 50, 50, 50, 40, 40, 30, 30, 20, 10}
)

func pickWeighted(r *rand.Rand, words []string, w []int) string {
	total := 0
	for _, x := range w {
		total += x
	}
	k := r.Intn(total)
	for i, x := range w {
		if k < x {
			return words[i]
		}
		k -= x
	}
	return words[len(words)-1]
}

// strBenchComments builds strBenchRows o_comment-like strings: windows of
// 19 to 78 bytes (TPC-H's 0.4 to 1.6 times 49) of generated text.
func strBenchComments() *coldata.Vec {
	r := rand.New(rand.NewSource(13))
	var pool []byte
	noun := func() {
		if r.Intn(2) == 0 {
			pool = append(pool, pickWeighted(r, commentAdjs, commentAdjW)...)
			pool = append(pool, ' ')
		}
		pool = append(pool, pickWeighted(r, commentNouns, commentNounW)...)
		pool = append(pool, ' ')
	}
	verb := func() {
		if r.Intn(2) == 0 {
			pool = append(pool, pickWeighted(r, commentAdvs, commentAdvW)...)
			pool = append(pool, ' ')
		}
		pool = append(pool, pickWeighted(r, commentVerbs, commentVerbW)...)
		pool = append(pool, ' ')
	}
	for len(pool) < 4<<20 {
		noun()
		verb()
		switch r.Intn(3) {
		case 0:
			pool = append(pool, pickWeighted(r, commentPreps, commentPrepW)...)
			pool = append(pool, " the "...)
			noun()
		case 1:
			noun()
		}
		pool[len(pool)-1] = '.'
		pool = append(pool, ' ')
	}
	b := coldata.NewBuilder(coldata.String, strBenchRows)
	for i := 0; i < strBenchRows; i++ {
		n := 19 + r.Intn(60)
		off := r.Intn(len(pool) - n)
		b.AppendString(string(pool[off : off+n]))
	}
	return b.Finish()
}

// BenchmarkStrLikeComments is TPC-H Q13's o_comment LIKE
// '%special%requests%' and simpler shapes over o_comment-like text.
func BenchmarkStrLikeComments(b *testing.B) {
	comments := strBenchComments()
	for _, pat := range []string{"%special%requests%", "%special%", "%pinto beans%", "%furiously%sleep%", "%ly%s%"} {
		b.Run(pat, func(b *testing.B) {
			strBench(b, "like", []*coldata.Vec{comments, coldata.NewConst(coldata.String, pat, strBenchRows)})
		})
	}
}
