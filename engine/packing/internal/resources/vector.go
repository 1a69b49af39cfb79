// Package resources is the packer's resource vector: a fixed array of
// amounts, cheap to copy, compare and use as a map key in the innermost
// loops of the packer and of its bounds. Which resource each index holds
// beyond the fixed four is up to the caller (engine/packing interns the
// names per Solve).
package resources

import "math/bits"

// MaxDims is how many distinct resources a Vector holds: cpu, memory,
// pods, ephemeral-storage and up to four extended resources.
const MaxDims = 8

// The fixed indices of a Vector.
const (
	CPU = iota
	Memory
	Pods
	EphemeralStorage
)

// Vector is an amount of every resource: cpu in millicores, the rest in
// their base unit (bytes, pods, devices).
type Vector [MaxDims]int64

// Add returns a + b.
func (a Vector) Add(b Vector) Vector {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Sub returns a - b.
func (a Vector) Sub(b Vector) Vector {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

// Scale returns n copies of a.
func (a Vector) Scale(n int64) Vector {
	for i := range a {
		a[i] *= n
	}
	return a
}

// SubTimes takes k copies of b from a in place (a.Sub(b.Scale(k))
// without the copies).
func (a *Vector) SubTimes(b *Vector, k int64) {
	for i := range a {
		a[i] -= b[i] * k
	}
}

// AddTimes adds k copies of b to a in place.
func (a *Vector) AddTimes(b *Vector, k int64) {
	for i := range a {
		a[i] += b[i] * k
	}
}

// Fits reports whether a fits within room in every resource.
func (a Vector) Fits(room Vector) bool {
	for i := range a {
		if a[i] > room[i] {
			return false
		}
	}
	return true
}

// Times returns how many copies of a fit within room, capped at limit: 0
// when limit is not positive or some room is negative, else the least of
// limit and room/a over the resources a requests. Most calls ask for a few
// pods that all fit, so each resource is checked with an (overflow-safe)
// multiplication by the count so far and divided only where that many do
// not fit. It takes pointers: Vectors are copied on the stack otherwise.
func (a *Vector) Times(room *Vector, limit int64) int64 {
	if limit <= 0 {
		return 0
	}
	n := limit
	for i := range a {
		r := room[i]
		if r < 0 {
			return 0
		}
		if a[i] <= 0 {
			continue
		}
		if hi, lo := bits.Mul64(uint64(a[i]), uint64(n)); hi == 0 && lo <= uint64(r) {
			continue
		}
		if n = r / a[i]; n == 0 {
			return 0
		}
	}
	return n
}

// Unit is one unit of resource d alone.
func Unit(d int) Vector {
	var v Vector
	v[d] = 1
	return v
}

// Dominates reports whether a holds at least as much as b of each of the
// first ndims resources.
func (a Vector) Dominates(b Vector, ndims int) bool {
	for d := range ndims {
		if a[d] < b[d] {
			return false
		}
	}
	return true
}
