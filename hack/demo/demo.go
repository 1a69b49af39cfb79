package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/localagent"
)

// config says where the demo finds its programs and files and how long it waits.
type config struct {
	// BinDir holds the control plane's binaries (make testbin).
	BinDir string
	// Tenon is the tenon binary the agent runs from (make build).
	Tenon string
	// Examples is the examples/local folder.
	Examples string
	// Dir is the working folder: control-plane data and logs, the agent's log and kubeconfig.
	// The demo empties it first.
	Dir string
	// Replicas is how far inflate is scaled up.
	Replicas int
	// ScaleUpTimeout bounds the wait for every pod to run; ScaleDownTimeout the wait for the
	// agent's nodes to be gone; StartTimeout the control plane's and the agent's start.
	ScaleUpTimeout, ScaleDownTimeout, StartTimeout time.Duration
	// Poll is how often the demo looks at the cluster.
	Poll time.Duration
	// Out receives the narration.
	Out io.Writer
}

// localOptions are the agent options of examples/local/agent.yaml.
func localOptions() manifests.Options {
	return manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "local"}
}

// policyFiles are applied after the agent starts, in this order.
var policyFiles = []string{"nodeclass.yaml", "nodepool.yaml", "provisioner.yaml", "inflate.yaml"}

// result is what a demo run measured.
type result struct {
	// ScaleUp is from the scale to N until every pod runs; ScaleDown from the scale to 0
	// until no agent node is left; Total the whole run.
	ScaleUp, ScaleDown, Total time.Duration
	// PeakNodes and PeakCostPerHour describe the agent's nodes with every pod running.
	PeakNodes       int
	PeakCostPerHour float64
	// PredictedNodes and PredictedCostPerHour are what tenon simulate predicted.
	PredictedNodes       int
	PredictedCostPerHour float64
}

// demo is one run.
type demo struct {
	cfg    config
	start  time.Time
	cp     *controlplane.ControlPlane
	client client.Client
	agent  *agentProcess
	pricer *pricer
	last   view
}

func (d *demo) say(format string, args ...any) {
	fmt.Fprintf(d.cfg.Out, "[%6.1fs] %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
}

// run starts everything, scales inflate up and down, and stops everything it started, whatever
// happens. An error names what did not happen and where the logs are.
func run(ctx context.Context, cfg config) (res result, err error) {
	d := &demo{cfg: cfg, start: time.Now(), pricer: newPricer()}
	if err := d.check(); err != nil {
		return res, err
	}
	defer func() {
		d.stop()
		if err != nil {
			err = fmt.Errorf("%w\nlogs: %s", err, d.logs())
		}
	}()
	if err := d.startCluster(ctx); err != nil {
		return res, err
	}
	if err := d.startAgent(ctx); err != nil {
		return res, err
	}
	if err := d.applyExamples(ctx); err != nil {
		return res, err
	}
	if res.PredictedNodes, res.PredictedCostPerHour, err = d.predict(ctx); err != nil {
		return res, err
	}

	d.say("scaling deployment inflate to %d replicas (1 CPU each)", cfg.Replicas)
	if res.ScaleUp, err = d.scale(ctx, cfg.Replicas, cfg.ScaleUpTimeout, fmt.Sprintf("all %d pods Running", cfg.Replicas), func(v view) bool {
		_, running, _ := v.PodCounts()
		return running == cfg.Replicas
	}); err != nil {
		return res, err
	}
	res.PeakNodes, res.PeakCostPerHour = len(d.last.Nodes), d.last.CostPerHour()
	d.say("all %d pods Running %.1fs after the scale-up, on the agent's nodes:\n%s", cfg.Replicas, res.ScaleUp.Seconds(), table(d.last))
	d.say("tenon simulate predicted %d nodes at $%.4f/h; the agent launched %d at $%.4f/h", res.PredictedNodes, res.PredictedCostPerHour, res.PeakNodes, res.PeakCostPerHour)

	d.say("scaling deployment inflate to 0: the pools remove empty nodes after 30 s")
	if res.ScaleDown, err = d.scale(ctx, 0, cfg.ScaleDownTimeout, "no agent-launched node and no NodeClaim left", func(v view) bool {
		return len(v.Nodes) == 0 && len(v.Claims) == 0
	}); err != nil {
		return res, err
	}
	d.say("back to zero agent-launched nodes %.1fs after the scale-down ($0/h)", res.ScaleDown.Seconds())
	res.Total = time.Since(d.start)
	d.say("demo done in %.1fs; stopping the agent and the control plane", res.Total.Seconds())
	return res, nil
}

func (d *demo) check() error {
	info, err := os.Stat(d.cfg.Tenon)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("no tenon binary at %s: run `make build` (make demo does)", d.cfg.Tenon)
	}
	opts := controlplane.Options{Scheduler: true, ControllerManager: true, KWOK: true}
	if missing := controlplane.Missing(d.cfg.BinDir, opts); len(missing) > 0 {
		return fmt.Errorf("missing control-plane binaries %s: run `make testbin` (make demo does)", strings.Join(missing, ", "))
	}
	for _, f := range append([]string{"agent.yaml"}, policyFiles...) {
		if _, err := os.Stat(filepath.Join(d.cfg.Examples, f)); err != nil {
			return fmt.Errorf("the example is incomplete: %w", err)
		}
	}
	if err := os.RemoveAll(d.cfg.Dir); err != nil {
		return fmt.Errorf("emptying %s: %w", d.cfg.Dir, err)
	}
	return os.MkdirAll(d.cfg.Dir, 0o700)
}

