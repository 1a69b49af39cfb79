package packing

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		if i < len(o) {
			out[i] = b[i] & o[i]
		}
	}
	return out
}
