package planner

import (
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// deviceAggregates is PlaceOptions.Aggregates as the root package sets it
// (execbuild.AggregatesOnDevice, which this package's own tests cannot
// import): the device operators' own check.
func deviceAggregates(aggs []opspec.AggSpec) error {
	_, err := operators.DeviceAggKinds(aggs)
	return err
}
