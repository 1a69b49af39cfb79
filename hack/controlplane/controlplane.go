// Package controlplane runs a real, local Kubernetes control plane for integration tests and
// `make dev-cluster`: etcd and kube-apiserver, and optionally kube-scheduler,
// kube-controller-manager and KWOK, all on 127.0.0.1 with free ports, a generated PKI, RBAC
// authorization and an admin kubeconfig. The binaries are the ones `make testbin` builds into
// bin/. It is a test and development helper; nothing that ships imports it.
//
// Every process it starts is stopped by PID in Stop. Children of a test program are also
// killed by the kernel when that program dies (Linux's parent-death signal), so none
// outlives `go test`, even after a panic, a timeout or ^C. Each component logs to
// <Dir>/<component>.log; Close keeps the folder when asked to, for failed tests.
package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Names of the components, which are also the names of their binaries, log and PID files.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	Scheduler         = "kube-scheduler"
	ControllerManager = "kube-controller-manager"
	KWOK              = "kwok"
	Kubectl           = "kubectl"
)

const (
	serviceCIDR = "10.0.0.0/24"
	serviceIP   = "10.0.0.1" // the kubernetes Service: the first address of serviceCIDR
)

// KWOKNodeAnnotation is the annotation that hands a Node to KWOK: KWOK runs only with
// --manage-nodes-with-annotation-selector on it, so it never touches other nodes.
const KWOKNodeAnnotation = "kwok.x-k8s.io/node"

// KWOKStages are the Stage objects KWOK runs: node-initialize and node-heartbeat-with-lease
// for nodes, pod-ready, pod-complete and pod-delete for pods (from KWOK's kustomize/stage).
//
//go:embed kwok-stages.yaml
var KWOKStages []byte

// Options say what to run and where.
type Options struct {
	// BinDir holds the binaries under their plain names (etcd, kube-apiserver, ...). Empty
	// means BinDir().
	BinDir string
	// Dir is the working folder for PKI, etcd data, kubeconfig, logs and PID files. Empty
	// means a new temporary folder.
	Dir string
	// Scheduler, ControllerManager and KWOK start those components after the API server.
	Scheduler, ControllerManager, KWOK bool
	// Detached starts the components in their own session so that they outlive this
	// program, as a dev cluster does; StopPIDFiles ends them later.
	Detached bool
	// Timeout bounds the wait for each component to become healthy. Zero means 90 s, enough
	// for a 2-core machine that is busy with other builds.
	Timeout time.Duration
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	// Dir is the working folder.
	Dir string
	// Kubeconfig is the path of an admin kubeconfig (system:masters) for the API server.
	Kubeconfig string
	// Host is the API server's URL.
	Host string

	opts    Options
	pki     *pki
	starter *starter
	procs   []*process
	client  *http.Client
}

// BinDir is where the binaries are by default: $TENON_TESTBIN if set, else the bin/ folder
// of the repository holding the working directory.
func BinDir() string {
	if d := os.Getenv("TENON_TESTBIN"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return "bin"
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/tenonhq/terraform-provider-tenon\n")) {
			return filepath.Join(dir, "bin")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "bin"
		}
		dir = parent
	}
}

// Missing lists the binaries opts needs that binDir lacks, as paths.
func Missing(binDir string, opts Options) []string {
	var missing []string
	for _, name := range opts.components() {
		p := filepath.Join(binDir, name)
		if info, err := os.Stat(p); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			missing = append(missing, p)
		}
	}
	return missing
}

func (o Options) components() []string {
	names := []string{Etcd, APIServer}
	if o.ControllerManager {
		names = append(names, ControllerManager)
	}
	if o.Scheduler {
		names = append(names, Scheduler)
	}
	if o.KWOK {
		names = append(names, KWOK)
	}
	return names
}

// Start starts the control plane and returns once every component is healthy. On error,
// whatever it started is stopped again; Dir is kept for its logs.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	if opts.BinDir == "" {
		opts.BinDir = BinDir()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 90 * time.Second
	}
	if missing := Missing(opts.BinDir, opts); len(missing) > 0 {
		return nil, fmt.Errorf("missing control-plane binaries %s: run `make testbin`", strings.Join(missing, ", "))
	}
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "tenon-controlplane-")
		if err != nil {
			return nil, err
		}
		opts.Dir = dir
	} else if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, err
	}
	c := &ControlPlane{Dir: opts.Dir, opts: opts, starter: newStarter()}
	if err := c.start(ctx); err != nil {
		c.Stop()
		return nil, fmt.Errorf("%w (logs in %s)", err, c.Dir)
	}
	return c, nil
}

