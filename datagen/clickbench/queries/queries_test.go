package queries

import (
	"strings"
	"testing"
)

func TestEveryQueryIsThere(t *testing.T) {
	if len(lines) != Count {
		t.Fatalf("queries.sql has %d queries, want %d", len(lines), Count)
	}
	for n := 1; n <= Count; n++ {
		q, err := Query(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(q, "SELECT ") || !strings.Contains(q, "FROM hits") {
			t.Errorf("q%d is not a SELECT from hits: %.60s", n, q)
		}
	}
	for n := range dialect {
		p, _ := Published(n)
		q, err := Query(n)
		if err != nil || p == q {
			t.Errorf("q%d: dialect changes did not apply: %v", n, err)
		}
	}
	for _, n := range []int{0, Count + 1} {
		if _, err := Query(n); err == nil {
			t.Errorf("Query(%d) did not fail", n)
		}
	}
}

func TestScaled(t *testing.T) {
	var changed []int
	for n := 1; n <= Count; n++ {
		q, err := Query(n)
		if err != nil {
			t.Fatal(err)
		}
		s := Scale(q)
		if s != q {
			changed = append(changed, n)
		}
		if strings.Contains(s, "100000") || strings.Contains(s, "OFFSET 1000") {
			t.Errorf("q%d still has a large threshold: %s", n, s)
		}
	}
	want := []int{28, 29, 39, 40, 41, 42, 43}
	if len(changed) != len(want) {
		t.Fatalf("scaled queries %v, want %v", changed, want)
	}
	for i := range want {
		if changed[i] != want[i] {
			t.Fatalf("scaled queries %v, want %v", changed, want)
		}
	}
}

// TestOrderKeys: every ORDER BY ... LIMIT query whose order may tie is
// listed, and its key columns exist in its select list.
func TestOrderKeys(t *testing.T) {
	for n := 1; n <= Count; n++ {
		q, _ := Published(n)
		keys, ok := OrderKeys(n)
		unique := n == 24 || n == 25 || n == 27 || n == 43
		if strings.Contains(q, " LIMIT ") && !ok && !unique {
			t.Errorf("q%d has a LIMIT but no ORDER BY keys", n)
		}
		cols := strings.Count(q[:strings.Index(q, " FROM hits")], ",") + 1
		for _, k := range keys {
			if k < 0 || k >= cols {
				t.Errorf("q%d: key column %d outside its %d columns", n, k, cols)
			}
		}
	}
}
