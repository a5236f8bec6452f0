package gpuexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCacheEntryFormat(t *testing.T) {
	img := []byte("FAKE-CUBIN\nsome image bytes")
	good := encodeEntry(img, true)
	flip := bytes.Clone(good)
	flip[len(flip)-3] ^= 0x40
	tests := []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"whole", good, true},
		{"empty image", encodeEntry(nil, false), true},
		{"empty file", nil, false},
		{"header cut", good[:cacheHeader-1], false},
		{"image cut", good[:len(good)-1], false},
		{"extra byte", append(bytes.Clone(good), 0), false},
		{"flipped bit", flip, false},
		{"raw image (old format)", img, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeEntry(tc.b)
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, errCorruptEntry) {
				t.Fatalf("error %v is not errCorruptEntry", err)
			}
			if tc.ok && !bytes.Equal(got, tc.b[cacheHeader:]) {
				t.Fatal("image differs")
			}
		})
	}
}

// cacheFiles lists the entries (not lock files) in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.cubin", "*.ptx"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		out = append(out, m...)
	}
	return out
}

// Devices of one process (separate drivers, as separate processes have)
// missing the same kernel at once compile it once: the others wait for
// the image (imageFlights; in separate processes, for the lock file) and
// load it, or read the entry when they come after it was written.
func TestCacheCompileOnceAcrossDevices(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	fakes := make([]*fakeDriver, n)
	devs := make([]*Device, n)
	for i := range devs {
		devs[i], fakes[i] = newFakeDevice(t, Options{CacheDir: dir})
		fakes[i].delay = 100 * time.Millisecond
		defer devs[i].Close()
	}
	var wg sync.WaitGroup
	from := make([]string, n)
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := d.Compile(Source{Name: "probe.cu", Code: probeSource})
			if err != nil {
				t.Error(err)
				return
			}
			from[i] = m.FromCache
		}()
	}
	wg.Wait()
	total := 0
	for _, f := range fakes {
		total += f.compiles
	}
	if total != 1 {
		t.Fatalf("%d compiles of one kernel by %d devices (from %q)", total, n, from)
	}
	if all := strings.Join(from, ","); strings.Count(all, "disk")+strings.Count(all, "shared") != n-1 {
		t.Fatalf("modules from %q, want one compile and the rest shared or from disk", from)
	}
	if files := cacheFiles(t, dir); len(files) != 1 {
		t.Fatalf("cache entries %v", files)
	}
}

// A truncated or damaged entry is a miss: compiled again and rewritten.
func TestCacheCorruptEntryRecompiled(t *testing.T) {
	for _, damage := range []struct {
		name string
		fn   func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"header only", func(b []byte) []byte { return b[:cacheHeader] }},
		{"flipped", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		{"empty", func([]byte) []byte { return nil }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			dir := t.TempDir()
			d, _ := newFakeDevice(t, Options{CacheDir: dir})
			if _, err := d.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
				t.Fatal(err)
			}
			d.Close()
			files := cacheFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("entries %v", files)
			}
			b, _ := os.ReadFile(files[0])
			os.WriteFile(files[0], damage.fn(b), 0o644)
			d2, f2 := newFakeDevice(t, Options{CacheDir: dir})
			defer d2.Close()
			m, err := d2.Compile(Source{Name: "probe.cu", Code: probeSource})
			if err != nil || m.FromCache != "" || f2.compiles != 1 {
				t.Fatalf("after damage: %v, from %q, %d compiles", err, m.FromCache, f2.compiles)
			}
			b, _ = os.ReadFile(files[0])
			if _, err := decodeEntry(b); err != nil {
				t.Fatalf("entry not rewritten: %v", err)
			}
		})
	}
}

