package gpuexec_test

// The exchange package's CI test: three fake devices (the fake driver
// exists only in this directory's test build, gpuexec.FakeDevices), every
// exchange kind, answers checked against the CPU.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/gpuexec"
)

// exchangeBatch is n rows of keys of every hashable type with NULLs
// (BIGINT, VARCHAR with multibyte text, DOUBLE with both zeros, DECIMAL,
// BOOL) and a BIGINT payload numbering the rows from base.
func exchangeBatch(r *rand.Rand, n, base int) *coldata.Batch {
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.DecimalOf(20, 2), coldata.Bool, coldata.Int64}
	bs := make([]*coldata.Builder, len(types))
	for i, t := range types {
		bs[i] = coldata.NewBuilder(t, n)
	}
	words := []string{"", "a", "ünï", "日本語", "key-7", "key-70"}
	for i := 0; i < n; i++ {
		for c, b := range bs[:5] {
			if r.Intn(9) == 0 {
				b.AppendNull()
				continue
			}
			switch c {
			case 0:
				b.AppendInt(int64(r.Intn(50) - 25))
			case 1:
				b.AppendString(words[r.Intn(len(words))])
			case 2:
				b.AppendFloat([]float64{0, math.Copysign(0, -1), 1.5, -2.25}[r.Intn(4)])
			case 3:
				b.AppendDec(decimal.Int128{Lo: uint64(r.Intn(1000)), Hi: -int64(r.Intn(2))})
			case 4:
				b.AppendBool(r.Intn(2) == 0)
			}
		}
		bs[5].AppendInt(int64(base + i))
	}
	cols := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

// rowKeys renders every row of hb as text (NULL apart from any value).
func rowKeys(hb *coldata.Batch) []string {
	out := make([]string, hb.Len)
	for r := range out {
		s := ""
		for _, c := range hb.Cols {
			if c.IsNull(r) {
				s += "|NULL"
			} else {
				s += fmt.Sprintf("|%v", c.Value(r))
			}
		}
		out[r] = s
	}
	return out
}

func downloadAll(t *testing.T, devs []*gpuexec.Device, bs []*gpuexec.DeviceBatch) []string {
	t.Helper()
	var rows []string
	for _, b := range bs {
		hb, err := b.Device().Download(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rowKeys(hb)...)
		hb.ReleaseOwner()
	}
	slices.Sort(rows)
	return rows
}

func TestFakeExchangeThreeDevices(t *testing.T) {
	t.Run("whole", func(t *testing.T) { runFakeExchange(t) })
	// Copies in many odd-sized steps, over both routes.
	t.Run("steps", func(t *testing.T) {
		defer gpuexec.SetCopyChunk(gpuexec.SetCopyChunk(999))
		runFakeExchange(t)
	})
}

