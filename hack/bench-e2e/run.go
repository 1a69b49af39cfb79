package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// result is what one run of one engine measured.
type result struct {
	Engine string `json:"engine"`
	Pods   int    `json:"pods"`
	Run    int    `json:"run"`
	// Load is the machine's 1-minute load average at the start and the end.
	LoadStart, LoadEnd float64
	Up                 phaseResult `json:"scaleUp"`
	Down               phaseResult `json:"scaleDown"`
	// CPUSeconds is the engine process's user and system CPU time over the run; PeakRSSMiB its
	// peak resident memory.
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	Err        string  `json:"error,omitempty"`
}

// phaseResult is one phase: the burst, or the scale-down.
type phaseResult struct {
	// Running is when every pod of the phase ran (scale-up only); Created when the
	// controllers had created every pod, Bound when kube-scheduler had bound every pod: where
	// the time to Running goes.
	Running time.Duration `json:"running"`
	Created time.Duration `json:"created"`
	Bound   time.Duration `json:"bound"`
	// Stable is when the node set last changed before it stayed unchanged for the quiet period.
	Stable   time.Duration `json:"stable"`
	TimedOut bool          `json:"timedOut"`
	Nodes    int           `json:"nodes"`
	Cost     float64       `json:"costPerHour"`
	// NodesAtRunning and CostAtRunning are the node set when every pod first ran.
	NodesAtRunning int     `json:"nodesAtRunning"`
	CostAtRunning  float64 `json:"costAtRunningPerHour"`
	Evictions      int     `json:"evictions"`
	OtherDisrupts  int     `json:"otherDisruptions"`
	Launches       int     `json:"launches"`
	Removals       int     `json:"removals"`
	PDBViolations  int     `json:"pdbViolations"`
	// FewestEvictions bounds from below the evictions (and other disruptions) any walk from
	// the cluster at the phase's first one needs to end at Cost (fewest.go); FewestError says
	// why it was not computed.
	FewestEvictions int    `json:"fewestEvictions"`
	FewestError     string `json:"fewestError,omitempty"`
	Simulated       prediction
}

// bench is one invocation.
type bench struct {
	cfg      config
	pricer   *pricer
	capacity *capacityPrice
}

// runOne runs the scenario of pods on a fresh cluster with eng: the burst, then the scale-down.
func (b *bench) runOne(ctx context.Context, eng engine, pods, run int) (res result) {
	res = result{Engine: eng.Name(), Pods: pods, Run: run, LoadStart: loadAverage()}
	dir := filepath.Join(b.cfg.Dir, fmt.Sprintf("%d-pods-run%d-%s", pods, run, eng.Name()))
	_ = os.RemoveAll(dir)
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: b.cfg.BinDir, Dir: dir, Scheduler: true, ControllerManager: true, KWOK: true,
		Timeout: 3 * time.Minute})
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer func() {
		cp.Stop()
		res.LoadEnd = loadAverage()
	}()
	if err := b.measure(ctx, cp, eng, pods, &res); err != nil {
		res.Err = fmt.Sprintf("%v (logs in %s)", err, dir)
	}
	return res
}

func (b *bench) measure(ctx context.Context, cp *controlplane.ControlPlane, eng engine, pods int, res *result) error {
	c, cfg, err := kube.NewClient(cp.Kubeconfig, v1.AddToScheme)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := eng.Install(ctx, c, cp); err != nil {
		return fmt.Errorf("installing %s: %w", eng.Name(), err)
	}
	proc, err := eng.Start(ctx, cp)
	if err != nil {
		return fmt.Errorf("starting %s: %w", eng.Name(), err)
	}
	obsCtx, stop := context.WithCancel(ctx)
	defer stop()
	obs := newObserver(b.pricer)
	if err := obs.start(obsCtx, cs); err != nil {
		return err
	}
	up, down := burst(pods), scaled(burst(pods), b.cfg.ScaleDown)
	b.say("%s, %d pods: burst of %d Deployments", eng.Name(), pods, len(up))
	if err := b.scaleUp(ctx, c, obs, up, &res.Up); err != nil {
		return err
	}
	b.say("  all %d pods Running after %s (all created after %s, bound after %s) on %d nodes, $%.2f/h; stable after %s on %d nodes, $%.2f/h",
		pods, secs(res.Up.Running), secs(res.Up.Created), secs(res.Up.Bound), res.Up.NodesAtRunning, res.Up.CostAtRunning, secs(res.Up.Stable), res.Up.Nodes, res.Up.Cost)
	if err := b.scaleDown(ctx, c, obs, down, &res.Down); err != nil {
		return err
	}
	b.say("  scaled to %d pods: stable after %s on %d nodes, $%.2f/h, %d evictions, %d launches, %d PDB violations", total(down),
		secs(res.Down.Stable), res.Down.Nodes, res.Down.Cost, res.Down.Evictions, res.Down.Launches, res.Down.PDBViolations)
	if err := proc.Exited(); err != nil {
		return err
	}
	res.CPUSeconds, res.PeakRSSMiB = usage(proc.PID())
	return nil
}

