package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// DeviceScan produces a table's device batches: the resident copy's,
// uploaded on first use (one packed transfer per coalesced batch), or, for
// a table too large to keep resident under the device's memory limit, row
// ranges uploaded one at a time, each freed by the operators above before
// the next is uploaded (see gpuexec.TableCache.Scan).
type DeviceScan struct {
	RT      *DeviceRuntime
	Table   string
	Version uint64
	Load    func() ([]*coldata.Batch, error)
	// Prepare, if set, groups the loaded batches of a table that becomes
	// resident, each group one device batch (streamed tables are read as
	// loaded).
	Prepare func([]*coldata.Batch) [][]*coldata.Batch
	Cols    []int
	Stats   *Stats

	scan *gpuexec.TableScan
}

// Open implements DeviceOperator.
func (s *DeviceScan) Open(ctx context.Context) error {
	before := s.RT.Dev.Stats().BytesToDevice
	sc, err := s.RT.Cache.ScanPrepared(s.RT.waitCtx(ctx), s.Table, s.Version, s.Load, s.Prepare, s.Cols)
	if err != nil {
		return fmt.Errorf("device scan of %s: %w", s.Table, err)
	}
	s.countBytes(before)
	s.scan = sc
	return nil
}

func (s *DeviceScan) countBytes(before uint64) {
	if s.Stats != nil {
		s.Stats.Bytes.Add(int64(s.RT.Dev.Stats().BytesToDevice - before))
	}
}

// Streamed reports whether the open scan uploads its table in chunks.
func (s *DeviceScan) Streamed() bool { return s.scan != nil && s.scan.Streamed() }

// NextDevice implements DeviceOperator.
func (s *DeviceScan) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if s.scan == nil {
		return nil, fmt.Errorf("device scan of %s: not open", s.Table)
	}
	before := s.RT.Dev.Stats().BytesToDevice
	b, err := s.scan.Next(s.RT.waitCtx(ctx))
	s.countBytes(before)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("device scan of %s: %w", s.Table, err)
	}
	return b, nil
}

// Close implements DeviceOperator.
func (s *DeviceScan) Close() error {
	if s.scan == nil {
		return nil
	}
	err := s.scan.Close()
	s.scan = nil
	return err
}
