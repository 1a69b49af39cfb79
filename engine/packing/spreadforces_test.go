package packing

import "testing"

// TestSpreadForces checks spreadForces against every count vector of n
// pods over z domains whose entries differ by at most m.
func TestSpreadForces(t *testing.T) {
	for z := int64(1); z <= 4; z++ {
		for m := int64(1); m <= 3; m++ {
			for n := int64(1); n <= 12; n++ {
				wantNodes, wantPer := n+1, int64(0)
				counts := make([]int64, z)
				var rec func(i int, left int64)
				rec = func(i int, left int64) {
					if i == len(counts)-1 {
						counts[i] = left
						lo, hi, filled := counts[0], counts[0], int64(0)
						for _, c := range counts {
							lo, hi = min(lo, c), max(hi, c)
							if c > 0 {
								filled++
							}
						}
						if hi-lo <= m {
							wantNodes, wantPer = min(wantNodes, filled), max(wantPer, hi)
						}
						return
					}
					for c := int64(0); c <= left; c++ {
						counts[i] = c
						rec(i+1, left-c)
					}
				}
				rec(0, n)
				nodes, per := spreadForces(n, m, z)
				if nodes != wantNodes || per != wantPer {
					t.Errorf("n=%d m=%d z=%d: spreadForces = (%d nodes, %d per domain), want (%d, %d)", n, m, z, nodes, per, wantNodes, wantPer)
				}
			}
		}
	}
}