// A compile waits for another holder of the kernel's lock only so long,
// then compiles itself.
func TestCacheLockWaitBounded(t *testing.T) {
	defer func(w time.Duration) { CompileLockWait = w }(CompileLockWait)
	CompileLockWait = 50 * time.Millisecond
	dir := t.TempDir()
	d, f := newFakeDevice(t, Options{CacheDir: dir})
	defer d.Close()
	key := CacheKey(Source{Name: "probe.cu", Code: probeSource}, d.info.Arch(), "13.0")
	unlock, ok, err := diskCache{dir}.lock(context.Background(), key, time.Second)
	if err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer unlock()
	start := time.Now()
	if _, err := d.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < CompileLockWait || f.compiles != 1 {
		t.Fatalf("compiled after %s with %d compiles", took, f.compiles)
	}
	// A cancelled wait stops at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := (diskCache{dir}).lock(ctx, key, time.Hour); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled lock: %v %v", ok, err)
	}
}

// cacheHelperEnv makes the test binary a helper process that compiles the
// probe kernel into the cache directory the variable names.
const cacheHelperEnv = "GSQL_TEST_CACHE_HELPER_DIR"

// cacheHelperDelayEnv sets how long the helper's compile takes.
const cacheHelperDelayEnv = "GSQL_TEST_CACHE_HELPER_DELAY"

// TestCacheHelperProcess is the helper: not a test on its own.
func TestCacheHelperProcess(t *testing.T) {
	dir := os.Getenv(cacheHelperEnv)
	if dir == "" {
		t.Skip("helper process of TestCacheCompileOnceAcrossProcesses")
	}
	var err error
	d, f := newFakeDevice(t, Options{CacheDir: dir})
	f.delay = 300 * time.Millisecond
	if v := os.Getenv(cacheHelperDelayEnv); v != "" {
		if f.delay, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	defer d.Close()
	m, err := d.Compile(Source{Name: "probe.cu", Code: probeSource})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("compiles=%d from=%q\n", f.compiles, m.FromCache)
}

// Processes writing the same entry at once: one compiles, the others read
// its entry whole.
func TestCacheCompileOnceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helper processes")
	}
	dir := t.TempDir()
	const n = 4
	outs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCacheHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), cacheHelperEnv+"="+dir)
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	total := 0
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("helper %d: %v\n%s", i, errs[i], outs[i])
		}
		s := string(outs[i])
		at := strings.Index(s, "compiles=")
		if at < 0 {
			t.Fatalf("helper %d said %q", i, s)
		}
		c, err := strconv.Atoi(strings.Fields(s[at+len("compiles="):])[0])
		if err != nil {
			t.Fatal(err)
		}
		total += c
	}
	if total != 1 {
		t.Fatalf("%d compiles by %d processes, want 1:\n%s", total, n, bytes.Join(outs, nil))
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("entries %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if _, err := decodeEntry(b); err != nil {
		t.Fatal(err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// A process killed while it compiles (holding the kernel's lock, its
// entry not written) leaves the cache usable: the lock dies with it, so
// the next compile of the kernel neither waits out CompileLockWait nor
// finds a partial entry (issue 39's fault case).
func TestCacheSurvivesKilledCompiler(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helper process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), cacheHelperEnv+"="+dir, cacheHelperDelayEnv+"=1m")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	// Wait until the helper holds a kernel lock.
	deadline := time.Now().Add(30 * time.Second)
	for held := false; !held; {
		if time.Now().After(deadline) {
			t.Fatal("the helper never took a kernel lock")
		}
		locks, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
		for _, l := range locks {
			f, err := os.OpenFile(l, os.O_RDWR, 0)
			if err != nil {
				continue
			}
			got, err := tryLock(f)
			if err == nil && got {
				unlockFile(f)
			}
			f.Close()
			held = held || (err == nil && !got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if cmd.ProcessState != nil {
		t.Fatal("the helper ended before it was killed")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper finished its one-minute compile: not killed mid-compile")
	}
	killed = true
	d, f := newFakeDevice(t, Options{CacheDir: dir})
	defer d.Close()
	start := time.Now()
	m, err := d.Compile(Source{Name: "probe.cu", Code: probeSource})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second || f.compiles != 1 || m.FromCache != "" {
		t.Fatalf("after the kill: %d compiles, from %q, in %v", f.compiles, m.FromCache, took)
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("entries %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if _, err := decodeEntry(b); err != nil {
		t.Fatal(err)
	}
}
