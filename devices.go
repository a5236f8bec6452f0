package gsql

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
)

// Several GPUs (Options.Devices): the database opens a device state on
// each GPU it is given, with its own resident tables, and the
// place_exchanges rule spreads device plans over all of them (tables by
// row groups, exchanges between the devices; docs/SCALEOUT.md). The
// first device runs what a plan does once (the final merge, the sort of
// gathered rows) and hands the result to the host.

// parseDevices reads Options.Devices: "" or "all" (every GPU present:
// nil) or a comma-separated list of distinct GPU ordinals, in the order
// the database uses them.
func parseDevices(spec string) ([]int, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || strings.EqualFold(spec, "all") {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a GPU number (want \"all\" or numbers such as \"0,2\")", strings.TrimSpace(f))
		}
		if seen[n] {
			return nil, fmt.Errorf("GPU %d listed twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// deviceOrdinals resolves the database's device list against the count
// of GPUs present: the ordinals to open, and a warning for each listed
// one that is not there.
func deviceOrdinals(spec string, count int) (use []int, missing []string, err error) {
	list, err := parseDevices(spec)
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(spec) == "" {
		// Until plans spread over several devices, the default opens the
		// first GPU only: a context and pool on the others would cost
		// their memory for nothing.
		list = []int{0}
		if count == 0 {
			return nil, nil, nil
		}
	}
	if list == nil {
		for i := 0; i < count; i++ {
			use = append(use, i)
		}
		return use, nil, nil
	}
	for _, o := range list {
		if o >= count {
			missing = append(missing, fmt.Sprintf("GPU %d: not present (%d GPUs)", o, count))
			continue
		}
		use = append(use, o)
	}
	return use, missing, nil
}

// openOtherDevices opens the devices after the first, at once (a context
// costs a fraction of a second per GPU): one shared device state each
// (gpuexec.Open). A device that fails to open is skipped with a warning
// in Stats.SkippedDevices, or, with Options.Device "gpu" (strict), fails
// the whole runtime.
func (db *DB) openOtherDevices(ordinals []int, opts gpuexec.Options) error {
	strict := strings.EqualFold(strings.TrimSpace(db.opts.Device), "gpu")
	devs := make([]*gpuexec.Device, len(ordinals))
	errs := make([]error, len(ordinals))
	var wg sync.WaitGroup
	for i := range ordinals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Ordinal = ordinals[i]
			devs[i], errs[i] = gpuexec.Open(o)
		}()
	}
	wg.Wait()
	var failed error
	for i, o := range ordinals {
		switch {
		case errs[i] == nil:
			db.gpuState.others = append(db.gpuState.others, devs[i])
		case strict && failed == nil:
			failed = fmt.Errorf("gsql: opening GPU %d (Options.Devices %q): %w", o, db.opts.Devices, errs[i])
		case !strict:
			db.gpuState.skipped = append(db.gpuState.skipped, fmt.Sprintf("GPU %d: %v", o, errs[i]))
		}
	}
	return failed
}

// spreadRuntimes gives every other open device a runtime with its own
// resident tables, and makes the transport among all of them (peer
// access where the pairs have it). With one device it does nothing.
func (db *DB) spreadRuntimes() error {
	if len(db.gpuState.others) == 0 {
		return nil
	}
	rts := []*operators.DeviceRuntime{db.gpuState.rt}
	devs := []*gpuexec.Device{db.gpuState.rt.Dev}
	for _, d := range db.gpuState.others {
		budget := db.opts.CacheBudget
		if budget == 0 {
			budget = operators.DefaultCacheBudget(d.MemoryLimit())
		}
		rts = append(rts, &operators.DeviceRuntime{Dev: d, Cache: gpuexec.NewTableCache(d, budget)})
		devs = append(devs, d)
	}
	local, err := exchange.NewLocal(devs)
	if err != nil {
		return fmt.Errorf("gsql: connecting the GPUs of Options.Devices %q: %w", db.opts.Devices, err)
	}
	db.gpuState.spread, db.gpuState.transport = rts, local
	db.gpuState.links = local.Warnings()
	return nil
}

// invalidateResident drops a changed table from every device: the whole
// table and each device's share of its row groups.
func (db *DB) invalidateResident(name string) {
	db.gpuState.rt.Cache.Invalidate(name)
	n := len(db.gpuState.spread)
	for i, rt := range db.gpuState.spread {
		rt.Cache.Invalidate(name)
		rt.Cache.Invalidate(operators.ShareName(name, i, n))
	}
}

// closeOtherDevices gives back the devices after the first.
func (db *DB) closeOtherDevices() error {
	for _, rt := range db.gpuState.spread[min(1, len(db.gpuState.spread)):] {
		rt.Cache.Clear()
	}
	db.gpuState.spread, db.gpuState.transport, db.gpuState.links = nil, nil, nil
	var first error
	for _, d := range db.gpuState.others {
		if err := d.Close(); err != nil && first == nil {
			first = fmt.Errorf("closing GPU %d: %w", d.Info().Ordinal, err)
		}
	}
	db.gpuState.others = nil
	return first
}

// DeviceStats are one GPU's counters in Stats.Devices.
type DeviceStats struct {
	Ordinal int
	Name    string
	// Queries is true for the device queries run on (the first listed).
	Queries bool
	gpuexec.Stats
}

// deviceStats lists every open GPU's counters, the query device first.
func (db *DB) deviceStats() []DeviceStats {
	rt := db.gpuState.rt
	if rt == nil {
		return nil
	}
	out := []DeviceStats{{Ordinal: rt.Dev.Info().Ordinal, Name: rt.Dev.Info().Name, Queries: true, Stats: rt.Dev.Stats()}}
	for _, d := range db.gpuState.others {
		out = append(out, DeviceStats{Ordinal: d.Info().Ordinal, Name: d.Info().Name, Stats: d.Stats()})
	}
	return out
}

// devicesString renders the per-device lines of .stats (when more than
// one GPU is open or one was skipped), and the pairs that copy through
// the host for want of peer access they should have had.
func devicesString(devs []DeviceStats, skipped, links []string) string {
	if len(devs) < 2 && len(skipped) == 0 {
		return ""
	}
	var b strings.Builder
	for _, d := range devs {
		role := ""
		if d.Queries {
			role = ", runs the queries"
		}
		fmt.Fprintf(&b, "gpu %d (%s%s): %d bytes in use, %d peak, %d launches, %s busy, %d bytes to the device, %d to the host, %d to other GPUs\n",
			d.Ordinal, d.Name, role, d.Memory.InUse, d.Memory.Peak, d.Launches, d.ThreadTime.Round(time.Millisecond), d.BytesToDevice, d.BytesToHost, d.BytesToPeer)
	}
	for _, s := range skipped {
		fmt.Fprintf(&b, "gpu skipped: %s\n", s)
	}
	for _, s := range links {
		fmt.Fprintf(&b, "gpu link: %s\n", s)
	}
	return b.String()
}
