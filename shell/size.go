package shell

import "github.com/gsqlengine/gsql/internal/bytesize"

// ParseSize parses a byte count such as "2GiB", "512MiB" or "4096"
// (bytesize.Parse).
func ParseSize(s string) (uint64, error) { return bytesize.Parse(s) }
