// Package packing is the fast loop's brain: Solve places a batch of pending
// pods on existing nodes and in-flight claims first, then on new claims whose
// instance types are chosen for the whole batch by cost, and says why any pod
// cannot be placed. It also reports a proven lower bound on the cost of the
// new nodes, and Check validates any Result against its Snapshot.
//
// The package is pure: values in, values out, deterministic for a given input
// and bounded by the caller's context.
package packing
