// Package hashmix holds gsql's 64-bit hash finalisers. Mix64 is the one
// its hash tables share: the host GROUP BY and join tables, IN-list sets,
// and the exchange's row hash, which must equal the device's gsql_mix64
// bit for bit so that the host and the GPUs send a row to the same
// partition. SplitMix64 serves the statistics' sketches and the data
// generators.
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

// SplitMix64 is splitmix64's finaliser: another bijection that scatters
// nearby inputs, which the statistics' distinct-count sketch and the data
// generators' random streams use (their values, and so the generated
// tables and persisted sketches, depend on it bit for bit).
func SplitMix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
