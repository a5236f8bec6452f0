package deptest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures instead of reporting
// them, so the checks can be tested on packages that break a rule.
type recorder struct {
	*testing.T
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(tb testing.TB)
		want  string // a failure that must be reported; "" for none
	}{
		{"allowed", func(tb testing.TB) { AllowOnly(tb, "expr", "coldata", "decimal", "datetime", "errkind", "hashmix") }, ""},
		{"not allowed", func(tb testing.TB) { AllowOnly(tb, "expr", "decimal", "datetime") }, "expr imports coldata"},
		{"forbidden below", func(tb testing.TB) { Forbid(tb, "operators", "gpuexec") }, "operators imports gpuexec/fuse"},
		{"cgo", func(tb testing.TB) { AllowOnly(tb, "operators", "gpuexec") }, "gpuexec (-tags cuda), which uses cgo"},
		{"direct imports", func(tb testing.TB) { ImportsOnly(tb, "sql", nil) }, "sql imports github.com/xwb1989/sqlparser"},
	} {
		r := &recorder{T: t}
		tc.check(r)
		got := strings.Join(r.errs, "\n")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: failures\n%s\nwant one containing %q", tc.name, got, tc.want)
		}
	}
}
