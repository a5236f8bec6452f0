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