func runFakeExchange(t *testing.T) {
	ctx := context.Background()
	// Devices 0 and 1 are peers; 2 reaches them only through the host.
	devs, peerCopies := gpuexec.FakeDevices(t, 3, func(from, to int) bool { return from != 2 && to != 2 })
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	if !devs[0].PeerEnabled(devs[1]) || devs[0].PeerEnabled(devs[2]) || devs[2].PeerEnabled(devs[1]) {
		t.Fatal("peer access enabled on the wrong pairs")
	}
	var splits atomic.Int64
	split := func(ctx context.Context, b *gpuexec.DeviceBatch, keys []int, n int) ([]*gpuexec.DeviceBatch, error) {
		splits.Add(1)
		return exchange.HostSplit(ctx, b, keys, n)
	}
	g := &exchange.Group{Devices: devs, Transport: local, Split: split}
	r := rand.New(rand.NewSource(37))

	// Seven batches, round-robin over the devices, one of them empty.
	in := make(exchange.Parts, 3)
	var want []string
	base := 0
	for k, n := range []int{500, 0, 1200, 77, 640, 3, 999} {
		hb := exchangeBatch(r, n, base)
		base += n
		want = append(want, rowKeys(hb)...)
		db, err := devs[k%3].Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		in[k%3] = append(in[k%3], db)
	}
	slices.Sort(want)

	// Each device's small batches are split as one (exchange.CoalesceBytes);
	// with coalescing off, one by one: 6 non-empty batches.
	for _, c := range []struct {
		bytes  uint64
		splits int64
	}{{exchange.CoalesceBytes, 3}, {0, 6}} {
		old := exchange.CoalesceBytes
		exchange.CoalesceBytes = c.bytes
		splits.Store(0)
		out, err := g.Repartition(ctx, in, []int{0})
		exchange.CoalesceBytes = old
		if err != nil {
			t.Fatal(err)
		}
		var all []*gpuexec.DeviceBatch
		for _, bs := range out {
			all = append(all, bs...)
		}
		if got := downloadAll(t, devs, all); splits.Load() != c.splits || !slices.Equal(got, want) {
			t.Errorf("coalescing up to %d bytes: %d splits (want %d), %d rows (want %d)", c.bytes, splits.Load(), c.splits, len(got), len(want))
		}
		out.Release()
	}

	for _, keys := range [][]int{{0}, {1}, {0, 1}, {2, 3, 4}} {
		t.Run(fmt.Sprint("repartition", keys), func(t *testing.T) {
			out, err := g.Repartition(ctx, in, keys)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if out.Rows() != len(want) {
				t.Fatalf("%d rows out, %d in", out.Rows(), len(want))
			}
			var all []*gpuexec.DeviceBatch
			for j, bs := range out {
				for _, b := range bs {
					if !devs[j].Same(b.Device()) {
						t.Fatalf("a batch of device %d lives elsewhere", j)
					}
					hb, err := devs[j].Download(ctx, b)
					if err != nil {
						t.Fatal(err)
					}
					dest, err := gpuexec.HashDestinations(hb, keys, 3)
					if err != nil {
						t.Fatal(err)
					}
					for row, d := range dest {
						if d != j {
							t.Fatalf("row %v on device %d hashes to %d", rowKeys(hb)[row], j, d)
						}
					}
					hb.ReleaseOwner()
				}
				all = append(all, bs...)
			}
			if got := downloadAll(t, devs, all); !slices.Equal(got, want) {
				t.Fatalf("repartition lost or changed rows: %d rows, want %d", len(got), len(want))
			}

			// Gather the repartitioned rows to the device without peers:
			// each other device's small batches cross as one.
			gathered, err := g.Gather(ctx, out, 2)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(out[2]) + min(len(out[0]), 1) + min(len(out[1]), 1); len(gathered) != want {
				t.Errorf("gathered %d batches, want %d", len(gathered), want)
			}
			for _, b := range gathered {
				if !devs[2].Same(b.Device()) {
					t.Fatal("a gathered batch is not on device 2")
				}
			}
			got := downloadAll(t, devs, gathered)
			for _, b := range gathered {
				b.Release()
			}
			if !slices.Equal(got, want) {
				t.Fatalf("gather: %d rows, want %d", len(got), len(want))
			}
		})
	}

	t.Run("broadcast", func(t *testing.T) {
		// Rows 10 to 300 of the 640 on device 1: a view, packed to move.
		small, err := gpuexec.Slice(in[1][1], 10, 300)
		if err != nil {
			t.Fatal(err)
		}
		defer small.Release()
		hb, err := devs[1].Download(ctx, small)
		if err != nil {
			t.Fatal(err)
		}
		wantSmall := rowKeys(hb)
		slices.Sort(wantSmall)
		out, err := g.Broadcast(ctx, []*gpuexec.DeviceBatch{small})
		if err != nil {
			t.Fatal(err)
		}
		defer out.Release()
		for j, bs := range out {
			if len(bs) != 1 || !devs[j].Same(bs[0].Device()) {
				t.Fatalf("device %d got %d batches", j, len(bs))
			}
			if got := downloadAll(t, devs, bs); !slices.Equal(got, wantSmall) {
				t.Fatalf("device %d: broadcast rows differ", j)
			}
		}
	})

	st := local.Stats()
	if st.PeerBytes == 0 || st.StagedBytes == 0 || st.Moves == 0 {
		t.Fatalf("transport stats %+v: want both routes used", st)
	}
	if pc := peerCopies(); pc[0] == 0 || pc[1] == 0 || pc[2] != 0 {
		t.Fatalf("direct peer copies per device %v: want 0 and 1 only", pc)
	}
	if devs[0].Stats().BytesToPeer == 0 || devs[2].Stats().BytesToPeer != 0 {
		t.Fatal("BytesToPeer does not count the peer copies")
	}
	in.Release()
	for i, d := range devs {
		if n := gpuexec.InUse(d); n != 0 {
			t.Fatalf("device %d: %d bytes still in use", i, n)
		}
	}
}

