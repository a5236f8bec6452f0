//go:build cuda

package operators

// SetQuantilesOnHost makes a GROUP BY with quantiles over several device
// batches take the host path (tests); the returned function restores it.
func SetQuantilesOnHost(on bool) (restore func()) {
	old := quantilesOnHost
	quantilesOnHost = on
	return func() { quantilesOnHost = old }
}
