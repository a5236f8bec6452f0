package queries

import (
	"strings"
	"testing"
)

func TestEveryQueryIsThere(t *testing.T) {
	for n := 1; n <= Count; n++ {
		st, err := Statements(n)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if n == 15 {
			want = 3
		}
		if len(st) != want {
			t.Fatalf("q%d: %d statements, want %d", n, len(st), want)
		}
		if a := st[Answer(n)]; !strings.HasPrefix(strings.ToLower(a), "select") {
			t.Errorf("q%d: answer statement is not a SELECT: %.40s", n, a)
		}
	}
	for _, n := range []int{0, 23} {
		if _, err := Text(n); err == nil {
			t.Errorf("Text(%d) = nil error", n)
		}
	}
}