// TestFakeExchangeErrors: misplaced batches, bad targets and a cancelled
// context fail with their kinds and leave nothing held.
func TestFakeExchangeErrors(t *testing.T) {
	ctx := context.Background()
	devs, _ := gpuexec.FakeDevices(t, 3, nil)
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	g := &exchange.Group{Devices: devs, Transport: local, Split: exchange.HostSplit}
	hb := exchangeBatch(rand.New(rand.NewSource(1)), 300, 0)
	b, err := devs[0].Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		run  func() error
		want error
	}{
		{"misplaced", func() error {
			_, err := g.Repartition(ctx, exchange.Parts{nil, {b}, nil}, []int{0})
			return err
		}, gpuexec.ErrInvalidArgument},
		{"too few devices", func() error { _, err := g.Gather(ctx, exchange.Parts{{b}}, 0); return err }, gpuexec.ErrInvalidArgument},
		{"bad target", func() error { _, err := g.Gather(ctx, exchange.Parts{{b}, nil, nil}, 3); return err }, gpuexec.ErrInvalidArgument},
		{"bad key", func() error {
			_, err := g.Repartition(ctx, exchange.Parts{{b}, nil, nil}, []int{9})
			return err
		}, gpuexec.ErrInvalidArgument},
		{"cancelled repartition", func() error {
			_, err := g.Repartition(cancelled, exchange.Parts{{b}, nil, nil}, []int{0})
			return err
		}, context.Canceled},
		{"cancelled broadcast", func() error {
			_, err := g.Broadcast(cancelled, []*gpuexec.DeviceBatch{b})
			return err
		}, context.Canceled},
		{"no transport", func() error {
			_, err := (&exchange.Group{Devices: devs}).Broadcast(ctx, nil)
			return err
		}, gpuexec.ErrInvalidArgument},
	} {
		if err := c.run(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	for i, d := range devs[1:] {
		if n := gpuexec.InUse(d); n != 0 {
			t.Fatalf("device %d: %d bytes still in use", i+1, n)
		}
	}
}

// TestRowHashRules: the CPU hash keeps grouping equality (NULL with NULL,
// -0.0 with 0.0, a constant with the same value stored per row), and
// HashDestination spreads rows over every destination.
func TestRowHashRules(t *testing.T) {
	f := coldata.NewBuilder(coldata.Float64, 2)
	f.AppendFloat(0)
	f.AppendFloat(math.Copysign(0, -1))
	fv := f.Finish()
	if gpuexec.RowHash([]*coldata.Vec{fv}, 0) != gpuexec.RowHash([]*coldata.Vec{fv}, 1) {
		t.Error("-0.0 and 0.0 hash apart")
	}
	n := coldata.NewBuilder(coldata.String, 2)
	n.AppendNull()
	n.AppendNull()
	nv, nullType := n.Finish(), coldata.NewConst(coldata.Null, nil, 2)
	if gpuexec.RowHash([]*coldata.Vec{nv}, 0) != gpuexec.RowHash([]*coldata.Vec{nullType}, 1) {
		t.Error("NULLs hash apart")
	}
	s := coldata.NewBuilder(coldata.String, 1)
	s.AppendString("ünï")
	if gpuexec.RowHash([]*coldata.Vec{s.Finish()}, 0) != gpuexec.RowHash([]*coldata.Vec{coldata.NewConst(coldata.String, "ünï", 5)}, 3) {
		t.Error("a constant hashes apart from the same value")
	}
	iv := coldata.NewBuilder(coldata.Int64, 3000)
	for i := 0; i < 3000; i++ {
		iv.AppendInt(int64(i))
	}
	hb := coldata.NewBatch([]*coldata.Vec{iv.Finish()}, 3000)
	for _, n := range []int{1, 2, 3, 7, 256} {
		dest, err := gpuexec.HashDestinations(hb, []int{0}, n)
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int, n)
		for _, d := range dest {
			count[d]++
		}
		for d, c := range count {
			if n <= 7 && (c < 3000/n*3/4 || c > 3000/n*5/4) {
				t.Errorf("%d destinations: %d rows to %d", n, c, d)
			}
		}
	}
	if _, err := gpuexec.HashDestinations(hb, []int{0}, 257); !errors.Is(err, gpuexec.ErrInvalidArgument) {
		t.Errorf("257 destinations: %v", err)
	}
}

