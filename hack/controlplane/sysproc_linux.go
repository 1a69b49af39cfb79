package controlplane

import "syscall"

// sysProcAttr puts detached children in their own session; the others get SIGKILL from the
// kernel when the thread that started them (see starter) ends with the program.
func sysProcAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
