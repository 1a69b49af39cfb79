package agent

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// poolUsage is what a pool's claims hold.
type poolUsage struct {
	nodes     int64
	resources corev1.ResourceList
	// costPerHour is the price of the pool's nodes and in-flight claims, also split by
	// capacity type.
	costPerHour        float64
	costByCapacityType map[string]float64
}

// formatPrice writes a price per hour as status holds it: USD with four decimals.
func formatPrice(usd float64) string { return strconv.FormatFloat(usd, 'f', 4, 64) }

// costMetrics sets the cluster's and each pool's cost per hour. Pools and capacity types that
// are gone are dropped, so a deleted pool stops reporting.
func (s *poolStatus) costMetrics(v *clusterView, usage map[string]*poolUsage) {
	cost := 0.0
	for _, n := range v.snap.Nodes {
		if n.Pool != "" {
			cost += n.PricePerHour
		}
	}
	s.metrics.clusterCostPerHour.Set(cost)
	s.metrics.poolCostPerHour.Reset()
	for pool, u := range usage {
		for capacityType, c := range u.costByCapacityType {
			s.metrics.poolCostPerHour.WithLabelValues(pool, capacityType).Set(c)
		}
	}
}

// updateClaimPrices records on each NodeClaim what its offering costs now, from the same
// prices the packer uses (spot prices move, so it is rewritten when they do).
func (s *poolStatus) updateClaimPrices(ctx context.Context, v *clusterView) error {
	prices := map[string]string{}
	for _, n := range v.snap.Nodes {
		if n.Claim != "" && n.PricePerHour > 0 {
			prices[n.Claim] = formatPrice(n.PricePerHour)
		}
	}
	for _, c := range v.claims {
		// Launched claims only: the lifecycle controller writes a claim's status until its
		// launch is recorded, and a write here would make it conflict.
		price, ok := prices[c.Name]
		if !ok || c.Status.ProviderID == "" || c.Status.PricePerHour == price || c.DeletionTimestamp != nil {
			continue
		}
		claim := c.DeepCopy()
		claim.Status.PricePerHour = price
		if err := s.client.Status().Update(ctx, claim); err != nil {
			return ignoreConflict(client.IgnoreNotFound(fmt.Errorf("recording the price of nodeclaim %s: %w", c.Name, err)))
		}
	}
	return nil
}

// poolStatus writes status on the policy objects: resources, node counts
// and conditions on NodePools and Provisioners, what the cloud resolved and
// Ready on NodeClasses, and the pool and cost metrics.
type poolStatus struct {
	client   client.Client
	cloud    cloud.CloudProvider
	views    *viewBuilder
	recorder events.EventRecorder
	metrics  *metrics
	log      logr.Logger
	clock    agentClock
	timings  Timings
}

// update writes every status from a fresh view.
func (s *poolStatus) update(ctx context.Context, _ time.Time) error {
	v, err := s.views.view(ctx)
	if err != nil {
		return err
	}
	usage := claimUsage(v)
	s.costMetrics(v, usage)
	if err := s.updateClaimPrices(ctx, v); err != nil {
		return err
	}
	if err := s.updateClasses(ctx, v); err != nil {
		return err
	}
	if err := s.updateNodePools(ctx, v, usage); err != nil {
		return err
	}
	if err := s.updateOverlays(ctx, v); err != nil {
		return err
	}
	return s.updateProvisioners(ctx, v, usage)
}

// Register adds the status loop, every StatusInterval on the leader.
func (s *poolStatus) Register(mgr manager.Manager) error {
	return addEvery(mgr, "pool-status", s.clock, s.timings.StatusInterval, s.log, s.update)
}

// claimUsage sums the capacity, the price and counts the claims of each pool.
func claimUsage(v *clusterView) map[string]*poolUsage {
	usage := map[string]*poolUsage{}
	for _, n := range v.snap.Nodes {
		if n.Pool == "" || n.Claim == "" {
			continue
		}
		u := usageOf(usage, n.Pool)
		usage[n.Pool] = u
		u.costPerHour += n.PricePerHour
		if u.costByCapacityType == nil {
			u.costByCapacityType = map[string]float64{}
		}
		u.costByCapacityType[n.CapacityType] += n.PricePerHour
	}
	for _, c := range v.claims {
		pool := c.Labels[v1.LabelNodePool]
		u := usageOf(usage, pool)
		usage[pool] = u
		u.nodes++
		for name, q := range c.Status.Capacity {
			sum := u.resources[name]
			sum.Add(q)
			u.resources[name] = sum
		}
	}
	return usage
}

