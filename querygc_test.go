package gsql

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestCollectQueryGarbage checks the trigger of querygc.go with the
// runtime's own collections switched off: little garbage starts no
// collection, garbage past the threshold starts one.
func TestCollectQueryGarbage(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var sink [][]byte
	for _, tc := range []struct {
		name    string
		garbage int
		want    bool
	}{
		{name: "little garbage", garbage: 1 << 20, want: false},
		{name: "past the threshold", garbage: 2 * minQueryGarbage, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < tc.garbage>>16; i++ {
				sink = append(sink, make([]byte, 1<<16))
			}
			sink = nil
			collectQueryGarbage()
			deadline := time.Now().Add(10 * time.Second)
			for queryGC.running.Load() && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if got := after.NumGC > before.NumGC; got != tc.want {
				t.Fatalf("collected: %v, want %v (%d -> %d cycles)", got, tc.want, before.NumGC, after.NumGC)
			}
		})
	}
	_ = sink
}
