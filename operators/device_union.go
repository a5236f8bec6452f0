package operators

import (
	"context"

	"github.com/gsqlengine/gsql/gpuexec"
)

// DeviceUnionAll produces the device batches of each input in turn.
type DeviceUnionAll struct {
	Inputs []DeviceOperator
	cur    int
}

// Open implements DeviceOperator.
func (u *DeviceUnionAll) Open(ctx context.Context) error {
	u.cur = 0
	return openAll(ctx, u.Inputs)
}

// NextDevice implements DeviceOperator.
func (u *DeviceUnionAll) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	return nextInTurn(&u.cur, len(u.Inputs), func(i int) (*gpuexec.DeviceBatch, error) { return u.Inputs[i].NextDevice(ctx) })
}

// Close implements DeviceOperator.
func (u *DeviceUnionAll) Close() error { return closeAll(u.Inputs) }
