package main

import "syscall"

// sysProcAttr gives the agent its own process group and SIGKILL from the kernel when the demo
// dies, however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
