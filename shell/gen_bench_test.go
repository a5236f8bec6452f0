package shell

import "testing"

func BenchmarkGeneratePeople(b *testing.B) {
	for i := 0; i < b.N; i++ {
		GeneratePeople(1<<20, int64(i))
	}
}
