package exchange

import (
	"context"
	"errors"
	"testing"

	"github.com/gsqlengine/gsql/gpuexec"
)

// TestGroupChecks: a group without devices or transport, and batches
// listed for more devices than the group has, fail before any work. The
// exchanges themselves run over fake devices in gpuexec's external tests
// (gpuexec/exchange_fake_test.go), where the fake driver lives.
func TestGroupChecks(t *testing.T) {
	ctx := context.Background()
	local := &Local{}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"no devices", func() error { _, err := (&Group{Transport: local}).Broadcast(ctx, nil); return err }},
		{"no transport", func() error {
			_, err := (&Group{Devices: make([]*gpuexec.Device, 2)}).Gather(ctx, Parts{nil, nil}, 0)
			return err
		}},
		{"parts for more devices", func() error {
			_, err := (&Group{Devices: make([]*gpuexec.Device, 1), Transport: local}).Repartition(ctx, Parts{nil, nil}, []int{0})
			return err
		}},
	} {
		if err := c.run(); !errors.Is(err, gpuexec.ErrInvalidArgument) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	var p Parts
	if p.Rows() != 0 {
		t.Error("empty parts have rows")
	}
	p.Release()
	if (local.Stats() != Stats{}) {
		t.Error("a fresh transport has moved something")
	}
}
