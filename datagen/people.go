// Package datagen makes the deterministic benchmark and demo tables of
// DESIGN.md, shared by the shell's demo, the tests and the benchmarks.
package datagen

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

var firstNames = []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace",
	"Hedy", "Ivan", "John", "Katherine", "Ken", "Leslie", "Linus", "Margaret", "Niklaus", "Radia",
	"Richard", "Shafi", "Sophie", "Tim", "Vint", "Whitfield", "Yukihiro", "Zhang", "Émilie", "Søren"}

var lastNames = []string{"Lovelace", "Turing", "Liskov", "Shannon", "Knuth", "Dijkstra", "Allen",
	"Hopper", "Lamarr", "Sutherland", "McCarthy", "Johnson", "Thompson", "Lamport", "Torvalds",
	"Hamilton", "Wirth", "Perlman", "Hamming", "Goldwasser", "Wilson", "Berners-Lee", "Cerf",
	"Diffie", "Matsumoto", "Wei", "du Châtelet", "Kierkegaard"}

// People builds the redact benchmark table of DESIGN.md:
// people(name VARCHAR, visibility VARCHAR) with n rows, deterministic for a
// seed. Names are "First Last" from fixed lists (about 2% are a single name
// without a space, about 1% NULL); visibility is 'public' or 'private' about
// half each (about 1% NULL). Records hold at most 1M rows each.
func People(n int, seed int64) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "visibility", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	const batch = 1 << 20
	state := uint64(seed)*0x9E3779B97F4A7C15 + 0x6A09E667F3BCC909
	next := func() uint64 { // splitmix64
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	var recs []arrow.Record
	buf := make([]byte, 0, 64)
	for done := 0; done < n || (n == 0 && recs == nil); {
		m := n - done
		if m > batch {
			m = batch
		}
		names := array.NewStringBuilder(memory.DefaultAllocator)
		vis := array.NewStringBuilder(memory.DefaultAllocator)
		names.Reserve(m)
		names.ReserveData(m * 14)
		vis.Reserve(m)
		vis.ReserveData(m * 7)
		for i := 0; i < m; i++ {
			r := next()
			switch k := r % 100; {
			case k == 0:
				names.AppendNull()
			case k <= 2:
				names.Append(firstNames[(r>>8)%uint64(len(firstNames))])
			default:
				buf = append(buf[:0], firstNames[(r>>8)%uint64(len(firstNames))]...)
				buf = append(buf, ' ')
				buf = append(buf, lastNames[(r>>24)%uint64(len(lastNames))]...)
				names.BinaryBuilder.Append(buf)
			}
			switch v := (r >> 40) % 200; {
			case v < 2:
				vis.AppendNull()
			case v%2 == 0:
				vis.Append("public")
			default:
				vis.Append("private")
			}
		}
		na, va := names.NewArray(), vis.NewArray()
		names.Release()
		vis.Release()
		recs = append(recs, array.NewRecord(schema, []arrow.Array{na, va}, int64(m)))
		na.Release()
		va.Release()
		done += m
		if n == 0 {
			break
		}
	}
	return schema, recs
}