// updateClasses writes what the cloud resolved and Ready on NodeClasses.
func (s *poolStatus) updateClasses(ctx context.Context, v *clusterView) error {
	var classes v1.NodeClassList
	if err := s.client.List(ctx, &classes); err != nil {
		return fmt.Errorf("listing nodeclasses: %w", err)
	}
	for i := range classes.Items {
		nc := &classes.Items[i]
		before := nc.Status.DeepCopy()
		s.resolveClassStatus(ctx, nc)
		setReady(&nc.Status.Conditions, v.classReady[nc.Name], nc.Generation)
		if !equality.Semantic.DeepEqual(before, &nc.Status) {
			if err := s.client.Status().Update(ctx, nc); err != nil {
				return ignoreConflict(fmt.Errorf("updating the status of nodeclass %s: %w", nc.Name, err))
			}
			if reason := v.classReady[nc.Name]; reason != nil {
				s.recorder.Eventf(nc, nil, corev1.EventTypeWarning, ReasonNodeClassNotReady, "Status", "%v", reason)
			}
		}
	}
	return nil
}

// updateNodePools writes resources, node counts and conditions on
// NodePools.
func (s *poolStatus) updateNodePools(ctx context.Context, v *clusterView, usage map[string]*poolUsage) error {
	var pools v1.NodePoolList
	if err := s.client.List(ctx, &pools); err != nil {
		return fmt.Errorf("listing nodepools: %w", err)
	}
	for i := range pools.Items {
		np := &pools.Items[i]
		u := usageOf(usage, np.Name)
		s.poolMetrics(np.Name, u, np.Spec.Limits)
		before := np.Status.DeepCopy()
		np.Status.Nodes = u.nodes
		np.Status.Resources = u.resources
		np.Status.CostPerHour = formatPrice(u.costPerHour)
		s.setPoolConditions(&np.Status.Conditions, v, v1.NodePoolKind, np.Name, np.Generation)
		if !equality.Semantic.DeepEqual(before, &np.Status) {
			if err := s.client.Status().Update(ctx, np); err != nil {
				return ignoreConflict(client.IgnoreNotFound(fmt.Errorf("updating the status of nodepool %s: %w", np.Name, err)))
			}
			s.announceReadiness(np, before.Conditions, np.Status.Conditions)
		}
	}
	return nil
}

// updateProvisioners writes resources and conditions on Provisioners.
func (s *poolStatus) updateProvisioners(ctx context.Context, v *clusterView, usage map[string]*poolUsage) error {
	var provisioners v1alpha5.ProvisionerList
	if err := s.client.List(ctx, &provisioners); err != nil {
		return fmt.Errorf("listing provisioners: %w", err)
	}
	for i := range provisioners.Items {
		p := &provisioners.Items[i]
		u := usageOf(usage, p.Name)
		var limits corev1.ResourceList
		if p.Spec.Limits != nil {
			limits = p.Spec.Limits.Resources
		}
		s.poolMetrics(p.Name, u, limits)
		before := p.Status.DeepCopy()
		p.Status.Resources = u.resources
		p.Status.CostPerHour = formatPrice(u.costPerHour)
		s.setPoolConditions(&p.Status.Conditions, v, v1alpha5.ProvisionerKind, p.Name, p.Generation)
		if !equality.Semantic.DeepEqual(before, &p.Status) {
			if err := s.client.Status().Update(ctx, p); err != nil {
				return ignoreConflict(client.IgnoreNotFound(fmt.Errorf("updating the status of provisioner %s: %w", p.Name, err)))
			}
			s.announceReadiness(p, before.Conditions, p.Status.Conditions)
		}
	}
	return nil
}

// announceReadiness emits an event on a pool whose Ready condition changed:
// Warning with the reason when it stopped launching, Normal when it can
// launch again.
func (s *poolStatus) announceReadiness(pool runtime.Object, before, after []metav1.Condition) {
	was := meta.FindStatusCondition(before, v1.ConditionReady)
	now := meta.FindStatusCondition(after, v1.ConditionReady)
	if now == nil || (was != nil && was.Status == now.Status) {
		return
	}
	if now.Status == metav1.ConditionTrue {
		s.recorder.Eventf(pool, nil, corev1.EventTypeNormal, "Ready", "Status", "The pool can launch nodes")
		return
	}
	s.recorder.Eventf(pool, nil, corev1.EventTypeWarning, now.Reason, "Status", "The pool cannot launch nodes: %s", now.Message)
}

