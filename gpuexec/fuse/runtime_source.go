package fuse

import (
	"embed"
	"strings"
)

// The CUDA runtime every generated kernel includes: device functions, one
// family a file under rt/, joined in this order into one source, so that
// NVRTC and the host tests (-DGSQL_HOST) compile one translation unit and
// a later file may use an earlier one's helpers. The first file holds
// what all share (loads, warp lanes, ropes, scratch).
var runtimeParts = []string{
	"base.cuh",            // 16-byte loads, warp-per-row lanes, ropes, scratch
	"utf8_search.cuh",     // UTF-8 decoding, comparisons and searches
	"slice_like_case.cuh", // SUBSTRING/SPLIT_PART views, LIKE, case mapping
	"make_strings.cuh",    // functions whose bytes are new: sizes, then writes
	"numbers_convert.cuh", // numbers, row errors, conversions to and from text
	"decimal.cuh",         // DECIMAL arithmetic (package decimal's mirror)
	"datetime.cuh",        // DATE and TIMESTAMP (package datetime's mirror)
	"mysql_time.cuh",      // MySQL's TIME text, periods, composite INTERVALs
	"warp_strings.cuh",    // warp-per-row windowed string walks
	"regex.cuh",           // the REGEXP family: Pike VM and backtracker
	"encode_digest.cuh",   // HEX/BASE64 encodings, MD5/SHA digests
	"two_pass.cuh",        // the sizes/scan/fill skeleton of two-pass kernels
}

//go:embed rt/*.cuh
var runtimeFiles embed.FS

// runtimeSource is the runtime's files joined in runtimeParts' order.
var runtimeSource = joinRuntime()

func joinRuntime() string {
	var b strings.Builder
	for _, name := range runtimeParts {
		src, err := runtimeFiles.ReadFile("rt/" + name)
		if err != nil {
			panic("fuse: runtime part missing: " + err.Error())
		}
		b.Write(src)
	}
	return b.String()
}
