package operators

import (
	"errors"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestRowGroupShare: groups of one size go round-robin, uneven ones to
// the device holding the fewest rows; every group is held once; a load
// error comes through.
func TestRowGroupShare(t *testing.T) {
	groups := make([]*coldata.Batch, 7)
	for i := range groups {
		groups[i] = &coldata.Batch{Len: i + 1}
	}
	load := func() ([]*coldata.Batch, error) { return groups, nil }
	for _, c := range []struct {
		i, n int
		want []int // Len of each group held
	}{
		{0, 3, []int{1, 4, 7}},
		{1, 3, []int{2, 5}},
		{2, 3, []int{3, 6}},
		{0, 1, []int{1, 2, 3, 4, 5, 6, 7}},
		{7, 8, nil},
	} {
		got, err := RowGroupShare(load, c.i, c.n)()
		if err != nil {
			t.Fatal(err)
		}
		var lens []int
		for _, b := range got {
			lens = append(lens, b.Len)
		}
		if !slices.Equal(lens, c.want) {
			t.Errorf("share %d of %d: %v, want %v", c.i, c.n, lens, c.want)
		}
	}
	// Uneven groups (rows 300, 41, 1, 500, 260, 7, 390): 307, 691 and
	// 501 rows per device, where round-robin would hold 1190, 301 and 8.
	uneven := []*coldata.Batch{{Len: 300}, {Len: 41}, {Len: 1}, {Len: 500}, {Len: 260}, {Len: 7}, {Len: 390}}
	seen := 0
	for i, want := range [][]int{{300, 7}, {41, 260, 390}, {1, 500}} {
		got, err := RowGroupShare(func() ([]*coldata.Batch, error) { return uneven, nil }, i, 3)()
		if err != nil {
			t.Fatal(err)
		}
		var lens []int
		for _, b := range got {
			lens = append(lens, b.Len)
		}
		seen += len(lens)
		if !slices.Equal(lens, want) {
			t.Errorf("uneven share %d of 3: %v, want %v", i, lens, want)
		}
	}
	if seen != len(uneven) {
		t.Errorf("%d groups held, want %d", seen, len(uneven))
	}
	boom := errors.New("boom")
	if _, err := RowGroupShare(func() ([]*coldata.Batch, error) { return nil, boom }, 0, 2)(); !errors.Is(err, boom) {
		t.Errorf("load error: %v", err)
	}
	if a, b := ShareName("t", 0, 2), ShareName("t", 1, 2); a == b || a == "t" {
		t.Errorf("share names %q %q", a, b)
	}
}
