package sql

import (
	"regexp"
	"testing"

	"github.com/xwb1989/sqlparser"
)

var markerRE = regexp.MustCompile(CTEMarker + `[0-9a-z_]+`)

// TestSharedCTEMarker checks that exactly the CTEs referenced more than
// once reach the planner under the shared-CTE marker.
func TestSharedCTEMarker(t *testing.T) {
	for _, tc := range []struct {
		q      string
		shared []string // CTE names marked
	}{
		{"WITH d AS (SELECT 1 AS x) SELECT * FROM d", nil},
		{"WITH d AS (SELECT 1 AS x) SELECT * FROM d, d AS e", []string{"d"}},
		{"WITH d AS (SELECT 1 AS x) SELECT * FROM d JOIN d e ON d.x = e.x", []string{"d"}},
		// a is used twice inside b's text; b once.
		{"WITH a AS (SELECT 1 AS x), b AS (SELECT * FROM a, a AS c) SELECT * FROM b", []string{"a"}},
		{"WITH a AS (SELECT 1 AS x), b AS (SELECT * FROM a) SELECT * FROM a, b", []string{"a"}},
		{"WITH d AS (SELECT 1 AS x) SELECT * FROM d WHERE x IN (SELECT x FROM d)", []string{"d"}},
	} {
		st, err := ParseOne(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		text := sqlparser.String(st.(*Select).Stmt)
		marked := map[string]bool{}
		for _, m := range markerRE.FindAllString(text, -1) {
			info, ok := ParseMarker(m)
			if !ok {
				t.Fatalf("%s: bad marker %s", tc.q, m)
			}
			marked[info.Name] = true
		}
		if len(marked) != len(tc.shared) {
			t.Errorf("%s: marked %v in %s, want %v", tc.q, marked, text, tc.shared)
		}
		for _, name := range tc.shared {
			if !marked[name] {
				t.Errorf("%s: %s not marked in %s", tc.q, name, text)
			}
		}
	}
}
