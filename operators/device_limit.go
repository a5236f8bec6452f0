package operators

import (
	"context"

	"github.com/gsqlengine/gsql/gpuexec"
)

// DeviceLimit skips Offset rows and passes at most Count (Count < 0: all)
// as zero-copy views of its input's device batches, so that only the rows
// kept ever travel to the host.
type DeviceLimit struct {
	Input DeviceOperator
	limitWindow
}

// NewDeviceLimit returns a device limit over input.
func NewDeviceLimit(input DeviceOperator, count, offset int64) *DeviceLimit {
	return &DeviceLimit{Input: input, limitWindow: limitWindow{Count: count, Offset: offset}}
}

// Open implements DeviceOperator.
func (l *DeviceLimit) Open(ctx context.Context) error {
	l.reset()
	return l.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (l *DeviceLimit) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	for !l.full() {
		b, err := l.Input.NextDevice(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		lo, hi := l.cut(b.Len)
		switch {
		case hi == lo:
			b.Release()
			continue
		case lo == 0 && hi == b.Len:
			return b, nil
		}
		v, err := gpuexec.Slice(b, lo, hi)
		b.Release()
		return v, err
	}
	return nil, nil
}

// Close implements DeviceOperator.
func (l *DeviceLimit) Close() error { return l.Input.Close() }
