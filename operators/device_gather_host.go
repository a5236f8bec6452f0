package operators

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// hostGathers makes a device join gather its output rows on the host
// (hostGatherer): the fake driver has no Go twins of the generated gather
// kernels, so tests of the join's device paths over it need another way.
var hostGathers atomic.Bool

// SetHostGathers makes device joins gather their output rows on the host
// (download, gather, upload) instead of by generated kernels; it returns a
// function restoring the previous setting. For tests over the fake driver.
func SetHostGathers(on bool) (restore func()) {
	old := hostGathers.Swap(on)
	return func() { hostGathers.Store(old) }
}

// hostGatherer is a gatherer that downloads its input and the row numbers
// (int64, as a join's pairs hold them), gathers on the host and uploads.
type hostGatherer struct{ d *gpuexec.Device }

// RunGather implements gatherer.
func (g hostGatherer) RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error) {
	hb, err := g.d.Download(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("host gather: %w", err)
	}
	raw := make([]byte, 8*n)
	if n > 0 {
		if err := g.d.CopyToHost(raw, idx, nil); err != nil {
			return nil, fmt.Errorf("host gather: row numbers: %w", err)
		}
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = int(int64(binary.LittleEndian.Uint64(raw[8*i:])))
	}
	out := coldata.GatherBatch(hb, rows)
	out.Len = n
	return g.d.Upload(ctx, out)
}

// Launches implements gatherer: none.
func (hostGatherer) Launches() int { return 0 }

// Release implements gatherer.
func (hostGatherer) Release() error { return nil }
