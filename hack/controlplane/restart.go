package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Restart stops a running component (etcd or kube-apiserver) and starts it again with the same
// flags, data and port, as a crash or a rolling restart of the control plane would, then waits
// until it is healthy. With crash set the component is killed (SIGKILL, no graceful shutdown),
// otherwise it is stopped with SIGTERM; it stays down for down before it starts again. Clients
// of the API server (the agent, kube-scheduler, KWOK) see their connections fail meanwhile and
// must recover on their own: that is what fault tests use this for.
func (c *ControlPlane) Restart(ctx context.Context, name string, down time.Duration, crash bool) error {
	i, health, client, err := c.restartable(name)
	if err != nil {
		return err
	}
	old := c.procs[i]
	if crash {
		_ = old.cmd.Process.Signal(syscall.SIGKILL)
		<-old.done
	} else {
		old.stop(15 * time.Second)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	p, err := c.starter.start(c.Dir, old.name, old.cmd.Path, old.cmd.Args[1:], c.opts.Detached)
	if err != nil {
		return fmt.Errorf("restarting %s: %w", name, err)
	}
	c.procs[i] = p
	if err := c.waitHealthy(ctx, p, client, health); err != nil {
		return fmt.Errorf("restarting %s: %w", name, err)
	}
	return nil
}

// restartable finds a component that Restart knows how to check: its index in procs, its
// health URL and the client that may read it.
func (c *ControlPlane) restartable(name string) (int, string, *http.Client, error) {
	for i, p := range c.procs {
		if p.name != name {
			continue
		}
		switch name {
		case Etcd:
			for _, a := range p.cmd.Args {
				if url, ok := strings.CutPrefix(a, "--listen-client-urls="); ok {
					return i, url + "/health", http.DefaultClient, nil
				}
			}
			return 0, "", nil, fmt.Errorf("restarting %s: no --listen-client-urls flag", name)
		case APIServer:
			return i, c.Host + "/readyz", c.client, nil
		}
		return 0, "", nil, fmt.Errorf("restarting %s: only %s and %s can be restarted", name, Etcd, APIServer)
	}
	return 0, "", nil, fmt.Errorf("restarting %s: not running", name)
}
