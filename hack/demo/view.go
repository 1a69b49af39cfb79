package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// view is what the demo shows of the cluster at one moment: the agent's NodeClaims, the nodes
// it launched (those labelled with a pool) and the workload's pods.
type view struct {
	Claims map[string]claimView
	Nodes  map[string]nodeView
	Pods   map[string]podView
}

// offering is how an instance is bought, and its price per hour (0 when the catalog has none).
type offering struct {
	InstanceType, Zone, CapacityType string
	PricePerHour                     float64
}

func (o offering) String() string {
	if o.InstanceType == "" {
		return "instance type not chosen yet"
	}
	price := "price unknown"
	if o.PricePerHour > 0 {
		price = fmt.Sprintf("$%.4f/h", o.PricePerHour)
	}
	return fmt.Sprintf("%s %s in %s, %s", o.InstanceType, o.CapacityType, o.Zone, price)
}

type claimView struct {
	Pool     string
	Offering offering
	NodeName string
	// Stage is the furthest lifecycle condition that is true: "", Launched, Registered or
	// Initialized.
	Stage    string
	Deleting bool
}

type nodeView struct {
	Pool     string
	Offering offering
	Ready    bool
	Deleting bool
}

type podView struct {
	Node  string
	Phase corev1.PodPhase
}

// pricer prices offerings from the embedded catalog, one catalog per region.
type pricer struct {
	catalogs map[string]*catalog.Catalog
}

func newPricer() *pricer { return &pricer{catalogs: map[string]*catalog.Catalog{}} }

func (p *pricer) price(region, instanceType, zone, capacityType string) float64 {
	if region == "" {
		region = catalog.DefaultRegion
	}
	cat, ok := p.catalogs[region]
	if !ok {
		var err error
		if cat, err = catalog.New(catalog.WithRegion(region)); err != nil {
			cat = nil
		}
		p.catalogs[region] = cat
	}
	if cat == nil {
		return 0
	}
	it, ok := cat.Get(instanceType)
	if !ok {
		return 0
	}
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.PricePerHour
		}
	}
	return 0
}

// stages in lifecycle order.
var stages = []string{v1.ConditionLaunched, v1.ConditionRegistered, v1.ConditionInitialized}

func (p *pricer) claim(c *v1.NodeClaim) claimView {
	cv := claimView{
		Pool:     c.Labels[scheduling.LabelNodePool],
		NodeName: c.Status.NodeName,
		Deleting: c.DeletionTimestamp != nil,
	}
	o := offering{
		InstanceType: firstOf(c.Status.InstanceType, c.Labels[scheduling.LabelInstanceType]),
		Zone:         firstOf(c.Status.Zone, c.Labels[scheduling.LabelTopologyZone]),
		CapacityType: firstOf(c.Status.CapacityType, c.Labels[scheduling.LabelCapacityType]),
	}
	if c.Status.InstanceType != "" {
		o.PricePerHour = p.price(c.Labels[scheduling.LabelTopologyRegion], o.InstanceType, o.Zone, o.CapacityType)
	} else {
		o.InstanceType = "" // not launched: the labels are at most a wish
	}
	cv.Offering = o
	for _, s := range stages {
		if apimeta.IsStatusConditionTrue(c.Status.Conditions, s) {
			cv.Stage = s
		}
	}
	return cv
}

func (p *pricer) node(n *corev1.Node) nodeView {
	nv := nodeView{
		Pool: n.Labels[scheduling.LabelNodePool],
		Offering: offering{
			InstanceType: n.Labels[scheduling.LabelInstanceType],
			Zone:         n.Labels[scheduling.LabelTopologyZone],
			CapacityType: n.Labels[scheduling.LabelCapacityType],
		},
		Deleting: n.DeletionTimestamp != nil,
	}
	nv.Offering.PricePerHour = p.price(n.Labels[scheduling.LabelTopologyRegion], nv.Offering.InstanceType, nv.Offering.Zone, nv.Offering.CapacityType)
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			nv.Ready = c.Status == corev1.ConditionTrue
		}
	}
	return nv
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// CostPerHour is the price of the agent's nodes.
func (v view) CostPerHour() float64 {
	var sum float64
	for _, name := range sortedKeys(v.Nodes) {
		sum += v.Nodes[name].Offering.PricePerHour
	}
	return sum
}

