//go:build !race

package packing

// raceEnabled is set under -race, which makes the engine several times
// slower: the heaviest tests then run fewer cases.
const raceEnabled = false
