package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Labels that mark a node as launched by an engine under test.
var engineNodeLabels = []string{"tenon.dev/nodepool", "karpenter.sh/nodepool"}

// observer watches the benchmark's pods, the engines' nodes and the PDBs through informers and
// keeps what the figures need: pods running, nodes and their price, when the node set last
// changed, evictions, node launches and PDB violations per phase.
type observer struct {
	pricer *pricer
	mu     sync.Mutex
	pods   map[types.UID]*corev1.Pod
	nodes  map[string]*corev1.Node
	// seen are the pods already counted as disrupted.
	seen map[types.UID]bool
	// phase counts what happens from the last mark on.
	phase      phaseCounts
	lastChange time.Time
	// targets are the replicas each Deployment is scaled to in this phase (by app label).
	targets map[string]int32
	// violated are the PDBs currently below their desired healthy count.
	violated map[string]bool
}

// phaseCounts are what the observer counts between two marks.
type phaseCounts struct {
	start         time.Time
	evictions     int
	otherDisrupts int
	launches      int
	removals      int
	violations    int
	maxDeficit    int32
	// before is the cluster as the phase's first disruption found it.
	before *placement
}

func newObserver(p *pricer) *observer {
	return &observer{pricer: p, pods: map[types.UID]*corev1.Pod{}, nodes: map[string]*corev1.Node{}, seen: map[types.UID]bool{},
		violated: map[string]bool{}, lastChange: time.Now(), phase: phaseCounts{start: time.Now()}}
}

// start runs the informers until ctx ends and waits for their first sync.
func (o *observer) start(ctx context.Context, cs kubernetes.Interface) error {
	all := informers.NewSharedInformerFactory(cs, 0)
	ns := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace))
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandlerFuncs
	}{
		{ns.Core().V1().Pods().Informer(), cache.ResourceEventHandlerFuncs{AddFunc: o.pod, UpdateFunc: func(_, n any) { o.pod(n) }, DeleteFunc: o.podGone}},
		{all.Core().V1().Nodes().Informer(), cache.ResourceEventHandlerFuncs{AddFunc: o.node, UpdateFunc: func(_, n any) { o.node(n) }, DeleteFunc: o.nodeGone}},
		{ns.Policy().V1().PodDisruptionBudgets().Informer(), cache.ResourceEventHandlerFuncs{AddFunc: o.pdb, UpdateFunc: func(_, n any) { o.pdb(n) }}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return err
		}
	}
	all.Start(ctx.Done())
	ns.Start(ctx.Done())
	for typ, ok := range all.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer of %v did not sync", typ)
		}
	}
	for typ, ok := range ns.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer of %v did not sync", typ)
		}
	}
	return nil
}

// mark starts a new phase in which the Deployments are scaled to targets; the quiet period
// starts again with it, so that a phase is never stable before the engine had its chance.
func (o *observer) mark(targets map[string]int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.phase = phaseCounts{start: time.Now()}
	o.lastChange = o.phase.start
	o.targets = targets
	o.violated = map[string]bool{}
}

func (o *observer) pod(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pods[p.UID] = p
	o.countDisruption(p)
}

func (o *observer) podGone(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.countDisruption(p)
	delete(o.pods, p.UID)
}

// countDisruption counts a pod once when it carries the DisruptionTarget condition: an eviction
// through the Eviction API, or another disruption (pod GC of a deleted node, taint manager).
func (o *observer) countDisruption(p *corev1.Pod) {
	if o.seen[p.UID] {
		return
	}
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.DisruptionTarget || c.Status != corev1.ConditionTrue {
			continue
		}
		o.seen[p.UID] = true
		if o.phase.before == nil {
			o.phase.before = o.capture(p)
		}
		if c.Reason == "EvictionByEvictionAPI" {
			o.phase.evictions++
		} else {
			o.phase.otherDisrupts++
		}
		return
	}
}

func engineNode(n *corev1.Node) bool {
	for _, l := range engineNodeLabels {
		if _, ok := n.Labels[l]; ok {
			return true
		}
	}
	return false
}

func (o *observer) node(obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok || !engineNode(n) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, known := o.nodes[n.Name]; !known {
		o.phase.launches++
		o.lastChange = time.Now()
	}
	o.nodes[n.Name] = n
}

func (o *observer) nodeGone(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok || !engineNode(n) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, known := o.nodes[n.Name]; known {
		o.phase.removals++
		o.lastChange = time.Now()
	}
	delete(o.nodes, n.Name)
}

// pdb counts a violation each time a PDB whose Deployment has reached this phase's replicas
// falls below its desired healthy count.
func (o *observer) pdb(obj any) {
	b, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	want, ok := o.targets[b.Name]
	if !ok || b.Status.ExpectedPods != want || b.Status.ObservedGeneration < b.Generation {
		return
	}
	deficit := b.Status.DesiredHealthy - b.Status.CurrentHealthy
	if deficit > 0 && !o.violated[b.Name] {
		o.phase.violations++
	}
	o.violated[b.Name] = deficit > 0
	o.phase.maxDeficit = max(o.phase.maxDeficit, deficit)
}

// status is the cluster as the observer sees it now.
type status struct {
	Running, Pods, Pending int
	Nodes, Deleting        int
	CostPerHour            float64
	SinceChange            time.Duration
	// Stable is how long after the phase's start the node set last changed (0: not since).
	Stable time.Duration
}

func (o *observer) status() status {
	o.mu.Lock()
	defer o.mu.Unlock()
	var s status
	for _, p := range o.pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		s.Pods++
		switch {
		case p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "":
			s.Running++
		case p.Spec.NodeName == "":
			s.Pending++
		}
	}
	for _, n := range o.nodes {
		s.Nodes++
		if n.DeletionTimestamp != nil {
			s.Deleting++
		}
		s.CostPerHour += o.pricer.price(n.Labels)
	}
	s.SinceChange = time.Since(o.lastChange)
	s.Stable = o.lastChange.Sub(o.phase.start)
	return s
}

func (o *observer) counts() phaseCounts {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.phase
}
