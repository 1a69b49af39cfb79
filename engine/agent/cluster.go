package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// clusterView is what the agent read from its informer cache at one
// instant: the Snapshot the engines decide on, and what it left out and why.
type clusterView struct {
	snap *state.Snapshot
	// objects are the objects the snapshot was built from (pods include only
	// the bound and the unschedulable ones).
	objects state.Objects
	// invalid maps "Kind/name" of each policy object left out to why.
	invalid map[string]string
	// notReady maps each pool left out because its NodeClass cannot launch
	// to why.
	notReady map[string]string
	// classReady maps each NodeClass name to nil or why it is not ready.
	classReady map[string]error
	// claims are every NodeClaim, by name.
	claims map[string]*v1.NodeClaim
	// pending holds the "namespace/name" of every pod not bound to a node
	// yet (unschedulable or not).
	pending map[string]bool
}

// isUnschedulable reports whether the scheduler found no node for pod.
func isUnschedulable(pod *corev1.Pod) bool {
	if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
		pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// view reads the cache and builds a Snapshot. Invalid policy objects and
// pools whose NodeClass is not ready are left out (and reported in the
// view) so that one bad object never stops the others.
func (a *Agent) view(ctx context.Context) (*clusterView, error) {
	var (
		pods         corev1.PodList
		nodes        corev1.NodeList
		daemonSets   appsv1.DaemonSetList
		pdbs         policyv1.PodDisruptionBudgetList
		nodePools    v1.NodePoolList
		nodeClasses  v1.NodeClassList
		nodeClaims   v1.NodeClaimList
		provisioners v1alpha5.ProvisionerList
	)
	for _, l := range []client.ObjectList{&pods, &nodes, &daemonSets, &pdbs, &nodePools, &nodeClasses, &nodeClaims, &provisioners} {
		if err := a.client.List(ctx, l); err != nil {
			return nil, fmt.Errorf("listing %T from the cache: %w", l, err)
		}
	}
	v := &clusterView{invalid: map[string]string{}, notReady: map[string]string{}, classReady: map[string]error{}, claims: map[string]*v1.NodeClaim{}, pending: map[string]bool{}}
	objs := &v.objects
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" || isUnschedulable(p) {
			objs.Pods = append(objs.Pods, p)
		}
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodPending {
			v.pending[p.Namespace+"/"+p.Name] = true
		}
	}
	for i := range nodes.Items {
		objs.Nodes = append(objs.Nodes, &nodes.Items[i])
	}
	for i := range daemonSets.Items {
		objs.DaemonSets = append(objs.DaemonSets, &daemonSets.Items[i])
	}
	for i := range pdbs.Items {
		objs.PDBs = append(objs.PDBs, &pdbs.Items[i])
	}
	classes := map[string]*v1.NodeClass{}
	for i := range nodeClasses.Items {
		nc := &nodeClasses.Items[i]
		if errs := nc.Validate(); len(errs) > 0 {
			v.invalid[v1.NodeClassKind+"/"+nc.Name] = errs.ToAggregate().Error()
			v.classReady[nc.Name] = fmt.Errorf("invalid: %s", errs.ToAggregate().Error())
			continue
		}
		classes[nc.Name] = nc
		v.classReady[nc.Name] = a.classReady(ctx, nc)
		objs.NodeClasses = append(objs.NodeClasses, nc)
	}
	nodeNames := map[string]*corev1.Node{}
	for _, n := range objs.Nodes {
		nodeNames[n.Name] = n
	}
	for i := range nodeClaims.Items {
		c := &nodeClaims.Items[i]
		v.claims[c.Name] = c
		// A launch the claim's status does not show yet (the cache lags
		// the cloud call): the node named after the claim is its node.
		if n := nodeNames[c.Name]; n != nil && c.Status.ProviderID == "" && c.Status.NodeName == "" {
			c.Status.ProviderID = n.Spec.ProviderID
		}
		if errs := c.Validate(); len(errs) > 0 {
			v.invalid[v1.NodeClaimKind+"/"+c.Name] = errs.ToAggregate().Error()
			continue
		}
		objs.NodeClaims = append(objs.NodeClaims, c)
	}
	poolReady := func(name, className string, class *v1.NodeClass) bool {
		if class == nil {
			class = classes[className]
		}
		var err error
		switch {
		case className == "" && class == nil:
			err = fmt.Errorf("it names no NodeClass")
		case class == nil:
			err = fmt.Errorf("NodeClass %q does not exist or is invalid", className)
		default:
			err = a.classReady(ctx, class)
		}
		if err != nil {
			v.notReady[name] = err.Error()
			return false
		}
		return true
	}
	for i := range nodePools.Items {
		np := &nodePools.Items[i]
		if errs := np.Validate(); len(errs) > 0 {
			v.invalid[v1.NodePoolKind+"/"+np.Name] = errs.ToAggregate().Error()
			continue
		}
		if err := negativeLimits(np.Spec.Limits); err != nil {
			v.invalid[v1.NodePoolKind+"/"+np.Name] = err.Error()
			continue
		}
		ref := ""
		if np.Spec.Template.Spec.NodeClassRef != nil {
			ref = np.Spec.Template.Spec.NodeClassRef.Name
		}
		if poolReady(np.Name, ref, nil) {
			objs.NodePools = append(objs.NodePools, np)
		}
	}
	for i := range provisioners.Items {
		p := &provisioners.Items[i]
		if errs := p.Validate(); len(errs) > 0 {
			v.invalid[v1alpha5.ProvisionerKind+"/"+p.Name] = errs.ToAggregate().Error()
			continue
		}
		if p.Spec.Limits != nil {
			if err := negativeLimits(p.Spec.Limits.Resources); err != nil {
				v.invalid[v1alpha5.ProvisionerKind+"/"+p.Name] = err.Error()
				continue
			}
		}
		np, nc, err := v1alpha5.ToNodePool(p)
		if err != nil {
			v.invalid[v1alpha5.ProvisionerKind+"/"+p.Name] = err.Error()
			continue
		}
		ref := ""
		if np.Spec.Template.Spec.NodeClassRef != nil {
			ref = np.Spec.Template.Spec.NodeClassRef.Name
		}
		if poolReady(p.Name, ref, nc) {
			objs.Provisioners = append(objs.Provisioners, p)
		}
	}
	snap, err := state.Build(*objs, state.WithInstanceTypes(a.instanceTypesFunc(ctx)))
	if err != nil {
		return nil, fmt.Errorf("building the cluster snapshot: %w", err)
	}
	v.snap = snap
	return v, nil
}

