package gpuexec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Concurrent writers append whole lines: none is lost or torn.
func TestCompileLogConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compiles.log")
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("%032x-sm90-nvrtc13.0", i)
				if err := appendCompileLine(path, 1000+w, key, "fused kernel.cu", time.Duration(i)*time.Millisecond); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ParseCompileLog(f)
	if err != nil {
		t.Fatal(err)
	}
	s := SummarizeCompiles(recs)
	if s.Compiles != writers*each || s.Processes != writers || s.Kernels != each || len(s.Repeated) != each {
		t.Fatalf("summary %+v, want %d compiles by %d processes of %d kernels, each repeated", s, writers*each, writers, each)
	}
	if r := s.Repeated[0]; r.Count != writers || len(r.PIDs) != writers || r.Name != "fused_kernel.cu" {
		t.Fatalf("repeated %+v", r)
	}
}

func TestParseCompileLog(t *testing.T) {
	tests := []struct {
		name, log string
		want      int    // records
		err       string // substring of the error, "" for none
	}{
		{"empty", "", 0, ""},
		{"two", "12 k1 0.5 a.cu\n\n13 k1 1.25 a.cu\n", 2, ""},
		{"short line", "12 k1 0.5\n", 0, "line 1: 3 fields"},
		{"bad pid", "x k1 0.5 a.cu\n", 0, "line 1: pid"},
		{"bad seconds", "1 k 0.5 a\n1 k -1 a\n", 0, "line 2: seconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := ParseCompileLog(strings.NewReader(tc.log))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || len(recs) != tc.want {
				t.Fatalf("got %d records, %v; want %d", len(recs), err, tc.want)
			}
		})
	}
	recs, _ := ParseCompileLog(strings.NewReader("12 k1 0.5 a.cu\n13 k1 1.25 a.cu\n13 k2 0.25 b.cu\n"))
	s := SummarizeCompiles(recs)
	if s.Compiles != 3 || s.Processes != 2 || s.Kernels != 2 || s.Time != 2*time.Second ||
		len(s.Repeated) != 1 || s.Repeated[0].Key != "k1" || s.Repeated[0].Count != 2 {
		t.Fatalf("summary %+v", s)
	}
}

// A device's compiles go to the log, with their cache keys; memory and
// disk cache hits do not.
func TestCompileLogDevice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compiles.log")
	t.Setenv(CompileLogEnv, path)
	dir := t.TempDir()
	for i := 0; i < 2; i++ { // the second device finds the kernel on disk
		d, _ := newFakeDevice(t, Options{CacheDir: dir})
		for j := 0; j < 2; j++ { // the second compile is a memory hit
			m, err := d.Compile(Source{Name: "probe.cu", Code: probeSource})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && j == 0 && m.FromCache != "" || i == 1 && j == 0 && m.FromCache != "disk" {
				t.Fatalf("device %d compile %d from %q", i, j, m.FromCache)
			}
		}
		d.Close()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseCompileLog(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].PID != os.Getpid() || recs[0].Name != "probe.cu" || !strings.Contains(recs[0].Key, "-sm90-") {
		t.Fatalf("log %q, want one compile of probe.cu by this process", b)
	}
}

// Processes compiling one kernel at once log one compile between them.
func TestCompileLogAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helper processes")
	}
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "compiles.log")
	const n = 4
	var wg sync.WaitGroup
	outs := make([][]byte, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCacheHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), cacheHelperEnv+"="+dir, CompileLogEnv+"="+log)
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("helper %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ParseCompileLog(f)
	if err != nil {
		t.Fatal(err)
	}
	if s := SummarizeCompiles(recs); s.Compiles != 1 || s.Kernels != 1 || len(s.Repeated) != 0 {
		t.Fatalf("summary %+v, want one compile of one kernel", s)
	}
}

// An unwritable log does not fail the compile.
func TestCompileLogUnwritable(t *testing.T) {
	t.Setenv(CompileLogEnv, filepath.Join(t.TempDir(), "no", "such", "dir", "log"))
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	if _, err := d.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
		t.Fatal(err)
	}
	if err := appendCompileLine(filepath.Join(t.TempDir(), "no", "log"), 1, "k", "n", 0); err == nil || !strings.Contains(err.Error(), "open compile log") {
		t.Fatalf("error %v", err)
	}
}