// PodCounts counts pods by phase, Running on a node apart.
func (v view) PodCounts() (total, running, pending int) {
	for _, p := range v.Pods {
		total++
		switch p.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodPending, "":
			pending++
		}
	}
	return total, running, pending
}

// changes lists, in a stable order, what differs between prev and next as lines a person
// reads: claims created, launched, registered, initialized and deleted; agent nodes joining,
// becoming Ready and leaving; and the pods' counts and the cost when they change.
func changes(prev, next view) []string {
	var out []string
	for _, name := range sortedKeys(next.Claims) {
		c, old, existed := next.Claims[name], prev.Claims[name], false
		if _, existed = prev.Claims[name]; !existed {
			out = append(out, fmt.Sprintf("NodeClaim %s created for pool %s", name, orNone(c.Pool)))
		}
		if c.Offering.InstanceType != "" && old.Offering.InstanceType == "" {
			out = append(out, fmt.Sprintf("NodeClaim %s launched: %s", name, c.Offering))
		}
		if c.Stage != old.Stage && c.Stage != "" && c.Stage != v1.ConditionLaunched {
			out = append(out, fmt.Sprintf("NodeClaim %s %s (node %s)", name, strings.ToLower(c.Stage), orNone(c.NodeName)))
		}
		if c.Deleting && !old.Deleting {
			out = append(out, fmt.Sprintf("NodeClaim %s terminating", name))
		}
	}
	for _, name := range sortedKeys(prev.Claims) {
		if _, ok := next.Claims[name]; !ok {
			out = append(out, fmt.Sprintf("NodeClaim %s deleted", name))
		}
	}
	for _, name := range sortedKeys(next.Nodes) {
		n, old := next.Nodes[name], prev.Nodes[name]
		if _, existed := prev.Nodes[name]; !existed {
			out = append(out, fmt.Sprintf("Node %s joined (pool %s): %s", name, orNone(n.Pool), n.Offering))
		}
		if n.Ready && !old.Ready {
			out = append(out, fmt.Sprintf("Node %s Ready", name))
		}
		if n.Deleting && !old.Deleting {
			out = append(out, fmt.Sprintf("Node %s draining", name))
		}
	}
	for _, name := range sortedKeys(prev.Nodes) {
		if _, ok := next.Nodes[name]; !ok {
			out = append(out, fmt.Sprintf("Node %s removed", name))
		}
	}
	pt, pr, pp := prev.PodCounts()
	nt, nr, np := next.PodCounts()
	if pt != nt || pr != nr || pp != np {
		out = append(out, fmt.Sprintf("pods: %d, %d Running, %d Pending", nt, nr, np))
	}
	if !sameKeys(prev.Nodes, next.Nodes) || prev.CostPerHour() != next.CostPerHour() {
		out = append(out, fmt.Sprintf("agent nodes: %d, $%.4f/h", len(next.Nodes), next.CostPerHour()))
	}
	return out
}

// table lists the agent's nodes with their pods, pool and price, for the summary after a phase.
func table(v view) string {
	pods := map[string]int{}
	for _, p := range v.Pods {
		if p.Node != "" {
			pods[p.Node]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %-24s %-10s %-14s %-10s %-12s %5s %10s\n", "NODE", "POOL", "TYPE", "CAPACITY", "ZONE", "PODS", "$/HOUR")
	for _, name := range sortedKeys(v.Nodes) {
		n := v.Nodes[name]
		fmt.Fprintf(&b, "  %-24s %-10s %-14s %-10s %-12s %5d %10.4f\n", name, orNone(n.Pool), n.Offering.InstanceType,
			n.Offering.CapacityType, n.Offering.Zone, pods[name], n.Offering.PricePerHour)
	}
	fmt.Fprintf(&b, "  %d nodes, $%.4f/h ($%.2f per 30-day month)", len(v.Nodes), v.CostPerHour(), v.CostPerHour()*24*30)
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	return keys
}

func sameKeys[V any](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}