func usageOf(usage map[string]*poolUsage, pool string) *poolUsage {
	if u := usage[pool]; u != nil {
		return u
	}
	return &poolUsage{resources: corev1.ResourceList{}}
}

func (s *poolStatus) poolMetrics(pool string, u *poolUsage, limits corev1.ResourceList) {
	s.metrics.poolNodes.WithLabelValues(pool).Set(float64(u.nodes))
	for name, q := range u.resources {
		s.metrics.poolUsage.WithLabelValues(pool, string(name)).Set(q.AsApproximateFloat64())
	}
	for name, q := range limits {
		s.metrics.poolLimit.WithLabelValues(pool, string(name)).Set(q.AsApproximateFloat64())
	}
}

// setPoolConditions sets ValidationSucceeded, NodeClassReady and Ready on a
// pool from what the view left out and why.
func (s *poolStatus) setPoolConditions(conds *[]metav1.Condition, v *clusterView, kind, name string, generation int64) {
	var validation, class error
	if why, bad := v.invalid[kind+"/"+name]; bad {
		validation = fmt.Errorf("%s", why)
	}
	if why, bad := v.notReady[name]; bad {
		class = fmt.Errorf("%s", why)
	}
	set := func(t string, err error, okReason string) {
		c := metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: okReason, ObservedGeneration: generation}
		if err != nil {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, "Not"+okReason, truncate(err.Error(), 1000)
		}
		meta.SetStatusCondition(conds, c)
	}
	set(v1.ConditionValidationSucceeded, validation, "Valid")
	if validation == nil {
		set(v1.ConditionNodeClassReady, class, "NodeClassReady")
	}
	ready := validation
	if ready == nil {
		ready = class
	}
	set(v1.ConditionReady, ready, "Ready")
}

// setReady sets the Ready condition: true for nil, false with the reason.
func setReady(conds *[]metav1.Condition, notReady error, generation int64) {
	c := metav1.Condition{Type: v1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready", ObservedGeneration: generation}
	if notReady != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "NotReady", truncate(notReady.Error(), 1000)
	}
	meta.SetStatusCondition(conds, c)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// negativeLimits names the resources a pool limits below zero, which the
// API accepts but which cannot mean anything: such a pool is left out.
func negativeLimits(limits corev1.ResourceList) error {
	for name, q := range limits {
		if q.Cmp(resource.Quantity{}) < 0 {
			return fmt.Errorf("limits.%s is %s: a limit cannot be negative; set it to 0 to launch nothing, or remove it", name, q.String())
		}
	}
	return nil
}

// classStatuser is implemented by clouds that resolve a NodeClass into
// concrete things (the AWS provider: subnets, security groups, AMIs and the
// instance profile).
type classStatuser interface {
	NodeClassStatus(ctx context.Context, name string) (v1.NodeClassStatus, error)
}

// resolveClassStatus copies what the cloud resolved for nc into its status,
// so `kubectl get nodeclass -o yaml` shows the subnets, security groups,
// AMIs and instance profile nodes launch with. A cloud that cannot resolve
// the class leaves the last resolved values; Ready says why.
func (s *poolStatus) resolveClassStatus(ctx context.Context, nc *v1.NodeClass) {
	r, ok := s.cloud.(classStatuser)
	if !ok {
		return
	}
	resolved, err := r.NodeClassStatus(ctx, nc.Name)
	if err != nil {
		s.log.V(1).Info("nodeclass not resolved", "nodeclass", nc.Name, "err", err.Error())
		return
	}
	mergeResolvedStatus(&nc.Status, resolved, nc.Generation)
}

// mergeResolvedStatus sets dst's resolved fields and every condition of
// resolved except Ready, which the agent sets itself from whether the class
// can launch.
func mergeResolvedStatus(dst *v1.NodeClassStatus, resolved v1.NodeClassStatus, generation int64) {
	dst.Subnets = resolved.Subnets
	dst.SecurityGroups = resolved.SecurityGroups
	dst.AMIs = resolved.AMIs
	dst.InstanceProfile = resolved.InstanceProfile
	dst.CapacityReservations = resolved.CapacityReservations
	for _, c := range resolved.Conditions {
		if c.Type == v1.ConditionReady {
			continue
		}
		c.ObservedGeneration = generation
		meta.SetStatusCondition(&dst.Conditions, c)
	}
}
