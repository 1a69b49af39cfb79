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

// andInto sets dst to the intersection of b and o (as and computes it),
// reusing dst's array when it is large enough, and returns it. dst may be
// b itself, which narrows b in place; it must share no array with o.
func (b bitset) andInto(dst, o bitset) bitset {
	if cap(dst) < len(b) {
		dst = make(bitset, len(b))
	}
	dst = dst[:len(b)]
	for i := range b {
		var w uint64
		if i < len(o) {
			w = b[i] & o[i]
		}
		dst[i] = w
	}
	return dst
}

// owned reports whether m, the result of narrowing from by and, is a set
// of its own (and made a new one), which may be narrowed further in place:
// and returns its receiver when both sets are the same, and a compat's
// mask is shared.
func owned(m, from bitset) bool {
	return len(m) > 0 && &m[0] != &from[0]
}