func (d *demo) startCluster(ctx context.Context) error {
	d.say("starting the local control plane: etcd, kube-apiserver, kube-scheduler, kube-controller-manager, KWOK")
	cp, err := controlplane.Start(ctx, controlplane.Options{
		BinDir: d.cfg.BinDir, Dir: filepath.Join(d.cfg.Dir, "cluster"),
		Scheduler: true, ControllerManager: true, KWOK: true, Timeout: d.cfg.StartTimeout,
	})
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	d.cp = cp
	if d.client, _, err = kube.NewClient(cp.Kubeconfig, v1.AddToScheme); err != nil {
		return err
	}
	d.say("control plane up at %s (KUBECONFIG=%s)", cp.Host, cp.Kubeconfig)

	// Everything of the agent's install but the Deployment and its PDB: the agent runs here as
	// a local process, with the Deployment's arguments.
	us, err := localagent.Install(ctx, d.client, localOptions())
	if err != nil {
		return err
	}
	d.say("installed from engine/agent/manifests (as in examples/local/agent.yaml): %s", kinds(us))
	return nil
}

func kinds(us []*unstructured.Unstructured) string {
	var parts []string
	for _, u := range us {
		parts = append(parts, u.GetKind()+" "+kube.Name(u))
	}
	return strings.Join(parts, ", ")
}

// startAgent runs the Deployment's container arguments as a local process, with local ports
// and a kubeconfig that impersonates the agent's ServiceAccount, so its RBAC is the one that
// applies.
func (d *demo) startAgent(ctx context.Context) error {
	opts := localOptions().Defaulted()
	cmd, err := localagent.NewCommand(opts, d.cp.Kubeconfig, d.cfg.Dir)
	if err != nil {
		return err
	}
	logPath := filepath.Join(d.cfg.Dir, "agent.log")
	d.agent, err = startAgent(d.cfg.Tenon, cmd.Args, logPath)
	if err != nil {
		return err
	}
	d.say("started the agent as a local process: %s %s", filepath.Base(d.cfg.Tenon), strings.Join(cmd.Args, " "))
	d.say("  (the Deployment's arguments, with --kubeconfig as ServiceAccount %s/%s and local ports; log %s)", opts.Namespace, manifests.Name, logPath)
	return d.waitReady(ctx, "http://"+cmd.HealthAddr+"/readyz")
}

