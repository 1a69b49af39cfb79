//go:build !unix

package consolidation

import "time"

// cpuTime is not measured outside unix; benchmarks report 0.
func cpuTime() time.Duration { return 0 }
