//go:build race

package memory

// raceEnabled scales the single-goroutine stress down under -race: the race
// detector slows it tenfold and finds nothing in code that one goroutine runs.
const raceEnabled = true
