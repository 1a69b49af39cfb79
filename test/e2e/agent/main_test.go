// Package agent_test is the end-to-end test of `tenon agent` with the KWOK
// cloud: the real binary runs against the local control plane (etcd,
// kube-apiserver, kube-scheduler, kube-controller-manager and KWOK), with
// the CRDs installed, and the tests watch pods become Running on the nodes
// it launches and the nodes go away again.
package agent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// suite is the whole stack, started by the first test that needs it.
var suite = controlplane.NewSuite(controlplane.Options{ControllerManager: true, Scheduler: true, KWOK: true})

func TestMain(m *testing.M) {
	code := suite.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// env is what a test talks to.
type env struct {
	cp     *controlplane.ControlPlane
	client client.Client
	kube   *kubernetes.Clientset
}

var (
	setupOnce sync.Once
	setupErr  error
	shared    env
	binDir    string
	binary    string
)

// require starts the control plane, installs the CRDs and builds the tenon
// binary, once per package.
func require(t *testing.T) env {
	t.Helper()
	cp := suite.Require(t)
	setupOnce.Do(func() { setupErr = setup(cp) })
	if setupErr != nil {
		t.Fatalf("setting up: %v", setupErr)
	}
	return shared
}

func setup(cp *controlplane.ControlPlane) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	scheme, err := agent.NewScheme()
	if err != nil {
		return err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := kube.InstallCRDs(ctx, c); err != nil {
		return err
	}
	if binDir, err = os.MkdirTemp("", "tenon-e2e-bin-"); err != nil {
		return err
	}
	binary = filepath.Join(binDir, "tenon")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	build := exec.CommandContext(ctx, "go", "build", "-o", binary, "./test/e2e/agent/internal/tenonagent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building tenon: %w\n%s", err, out)
	}
	shared = env{cp: cp, client: c, kube: clientset}
	return nil
}

// agentProc is one running `tenon agent`.
type agentProc struct {
	name        string
	cmd         *exec.Cmd
	log         *controlplane.SyncBuffer
	metricsAddr string
	done        chan struct{}
}

// startAgent runs the binary against the control plane; its log is printed
// when the test fails. Cleanup stops it.
func startAgent(t *testing.T, e env, name string, args ...string) *agentProc {
	t.Helper()
	return startAgentEnv(t, e, name, nil, args...)
}

// startAgentEnv is startAgent with env added to the agent's environment.
func startAgentEnv(t *testing.T, e env, name string, environ []string, args ...string) *agentProc {
	t.Helper()
	metrics := controlplane.FreeAddr()
	base := []string{"agent", "--cloud=kwok", "--cluster-name=e2e", "--kubeconfig=" + e.cp.Kubeconfig,
		"--metrics-addr=" + metrics, "--health-addr=" + controlplane.FreeAddr(), "--log-format=text", "--batch-idle=1s", "--batch-max=10s"}
	p := &agentProc{name: name, log: &controlplane.SyncBuffer{}, metricsAddr: metrics, done: make(chan struct{})}
	p.cmd = exec.Command(binary, append(base, args...)...)
	if len(environ) > 0 {
		p.cmd.Env = append(os.Environ(), environ...)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting agent %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		// TENON_E2E_AGENT_LOGS=1 prints the agent's log after a test that
		// passed too (to read how long its steps took).
		if t.Failed() || os.Getenv("TENON_E2E_AGENT_LOGS") != "" {
			t.Logf("---- log of agent %s ----\n%s", name, p.log.String())
			t.Logf("control-plane logs: %v", e.cp.Logs())
		}
	})
	return p
}

// kill ends the agent with SIGKILL, as a crash would.
func (p *agentProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks the agent to stop and kills it after 10 s.
func (p *agentProc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// waitFor polls cond every 200 ms until it holds or timeout passes, failing
// the test with cond's last word.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		ok, state := cond()
		if ok {
			t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond))
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %s for %s; last: %s", timeout, what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
