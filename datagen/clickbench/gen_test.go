package clickbench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

func collect(t *testing.T, g *Generator, first, count int64, batch int) []arrow.Record {
	t.Helper()
	var recs []arrow.Record
	err := g.GenerateRange(context.Background(), first, count, batch, func(r arrow.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return recs
}

// cell renders column c of row i of recs (rows counted across records).
func cell(recs []arrow.Record, c, i int) string {
	for _, r := range recs {
		if i < int(r.NumRows()) {
			return r.Column(c).ValueStr(i)
		}
		i -= int(r.NumRows())
	}
	return "<none>"
}

func TestSchemaIsPublished(t *testing.T) {
	s := Schema()
	if s.NumFields() != 105 {
		t.Fatalf("%d columns, want 105", s.NumFields())
	}
	for i, want := range map[int]string{0: "WatchID", 4: "EventTime", 5: "EventDate", 39: "SearchPhrase", 104: "CLID"} {
		if got := s.Field(i).Name; got != want {
			t.Errorf("column %d is %s, want %s", i, got, want)
		}
	}
}

// TestDeterministic: the same seed gives the same rows whatever the
// batching and ranges; another seed gives other rows.
func TestDeterministic(t *testing.T) {
	g, err := New(3000, 7)
	if err != nil {
		t.Fatal(err)
	}
	whole := collect(t, g, 0, 3000, 0)
	parts := append(collect(t, g, 0, 1000, 333), collect(t, g, 1000, 5000, 700)...)
	for i := 0; i < 3000; i += 7 {
		for c := 0; c < 105; c += 3 {
			if a, b := cell(whole, c, i), cell(parts, c, i); a != b {
				t.Fatalf("row %d column %d: %q vs %q", i, c, a, b)
			}
		}
	}
	g2, _ := New(3000, 8)
	other := collect(t, g2, 0, 10, 0)
	if cell(other, cURL, 0)+cell(other, cWatchID, 0) == cell(whole, cURL, 0)+cell(whole, cWatchID, 0) {
		t.Error("seeds 7 and 8 gave the same first row")
	}
	if _, err := New(-1, 0); err == nil {
		t.Error("New(-1) did not fail")
	}
}

// TestValueShapes checks the shapes the queries rely on.
func TestValueShapes(t *testing.T) {
	const n = 20000
	g, _ := New(n, 1)
	recs := collect(t, g, 0, n, 0)
	var emptyPhrase, adv0, counter62, knownUser, google, topURL, topRef int
	times := map[int64]bool{}
	lo := time.Date(2013, 7, 1, 0, 0, 0, 0, time.UTC)
	hi := lo.AddDate(0, 1, 0)
	for _, r := range recs {
		phrase := r.Column(cSearchPhrase).(*array.String)
		et := r.Column(cEventTime).(*array.Timestamp)
		ed := r.Column(cEventDate).(*array.Date32)
		url := r.Column(cURL).(*array.String)
		for i := 0; i < int(r.NumRows()); i++ {
			if phrase.Value(i) == "" {
				emptyPhrase++
			}
			if r.Column(cAdvEngineID).(*array.Int64).Value(i) == 0 {
				adv0++
			}
			if r.Column(cCounterID).(*array.Int64).Value(i) == topCounterID {
				counter62++
			}
			if r.Column(cUserID).(*array.Int64).Value(i) == knownUserID {
				knownUser++
			}
			if strings.Contains(url.Value(i), "google") {
				google++
			}
			if r.Column(cURLHash).(*array.Int64).Value(i) == topURLHash {
				topURL++
			}
			if r.Column(cRefererHash).(*array.Int64).Value(i) == topRefererHash {
				topRef++
			}
			ts := time.UnixMicro(int64(et.Value(i))).UTC()
			if ts.Before(lo) || !ts.Before(hi) {
				t.Fatalf("EventTime %v outside July 2013", ts)
			}
			if d := ed.Value(i).ToTime(); !d.Equal(ts.Truncate(24 * time.Hour)) {
				t.Fatalf("EventDate %v is not the day of %v", d, ts)
			}
			if times[int64(et.Value(i))] {
				t.Fatalf("EventTime %v twice", ts)
			}
			times[int64(et.Value(i))] = true
		}
	}
	check := func(what string, got int, lo, hi float64) {
		if f := float64(got) / n; f < lo || f > hi {
			t.Errorf("%s: %.3f of the rows, want %.3f..%.3f", what, f, lo, hi)
		}
	}
	check("empty SearchPhrase", emptyPhrase, 0.85, 0.9)
	check("AdvEngineID 0", adv0, 0.95, 0.99)
	check("CounterID 62", counter62, 0.05, 0.4)
	check("UserID of Q20", knownUser, 0.0005, 0.05)
	check("URL with google", google, 0.005, 0.2)
	check("URLHash of Q41", topURL, 0.001, 0.1)
	check("RefererHash of Q42", topRef, 0.001, 0.1)
}

func BenchmarkGenerate(b *testing.B) {
	g, _ := New(1_000_000, 1)
	for i := 0; i < b.N; i++ {
		recs, err := g.Records(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			r.Release()
		}
	}
}

// TestTieFreeRows checks TieFreeRows: the first TieFreeRows rows have
// different EventTimes (the stride is coprime to the month's seconds), and
// the next row repeats the first row's.
func TestTieFreeRows(t *testing.T) {
	if TieFreeRows != monthSeconds {
		t.Fatalf("TieFreeRows %d, month has %d seconds", TieFreeRows, monthSeconds)
	}
	a, b := int64(timeStride), monthSeconds
	for b != 0 {
		a, b = b, a%b
	}
	if a != 1 {
		t.Fatalf("timeStride %d shares the factor %d with %d", timeStride, a, monthSeconds)
	}
	g, err := New(TieFreeRows+1, 7)
	if err != nil {
		t.Fatal(err)
	}
	eventTime := func(row int64) arrow.Timestamp {
		recs := collect(t, g, row, 1, 0)
		defer recs[0].Release()
		return recs[0].Column(cEventTime).(*array.Timestamp).Value(0)
	}
	if x, y := eventTime(0), eventTime(TieFreeRows); x != y {
		t.Errorf("row %d's EventTime %d differs from row 0's %d", TieFreeRows, y, x)
	}
	if x, y := eventTime(0), eventTime(TieFreeRows-1); x == y {
		t.Errorf("rows 0 and %d share EventTime %d", TieFreeRows-1, x)
	}
}
