//go:build !linux

package main

import "syscall"

// sysProcAttr gives the agent its own process group. Outside Linux there is no parent-death
// signal, so only the demo's own cleanup stops the agent.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
