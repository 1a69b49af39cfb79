// Package consolidation is the slow loop's brain: Plan decides which nodes
// to remove or replace to cut cost, and says why every other node stays.
// It is a pure engine: a state.Snapshot and a clock in, a Result out.
package consolidation
