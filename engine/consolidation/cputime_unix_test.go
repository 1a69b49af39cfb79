//go:build unix

package consolidation

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, on every
// thread: what a run costs whatever else shares the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
