package gpuexec

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CompileLogEnv names an opt-in log of NVRTC compiles: with it set to a
// path, every compile of the process appends one line there,
//
//	<pid> <cache key> <seconds> <source name>
//
// so that a load run of many processes can count the compiles of each
// distinct kernel across all of them (the disk cache's lock should make
// that one). Each line is one write to a file opened with O_APPEND, so
// the lines of concurrent processes do not interleave.
const CompileLogEnv = "GSQL_COMPILE_LOG"

// compileLogWarn reports an unwritable compile log once per process.
var compileLogWarn sync.Once

// logCompile appends key's compile to the log CompileLogEnv names, if
// any. A log that cannot be written is reported once on stderr and costs
// nothing else: the compile itself succeeded.
func logCompile(key, name string, took time.Duration) {
	path := os.Getenv(CompileLogEnv)
	if path == "" {
		return
	}
	if err := appendCompileLine(path, os.Getpid(), key, name, took); err != nil {
		compileLogWarn.Do(func() { fmt.Fprintf(os.Stderr, "gsql: %s: %v\n", CompileLogEnv, err) })
	}
}

// appendCompileLine writes one compile line to path in a single write.
func appendCompileLine(path string, pid int, key, name string, took time.Duration) error {
	name = strings.Join(strings.Fields(name), "_")
	if name == "" {
		name = "-"
	}
	line := fmt.Sprintf("%d %s %.6f %s\n", pid, key, took.Seconds(), name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open compile log: %w", err)
	}
	_, werr := f.Write([]byte(line))
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("append to compile log: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("close compile log: %w", cerr)
	}
	return nil
}

// CompileRecord is one line of a compile log.
type CompileRecord struct {
	PID  int
	Key  string
	Took time.Duration
	Name string
}

// ParseCompileLog reads a compile log; a malformed line is an error that
// names it.
func ParseCompileLog(r io.Reader) ([]CompileRecord, error) {
	var out []CompileRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("compile log line %d: %d fields, want 4 (pid key seconds name): %q", n, len(f), line)
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("compile log line %d: pid %q: %w", n, f[0], err)
		}
		secs, err := strconv.ParseFloat(f[2], 64)
		if err != nil || secs < 0 {
			return nil, fmt.Errorf("compile log line %d: seconds %q: not a duration", n, f[2])
		}
		out = append(out, CompileRecord{PID: pid, Key: f[1], Took: time.Duration(secs * float64(time.Second)), Name: f[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read compile log: %w", err)
	}
	return out, nil
}

// CompileSummary counts a compile log's compiles by kernel.
type CompileSummary struct {
	Compiles  int           // lines
	Processes int           // distinct pids
	Kernels   int           // distinct keys
	Time      time.Duration // NVRTC time, all lines
	// Repeated lists the keys compiled more than once, most first.
	Repeated []RepeatedCompile
}

// RepeatedCompile is a kernel compiled more than once, and by which
// processes.
type RepeatedCompile struct {
	Key   string
	Name  string
	Count int
	PIDs  []int
}

// SummarizeCompiles counts recs by key.
func SummarizeCompiles(recs []CompileRecord) CompileSummary {
	s := CompileSummary{Compiles: len(recs)}
	byKey := map[string]*RepeatedCompile{}
	pids := map[int]bool{}
	for _, r := range recs {
		s.Time += r.Took
		pids[r.PID] = true
		k := byKey[r.Key]
		if k == nil {
			k = &RepeatedCompile{Key: r.Key, Name: r.Name}
			byKey[r.Key] = k
		}
		k.Count++
		k.PIDs = append(k.PIDs, r.PID)
	}
	s.Processes, s.Kernels = len(pids), len(byKey)
	for _, k := range byKey {
		if k.Count > 1 {
			s.Repeated = append(s.Repeated, *k)
		}
	}
	sort.Slice(s.Repeated, func(i, j int) bool {
		a, b := s.Repeated[i], s.Repeated[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Key < b.Key
	})
	return s
}
