package gsql

import (
	"errors"

	"github.com/gsqlengine/gsql/planner"
)

// errNoGPU explains why the GPU cannot be used.
var errNoGPU = errors.New("no GPU backend: gsql was built without CUDA support (rebuild with -tags cuda)")

// gpuAvailable reports why the GPU backend cannot run, or nil if it can.
func gpuAvailable() error { return errNoGPU }

// place assigns each operator of a plan to a device. Every operator has a
// CPU implementation; GPU placement comes with the GPU operators.
func (db *DB) place(n planner.Node) (planner.Node, error) {
	return n, nil
}
