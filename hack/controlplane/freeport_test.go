package controlplane

import "testing"

// TestFreePortNeverRepeats: the kernel may give the port just closed to the next bind to
// port 0, so two calls in a row could return the same port (etcd's client and peer URLs then
// collided); FreePort never returns a port twice in one process.
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 500 {
		p := FreePort()
		if seen[p] {
			t.Fatalf("FreePort returned %d twice", p)
		}
		seen[p] = true
	}
}