// TestFakeExchangePeerRefused: a pair whose peer access cannot be enabled
// (the driver refuses one direction) is a warning, not an error: that
// direction copies through the host, the other over the peer link, and
// a repartition loses nothing.
func TestFakeExchangePeerRefused(t *testing.T) {
	ctx := context.Background()
	devs, _ := gpuexec.FakeDevices(t, 3, nil) // every pair has peer access
	gpuexec.RefusePeers(devs[2])
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	if w := local.Warnings(); len(w) != 2 || !strings.Contains(w[0], "CUDA_ERROR_TOO_MANY_PEERS") {
		t.Fatalf("warnings %q, want the two pairs with device 2", w)
	}
	if !devs[0].PeerEnabled(devs[1]) || devs[2].PeerEnabled(devs[0]) {
		t.Fatal("peer access enabled on the wrong pairs")
	}
	g := &exchange.Group{Devices: devs, Transport: local, Split: exchange.HostSplit}
	r := rand.New(rand.NewSource(7))
	in := make(exchange.Parts, 3)
	var want []string
	for k, n := range []int{300, 450, 999} {
		hb := exchangeBatch(r, n, k*1000)
		want = append(want, rowKeys(hb)...)
		db, err := devs[k].Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		in[k] = append(in[k], db)
	}
	defer in.Release()
	out, err := g.Repartition(ctx, in, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	var all []*gpuexec.DeviceBatch
	for _, bs := range out {
		all = append(all, bs...)
	}
	got := downloadAll(t, devs, all)
	out.Release()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	if s := local.Stats(); s.PeerBytes == 0 || s.StagedBytes == 0 {
		t.Fatalf("transport %+v: want peer copies and host staging", s)
	}
}

// slowTransport moves batches through Local after a delay that a
// cancelled context cuts short, as a long copy checks its context
// between steps.
type slowTransport struct {
	local *exchange.Local
	delay time.Duration
	moved atomic.Int64 // moves that completed
}

func (s *slowTransport) Move(ctx context.Context, b *gpuexec.DeviceBatch, dst *gpuexec.Device) (*gpuexec.DeviceBatch, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(s.delay):
	}
	out, err := s.local.Move(ctx, b, dst)
	if err == nil {
		s.moved.Add(1)
	}
	return out, err
}

// TestFakeExchangeCancelStopsEveryDevice: a query cancelled while its
// repartition and gather run stops every device's moves (issue 37: within
// 10 ms; here, none of the remaining ones completes), returns the
// context's error and leaves nothing held.
func TestFakeExchangeCancelStopsEveryDevice(t *testing.T) {
	devs, _ := gpuexec.FakeDevices(t, 3, nil)
	local, err := exchange.NewLocal(devs)
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowTransport{local: local, delay: 50 * time.Millisecond}
	old := exchange.CoalesceBytes
	exchange.CoalesceBytes = 0 // every batch moves on its own
	defer func() { exchange.CoalesceBytes = old }()
	g := &exchange.Group{Devices: devs, Transport: slow, Split: exchange.HostSplit}
	r := rand.New(rand.NewSource(3))
	in := make(exchange.Parts, 3)
	for k := 0; k < 30; k++ {
		db, err := devs[k%3].Upload(context.Background(), exchangeBatch(r, 200, 200*k))
		if err != nil {
			t.Fatal(err)
		}
		in[k%3] = append(in[k%3], db)
	}
	for _, c := range []struct {
		name  string
		moves int64 // the whole exchange's: a batch to each device, or each to device 0
		run   func(ctx context.Context) error
	}{
		{"repartition", 90, func(ctx context.Context) error {
			out, err := g.Repartition(ctx, in, []int{0})
			out.Release()
			return err
		}},
		{"gather", 30, func(ctx context.Context) error {
			out, err := g.Gather(ctx, in, 0)
			for _, b := range out {
				b.Release()
			}
			return err
		}},
	} {
		slow.moved.Store(0)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.run(ctx) }()
		time.Sleep(30 * time.Millisecond)
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want the context's error", c.name, err)
		}
		// Each device's moves take 50 ms each, one after another: at
		// least half a second for the whole exchange.
		if n := slow.moved.Load(); n >= c.moves {
			t.Errorf("%s: all %d moves completed despite a cancel at 30 ms", c.name, n)
		}
	}
	in.Release()
	for i, d := range devs {
		if n := d.InUse(); n != 0 {
			t.Errorf("device %d holds %d bytes after the cancelled exchanges and its input", i, n)
		}
	}
}
