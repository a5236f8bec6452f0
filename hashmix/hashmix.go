// Package hashmix holds the 64-bit hash finaliser that gsql's hash tables
// share: the host GROUP BY and join tables, IN-list sets, and the
// exchange's row hash, which must equal the device's gsql_mix64 bit for
// bit so that the host and the GPUs send a row to the same partition.
package hashmix

// Mix64 is MurmurHash3's finaliser (fmix64): a bijection whose every
// output bit depends on every input bit, so keys that differ only in high
// bits still spread over a table's low-bit slots.
func Mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