// scaleUp creates the burst's Deployments at once and waits until every pod runs and the node
// set is quiet.
func (b *bench) scaleUp(ctx context.Context, c client.Client, obs *observer, ws []workload, out *phaseResult) error {
	var err error
	if out.Simulated, err = predict(ctx, ws); err != nil {
		return err
	}
	data, err := workloadYAML(ws, b.cfg.MaxUnavailable)
	if err != nil {
		return err
	}
	objs, err := kube.ReadData("burst.yaml", []byte(data))
	if err != nil {
		return err
	}
	if err := c.Create(ctx, namespaceObject()); err != nil {
		return err
	}
	obs.mark(targets(ws))
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return b.follow(ctx, obs, total(ws), out)
}

// scaleDown scales every Deployment to its share and waits until the node set is quiet.
func (b *bench) scaleDown(ctx context.Context, c client.Client, obs *observer, ws []workload, out *phaseResult) error {
	var err error
	if out.Simulated, err = predict(ctx, ws); err != nil {
		return err
	}
	obs.mark(targets(ws))
	for _, w := range ws {
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":`+strconv.Itoa(int(w.Replicas))+`}}`))
		if err := c.Patch(ctx, w.deployment(), patch); err != nil {
			return fmt.Errorf("scaling %s: %w", w.Name, err)
		}
	}
	return b.follow(ctx, obs, total(ws), out)
}

// follow polls the observer until all want pods run and the node set has not changed for the
// quiet period (or the phase times out), and records the phase's figures.
func (b *bench) follow(ctx context.Context, obs *observer, want int, out *phaseResult) error {
	start := obs.counts().start
	for {
		s := obs.status()
		all := s.Running == want && s.Pods == want
		if s.Pods == want && out.Created == 0 {
			out.Created = time.Since(start)
		}
		if s.Pods == want && s.Pending == 0 && out.Bound == 0 {
			out.Bound = time.Since(start)
		}
		if all && out.Running == 0 {
			out.Running = time.Since(start)
			out.NodesAtRunning, out.CostAtRunning = s.Nodes, s.CostPerHour
		}
		timedOut := time.Since(start) > b.cfg.Timeout
		if (all && s.Deleting == 0 && s.SinceChange >= b.cfg.Quiet) || timedOut {
			pc := obs.counts()
			out.TimedOut = timedOut
			out.Stable = s.Stable
			out.Nodes, out.Cost = s.Nodes, s.CostPerHour
			out.Evictions, out.OtherDisrupts, out.Launches, out.Removals, out.PDBViolations = pc.evictions, pc.otherDisrupts, pc.launches, pc.removals, pc.violations
			if before := obs.settledPlacement(); before != nil {
				var err error
				if out.FewestEvictions, err = fewestEvictions(before, out.Cost, b.capacity); err != nil {
					out.FewestError = err.Error()
				}
			}
			if !all {
				return fmt.Errorf("after %s: %d of %d pods running, %d pending", b.cfg.Timeout, s.Running, want, s.Pending)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func targets(ws []workload) map[string]int32 {
	out := make(map[string]int32, len(ws))
	for _, w := range ws {
		out[w.Name] = w.Replicas
	}
	return out
}

func secs(d time.Duration) string { return fmt.Sprintf("%.0fs", d.Seconds()) }

// loadAverage is the machine's 1-minute load average, 0 when unknown.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return f
}

// usage reads a process's CPU seconds (user and system) and peak resident memory from /proc.
func usage(pid int) (cpu, peakMiB float64) {
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(data)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+1:])
			// Fields after the command: state is f[0], utime f[11], stime f[12], in clock ticks
			// of 1/100 s on Linux.
			if len(f) > 12 {
				u, _ := strconv.ParseFloat(f[11], 64)
				st, _ := strconv.ParseFloat(f[12], 64)
				cpu = (u + st) / 100
			}
		}
	}
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
				peakMiB = kb / 1024
			}
		}
	}
	return cpu, peakMiB
}
