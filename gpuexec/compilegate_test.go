package gpuexec

import (
	"testing"
	"time"
)

func TestRepeated(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	for i, want := range []bool{false, true, true} {
		if got := d.Repeated("shape a"); got != want {
			t.Fatalf("ask %d: Repeated = %v, want %v", i, got, want)
		}
	}
	if d.Repeated("shape b") {
		t.Fatal("a new shape reported as repeated")
	}
}

// TestHostCompileSlots takes every slot, then checks that one more waits
// until a slot is given back, also from a second device (another
// process's, as far as the files know).
func TestHostCompileSlots(t *testing.T) {
	dir := t.TempDir()
	d, _ := newFakeDevice(t, Options{CacheDir: dir})
	defer d.Close()
	other, _ := newFakeDevice(t, Options{CacheDir: dir})
	defer other.Close()
	var held []func()
	for range compileWorkers() {
		held = append(held, d.hostCompileSlot())
	}
	got := make(chan func())
	go func() { got <- other.hostCompileSlot() }()
	select {
	case <-got:
		t.Fatal("a slot past the host's bound was handed out")
	case <-time.After(100 * time.Millisecond):
	}
	held[0]()
	select {
	case release := <-got:
		release()
	case <-time.After(5 * time.Second):
		t.Fatal("a freed slot was not taken")
	}
	for _, release := range held[1:] {
		release()
	}
}