// classReady asks the cloud whether class can launch nodes: nil, or why
// not.
func (a *Agent) classReady(ctx context.Context, class *v1.NodeClass) error {
	if r, ok := a.cloud.(interface{ Ready(*v1.NodeClass) error }); ok {
		return r.Ready(class)
	}
	_, err := a.cloud.InstanceTypes(ctx, &state.Pool{Name: class.Name, NodeClass: class.Name, Class: class})
	if err != nil && !cloud.IsNodeClassNotReady(err) {
		return fmt.Errorf("listing its instance types: %w", err)
	}
	return err
}

// instanceTypesFunc returns the Build hook that asks the cloud for a pool's
// instance types (once per node class per snapshot) and sizes them by the
// pool's kubelet settings.
func (a *Agent) instanceTypesFunc(ctx context.Context) state.InstanceTypesFunc {
	var mu sync.Mutex
	byClass := map[string][]*catalog.InstanceType{}
	return func(pool *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error) {
		if class == nil {
			return nil, fmt.Errorf("NodeClass not found")
		}
		mu.Lock()
		types, ok := byClass[class.Name]
		mu.Unlock()
		if !ok {
			var err error
			types, err = a.cloud.InstanceTypes(ctx, &state.Pool{Name: pool.Name, NodeClass: class.Name, Class: class})
			if err != nil {
				return nil, err
			}
			mu.Lock()
			byClass[class.Name] = types
			mu.Unlock()
		}
		return sizeForKubelet(types, pool, class)
	}
}

// notReadySummary lists the pools left out of a view, for events.
func (v *clusterView) notReadySummary() string {
	if len(v.notReady) == 0 {
		return ""
	}
	parts := make([]string, 0, len(v.notReady))
	for _, name := range sortedKeys(v.notReady) {
		parts = append(parts, fmt.Sprintf("pool %q is waiting: %s", name, v.notReady[name]))
	}
	return strings.Join(parts, "; ")
}
