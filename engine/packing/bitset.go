package packing

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// and returns the intersection of b and o: b itself when o is the same
// set (the same backing array), else a new set.
func (b bitset) and(o bitset) bitset {
	if len(b) > 0 && len(b) == len(o) && &b[0] == &o[0] {
		return b
	}
	out := make(bitset, len(b))
	for i := range b {
		if i < len(o) {
			out[i] = b[i] & o[i]
		}
	}
	return out
}
