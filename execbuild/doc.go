// Package execbuild is the one place that turns placed plans into
// operator trees: Build walks a planner.Node tree (after planner.Place)
// and makes the host operators (operators) and device operators
// (operators on gpuexec) that execute it, with per-node statistics for
// EXPLAIN ANALYZE. The decisions that need a built plan live here too:
// zone-map and index batch skipping of CPU scans (zones.go, index.go),
// the notes that tell a sort or GROUP BY how many rows a LIMIT above it
// reads, parallel CPU computes over large scans, and the device GROUP BY
// and join (device.go).
//
// The planner does not import this package: what placement needs to know
// of the device is passed in PlaceOptions (GPUSupport, AggregatesOnDevice),
// and the subqueries the binder evaluates run through planner.RunFunc,
// which Run implements. The root package wires both.
package execbuild
