package gsql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/planner"
)

// A GPU query first reserves a share of device memory in the device's
// admission queue (gpuexec.Admission): the estimate is what its scans
// read, capped per query, and the queries that do not fit wait in arrival
// order. In auto mode a query that waited past Options.AdmissionWait runs
// on the CPU instead (the device is busy with others' work, which the CPU
// does not wait for); with device "gpu" it keeps waiting. Cancelling a
// waiting query gives its place up at once.

// defaultAdmissionWait is Options.AdmissionWait when unset: gpuexec's
// MemoryWait, the other bound on a query waiting for others' memory.
const defaultAdmissionWait = 2 * time.Second

// admissionWait is the bound of an auto-mode query's wait (0: none).
func (db *DB) admissionWait() time.Duration {
	switch w := db.opts.AdmissionWait; {
	case w < 0:
		return 0
	case w == 0:
		return defaultAdmissionWait
	default:
		return w
	}
}

// admit reserves the device share of placed plan n (built as built)
// before it opens. release gives it back (never nil; call it once the
// query's device work is over). In auto mode (mayFallBack) a wait past
// the bound returns cpu, the reason for EXPLAIN ANALYZE and RanOn, and
// holds nothing. A plan without device work reserves nothing.
func (db *DB) admit(ctx context.Context, n planner.Node, built *execbuild.Built, mayFallBack bool) (release func(), cpu string, err error) {
	release = func() {}
	adm := db.hooks.admission
	if adm == nil && (built.GPU == nil || !hasDeviceNode(n)) {
		return release, "", nil
	}
	var bound time.Duration
	if mayFallBack {
		bound = db.admissionWait()
	}
	want := planner.ScannedBytes(n)
	var t *gpuexec.Ticket
	if adm != nil {
		t, _, err = adm.Admit(ctx, want, bound)
	} else {
		adm = built.GPU.Dev.Admission()
		t, err = built.GPU.Dev.AdmitQuery(ctx, want, bound)
	}
	if err != nil {
		if mayFallBack && errors.Is(err, gpuexec.ErrAdmissionWait) && ctx.Err() == nil {
			return release, fmt.Sprintf("admission wait past its %s bound for a %d-byte share of device memory (%d of %d bytes reserved by other queries)",
				bound, adm.Share(want), adm.InUse(), adm.Capacity()), nil
		}
		return release, "", fmt.Errorf("waiting for device memory to start the query: %w", err)
	}
	return t.Release, "", nil
}

// admissionLine is EXPLAIN ANALYZE's first line for a query that ran on
// the CPU after waiting past its admission bound (why: admit's reason).
func admissionLine(why string) string { return why + ": ran on the cpu" }
