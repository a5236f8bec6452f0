package datagen

import "testing"

func BenchmarkPeople(b *testing.B) {
	for i := 0; i < b.N; i++ {
		People(1<<20, int64(i))
	}
}