func (c *ControlPlane) start(ctx context.Context) error {
	p, err := newPKI(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return fmt.Errorf("generating the PKI: %w", err)
	}
	c.pki = p
	if c.client, err = c.adminClient(); err != nil {
		return err
	}
	etcdURL, err := c.startEtcd(ctx)
	if err != nil {
		return err
	}
	if err := c.startAPIServer(ctx, etcdURL); err != nil {
		return err
	}
	if c.opts.ControllerManager {
		if err := c.startControllerManager(ctx); err != nil {
			return err
		}
	}
	if c.opts.Scheduler {
		if err := c.startScheduler(ctx); err != nil {
			return err
		}
	}
	if c.opts.KWOK {
		if err := c.startKWOK(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (c *ControlPlane) startEtcd(ctx context.Context) (string, error) {
	client, peer := FreePort(), FreePort()
	clientURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	p, err := c.run(Etcd,
		"--name=default",
		"--data-dir="+filepath.Join(c.Dir, "etcd-data"),
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync", // a test cluster need not survive a power cut
		"--log-level=warn",
	)
	if err != nil {
		return "", err
	}
	return clientURL, c.waitHealthy(ctx, p, http.DefaultClient, clientURL+"/health")
}

func (c *ControlPlane) startAPIServer(ctx context.Context, etcdURL string) error {
	port := FreePort()
	c.Host = "https://127.0.0.1:" + strconv.Itoa(port)
	p, err := c.run(APIServer,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(c.Dir, "apiserver-certs"),
		"--tls-cert-file="+c.pki.ServingCert,
		"--tls-private-key-file="+c.pki.ServingKey,
		"--client-ca-file="+c.pki.CACert,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+c.pki.SAPub,
		"--service-account-signing-key-file="+c.pki.SAKey,
		"--service-cluster-ip-range="+serviceCIDR,
		"--allow-privileged=true",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, p, c.client, c.Host+"/readyz"); err != nil {
		return err
	}
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	return c.writeKubeconfig(c.Kubeconfig)
}

func (c *ControlPlane) startControllerManager(ctx context.Context) error {
	port := FreePort()
	p, err := c.run(ControllerManager,
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--leader-elect=false",
		// Without a cloud, the controllers that manage node addresses, routes and load
		// balancers have nothing to act on and would only fail.
		"--controllers=*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller",
		"--use-service-account-credentials=false",
		"--service-account-private-key-file="+c.pki.SAKey,
		"--root-ca-file="+c.pki.CACert,
	)
	if err != nil {
		return err
	}
	return c.waitHealthy(ctx, p, insecureClient(), "https://127.0.0.1:"+strconv.Itoa(port)+"/healthz")
}

func (c *ControlPlane) startScheduler(ctx context.Context) error {
	port := FreePort()
	p, err := c.run(Scheduler,
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--leader-elect=false",
	)
	if err != nil {
		return err
	}
	return c.waitHealthy(ctx, p, insecureClient(), "https://127.0.0.1:"+strconv.Itoa(port)+"/healthz")
}

func (c *ControlPlane) startKWOK(ctx context.Context) error {
	stages := filepath.Join(c.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(stages, KWOKStages, 0o600); err != nil {
		return err
	}
	port := FreePort()
	p, err := c.run(KWOK,
		"--kubeconfig="+c.Kubeconfig,
		"--config="+stages,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector="+KWOKNodeAnnotation+"=fake",
		// Renew each node's Lease as a kubelet does: without it the node
		// controller marks every KWOK node NotReady after its grace period
		// (and their pods not Ready, which zeroes PodDisruptionBudgets).
		"--node-lease-duration-seconds=40",
		"--node-ip=127.0.0.1",
		"--cidr=10.244.0.0/16", // pod IPs, apart from the service range
		"--server-address=127.0.0.1:"+strconv.Itoa(port),
	)
	if err != nil {
		return err
	}
	return c.waitHealthy(ctx, p, http.DefaultClient, "http://127.0.0.1:"+strconv.Itoa(port)+"/healthz")
}

// run starts one component from the bin folder.
func (c *ControlPlane) run(name string, args ...string) (*process, error) {
	p, err := c.starter.start(c.Dir, name, filepath.Join(c.opts.BinDir, name), args, c.opts.Detached)
	if p != nil {
		c.procs = append(c.procs, p)
	}
	return p, err
}

// waitHealthy polls url until it answers 200, the process exits, or the timeout passes.
func (c *ControlPlane) waitHealthy(ctx context.Context, p *process, client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var last error
	for {
		if done, _ := p.exited(); done {
			return p.failure()
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %s", url, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s is not healthy after %s: %w; last lines of %s:\n%s", p.name, c.opts.Timeout, last, p.log, tail(p.log, 30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops every component by PID, the last started first, and waits for each to exit.
func (c *ControlPlane) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop(15 * time.Second)
		_ = os.Remove(filepath.Join(c.Dir, c.procs[i].name+".pid"))
	}
	c.procs = nil
}

// Close stops the control plane and removes its folder unless keep is set, as it is for a
// failed test, whose logs are then in Dir.
func (c *ControlPlane) Close(keep bool) error {
	c.Stop()
	if keep {
		return nil
	}
	return os.RemoveAll(c.Dir)
}

// Logs returns the log file of every component started, in start order.
func (c *ControlPlane) Logs() []string {
	logs := make([]string, 0, len(c.procs))
	for _, p := range c.procs {
		logs = append(logs, p.log)
	}
	return logs
}

// Exited returns an error naming each component that has exited, with the end of its log:
// a component must run until Stop.
func (c *ControlPlane) Exited() error {
	var errs []error
	for _, p := range c.procs {
		if done, _ := p.exited(); done {
			errs = append(errs, p.failure())
		}
	}
	return errors.Join(errs...)
}

// Kubectl returns the path of kubectl in the bin folder.
func (c *ControlPlane) Kubectl() string {
	return filepath.Join(c.opts.BinDir, Kubectl)
}

func (c *ControlPlane) adminClient() (*http.Client, error) {
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(c.pki.CACert)
	if err != nil {
		return nil, err
	}
	pool.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(c.pki.AdminCert, c.pki.AdminKey)
	if err != nil {
		return nil, err
	}
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}, nil
}

// insecureClient probes the health endpoints of the scheduler and controller manager, which
// serve with a self-signed certificate of their own.
func insecureClient() *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // a local health probe
	}
}

func (c *ControlPlane) writeKubeconfig(path string) error {
	data := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			return ""
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: tenon-local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: tenon-admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: tenon-local
  context:
    cluster: tenon-local
    user: tenon-admin
current-context: tenon-local
`, c.Host, data(c.pki.CACert), data(c.pki.AdminCert), data(c.pki.AdminKey))
	return os.WriteFile(path, []byte(config), 0o600)
}

// FreePort asks the kernel for a free port on 127.0.0.1. Another program could take it
// before the component binds it; on a test machine that is rare enough to accept.
func FreePort() int {
	handedOut.Lock()
	defer handedOut.Unlock()
	// The kernel may give the port just closed to the next bind to port 0: two calls in a row
	// (etcd's client and peer ports) then returned the same port, and etcd failed to bind its
	// second listener (make test, 2026-11-28). A port handed out once is never handed out again.
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(fmt.Sprintf("no free port on 127.0.0.1: %v", err))
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port
		}
	}
	panic("no port on 127.0.0.1 that was not handed out before, after 100 tries")
}

// handedOut are the ports FreePort returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeAddr is FreePort as a 127.0.0.1:port address, for the listen flags of
// processes the tests start (the agent's metrics and health endpoints).
func FreeAddr() string {
	return "127.0.0.1:" + strconv.Itoa(FreePort())
}

// Process is a program started beside the control plane with StartProcess, such as a node
// autoscaler under test: it logs to <Dir>/<name>.log and stops with the control plane.
type Process struct{ p *process }

// StartProcess runs bin with args (env added to this program's environment) beside the
// control plane, with the components' lifecycle: its output goes to <Dir>/<name>.log, the
// kernel kills it if this program dies, and Stop stops it before the components.
func (c *ControlPlane) StartProcess(name, bin string, args, env []string) (*Process, error) {
	p, err := c.starter.startEnv(c.Dir, name, bin, args, env, false)
	if p != nil {
		c.procs = append(c.procs, p)
	}
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// PID is the process's ID, for reading its resource use from /proc.
func (p *Process) PID() int { return p.p.cmd.Process.Pid }

// Log is the path of the process's log file.
func (p *Process) Log() string { return p.p.log }

// Exited returns nil while the process runs, else why it exited, with the end of its log.
func (p *Process) Exited() error {
	if done, _ := p.p.exited(); done {
		return p.p.failure()
	}
	return nil
}

// Stop sends SIGTERM, waits up to grace for the exit, then kills the process.
func (p *Process) Stop(grace time.Duration) { p.p.stop(grace) }
