package gitopstest

import "syscall"

// sysProcAttr starts the server in its own process group, so Stop can end it together with the
// children it forks per connection, and has the kernel kill it if the test program dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