func (d *demo) waitReady(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StartTimeout)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		if done, err := d.agent.exited(); done {
			return fmt.Errorf("%w; last lines of %s:\n%s", err, d.agent.log, tail(d.agent.log, 30))
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				d.say("agent ready (%s answers 200)", url)
				return nil
			}
			err = fmt.Errorf("%s answered %s", url, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("the agent is not ready after %s: %w; last lines of %s:\n%s", d.cfg.StartTimeout, last, d.agent.log, tail(d.agent.log, 30))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (d *demo) applyExamples(ctx context.Context) error {
	var paths []string
	for _, f := range policyFiles {
		paths = append(paths, filepath.Join(d.cfg.Examples, f))
	}
	objs, err := kube.ReadFiles(paths...)
	if err != nil {
		return err
	}
	if err := kube.Apply(ctx, d.client, objs); err != nil {
		return fmt.Errorf("applying %s: %w", strings.Join(policyFiles, ", "), err)
	}
	d.say("applied examples/local: %s", kinds(objs))
	return nil
}

// predict runs tenon simulate's engine on the example with inflate scaled up.
func (d *demo) predict(ctx context.Context) (int, float64, error) {
	var files []simulate.File
	for _, f := range policyFiles {
		data, err := os.ReadFile(filepath.Join(d.cfg.Examples, f))
		if err != nil {
			return 0, 0, err
		}
		if f == "inflate.yaml" {
			data = []byte(strings.Replace(string(data), "replicas: 0", "replicas: "+strconv.Itoa(d.cfg.Replicas), 1))
		}
		files = append(files, simulate.File{Name: f, Data: data})
	}
	scenario, err := simulate.Parse(files...)
	if err != nil {
		return 0, 0, fmt.Errorf("simulating the example: %w", err)
	}
	report, err := scenario.Simulate(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("simulating the example: %w", err)
	}
	var lines []string
	for _, n := range report.Nodes {
		lines = append(lines, fmt.Sprintf("  %-10s %-14s %-10s %-12s %2d pods  $%.4f/h", n.NodePool, n.InstanceType, n.CapacityType, n.Zone, len(n.Pods), n.PricePerHour))
	}
	d.say("tenon simulate predicts, for %d inflate pods: %d nodes, $%.4f/h\n%s", d.cfg.Replicas, report.Summary.NewNodes, report.Summary.CostPerHour, strings.Join(lines, "\n"))
	return report.Summary.NewNodes, report.Summary.CostPerHour, nil
}

// scale sets inflate's replicas, then prints what changes until done holds, and returns how
// long that took.
func (d *demo) scale(ctx context.Context, replicas int, timeout time.Duration, goal string, done func(view) bool) (time.Duration, error) {
	dep := &unstructured.Unstructured{}
	dep.SetAPIVersion("apps/v1")
	dep.SetKind("Deployment")
	dep.SetNamespace("default")
	dep.SetName("inflate")
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":`+strconv.Itoa(replicas)+`}}`))
	if err := d.client.Patch(ctx, dep, patch); err != nil {
		return 0, fmt.Errorf("scaling inflate to %d: %w", replicas, err)
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		v, err := d.observe(ctx)
		if err == nil {
			for _, line := range changes(d.last, v) {
				d.say("%s", line)
			}
			d.last = v
			if done(v) {
				return time.Since(began), nil
			}
		}
		if exited, aerr := d.agent.exited(); exited {
			return 0, fmt.Errorf("%w; last lines of %s:\n%s", aerr, d.agent.log, tail(d.agent.log, 30))
		}
		select {
		case <-ctx.Done():
			total, running, pending := d.last.PodCounts()
			lastErr := "none"
			if err != nil {
				lastErr = err.Error()
			}
			return 0, fmt.Errorf("waiting for %s: not after %s (pods %d, %d Running, %d Pending; %d agent nodes; %d claims; last error reading the cluster: %s); last lines of %s:\n%s",
				goal, timeout, total, running, pending, len(d.last.Nodes), len(d.last.Claims), lastErr, d.agent.log, tail(d.agent.log, 30))
		case <-time.After(d.cfg.Poll):
		}
	}
}

// observe lists the agent's claims and nodes and inflate's pods.
func (d *demo) observe(ctx context.Context) (view, error) {
	v := view{Claims: map[string]claimView{}, Nodes: map[string]nodeView{}, Pods: map[string]podView{}}
	var claims v1.NodeClaimList
	if err := d.client.List(ctx, &claims); err != nil && !apierrors.IsNotFound(err) {
		return v, fmt.Errorf("listing NodeClaims: %w", err)
	}
	for i := range claims.Items {
		v.Claims[claims.Items[i].Name] = d.pricer.claim(&claims.Items[i])
	}
	pooled, err := labels.NewRequirement(scheduling.LabelNodePool, selection.Exists, nil)
	if err != nil {
		return v, err
	}
	var nodes corev1.NodeList
	if err := d.client.List(ctx, &nodes, client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*pooled)}); err != nil {
		return v, fmt.Errorf("listing nodes: %w", err)
	}
	for i := range nodes.Items {
		v.Nodes[nodes.Items[i].Name] = d.pricer.node(&nodes.Items[i])
	}
	var pods corev1.PodList
	if err := d.client.List(ctx, &pods, client.InNamespace("default"), client.MatchingLabels{"app": "inflate"}); err != nil {
		return v, fmt.Errorf("listing pods: %w", err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue // leaving: count it gone
		}
		v.Pods[p.Name] = podView{Node: p.Spec.NodeName, Phase: p.Status.Phase}
	}
	return v, nil
}

// stop ends the agent, then the control plane; the working folder stays, with the logs.
func (d *demo) stop() {
	if d.agent != nil {
		d.agent.stop(10 * time.Second)
	}
	if d.cp != nil {
		d.cp.Stop()
	}
}

func (d *demo) logs() string {
	var logs []string
	if d.agent != nil {
		logs = append(logs, d.agent.log)
	}
	if d.cp != nil {
		logs = append(logs, d.cp.Logs()...)
	}
	if len(logs) == 0 {
		return d.cfg.Dir
	}
	return strings.Join(logs, " ")
}
