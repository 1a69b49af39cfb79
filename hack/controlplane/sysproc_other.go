//go:build !linux

package controlplane

import "syscall"

// sysProcAttr puts every child in its own session. Outside Linux there is no parent-death
// signal, so only Stop and the signal handler end the children of a test.
func sysProcAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
