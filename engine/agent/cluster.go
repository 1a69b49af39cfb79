package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
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
	// anticipated holds the keys of the pods the snapshot plans for that
	// are not unschedulable (yet): pods controllers have still to create,
	// and pods kube-scheduler has not tried. Only the provisioner's views
	// have them (anticipatingView).
	anticipated map[string]bool
	// toCome holds the keys of the anticipated pods controllers have still
	// to create (the others exist: kube-scheduler has not tried them yet).
	toCome map[string]bool
}

// viewBuilder reads the informer cache into clusterViews; every
// controller that decides with the engines shares one. `tenon simulate
// --kubeconfig` and `tenon explain` use it too (ReadCluster), reading the
// API server directly with the embedded catalog as their typeSource.
type viewBuilder struct {
	client client.Reader
	cloud  typeSource
}

// anyNodePool reports whether a NodePool in the cache satisfies match: the
// loops that serve a few pools alone (buffers, static pools) ask it before
// they build a whole view, which copies every pod of the cluster (live, at
// 500 pods, the two loops spent a fifth of the agent's CPU building views
// for pools that were not there).
func (b *viewBuilder) anyNodePool(ctx context.Context, match func(*v1.NodePool) bool) (bool, error) {
	var pools v1.NodePoolList
	if err := b.client.List(ctx, &pools); err != nil {
		return false, fmt.Errorf("listing nodepools: %w", err)
	}
	for i := range pools.Items {
		if match(&pools.Items[i]) {
			return true, nil
		}
	}
	return false, nil
}

// typeSource is what a view needs of the cloud: the instance types a
// pool's NodeClass may launch (a *cloud.NodeClassNotReadyError when it
// cannot), and optionally Ready(class) to ask that alone.
type typeSource interface {
	InstanceTypes(ctx context.Context, pool *state.Pool) ([]*catalog.InstanceType, error)
}

// cacheLists are the lists one view reads from the cache.
type cacheLists struct {
	pods         corev1.PodList
	nodes        corev1.NodeList
	daemonSets   appsv1.DaemonSetList
	pdbs         policyv1.PodDisruptionBudgetList
	nodePools    v1.NodePoolList
	nodeClasses  v1.NodeClassList
	nodeClaims   v1.NodeClaimList
	provisioners v1alpha5.ProvisionerList
	nodeOverlays v1.NodeOverlayList
}

// view reads the cache and builds a Snapshot. Invalid policy objects and
// pools whose NodeClass is not ready are left out (and reported in the
// view) so that one bad object never stops the others.
func (b *viewBuilder) view(ctx context.Context) (*clusterView, error) {
	return b.build(ctx, nil)
}

// anticipatingView is view with the pods controllers have still to create
// and those kube-scheduler has not tried yet (anticipatePods), at most
// limit of the first: what the provisioner sizes a batch's claims for.
func (b *viewBuilder) anticipatingView(ctx context.Context, now time.Time, limit int) (*clusterView, error) {
	return b.build(ctx, func(v *clusterView, l *cacheLists) error {
		pods, err := anticipatePods(ctx, b.client, l.pods.Items, now, limit)
		if err != nil {
			return err
		}
		for _, p := range pods {
			v.objects.Pods = append(v.objects.Pods, p)
			v.anticipated[p.Namespace+"/"+p.Name] = true
			if p.ResourceVersion == "" { // made from a template: no such pod yet
				v.toCome[p.Namespace+"/"+p.Name] = true
			}
		}
		return nil
	})
}

// build reads the cache into a view; extra, when set, adds to the
// workload before the snapshot is built.
func (b *viewBuilder) build(ctx context.Context, extra func(*clusterView, *cacheLists) error) (*clusterView, error) {
	l, err := b.list(ctx)
	if err != nil {
		return nil, err
	}
	v := &clusterView{invalid: map[string]string{}, notReady: map[string]string{}, classReady: map[string]error{}, claims: map[string]*v1.NodeClaim{},
		pending: map[string]bool{}, anticipated: map[string]bool{}, toCome: map[string]bool{}}
	v.addWorkload(l)
	if extra != nil {
		if err := extra(v, l); err != nil {
			return nil, err
		}
	}
	classes := b.admitClasses(ctx, v, l.nodeClasses.Items)
	v.admitClaims(l.nodeClaims.Items)
	b.admitNodePools(ctx, v, classes, l.nodePools.Items)
	b.admitProvisioners(ctx, v, classes, l.provisioners.Items)
	v.admitOverlays(l.nodeOverlays.Items)
	snap, err := state.Build(v.objects, state.WithInstanceTypes(b.instanceTypesFunc(ctx)))
	if err != nil {
		return nil, fmt.Errorf("building the cluster snapshot: %w", err)
	}
	if rp, ok := b.cloud.(repairPolicySource); ok {
		snap.RepairPolicies = rp.RepairPolicies()
	}
	v.snap = snap
	return v, nil
}

// repairPolicySource is the cloud's list of unhealthy node conditions
// (cloud.CloudProvider.RepairPolicies); a view from a source without one
// repairs on Ready alone (state.ReadyRepairPolicies).
type repairPolicySource interface {
	RepairPolicies() []state.RepairPolicy
}

// list reads every list a view needs from the cache.
//
// The pods, nodes, daemonsets and PDBs are the cache's own objects, not
// copies (client.UnsafeDisableDeepCopy; each item is a copy of the cached
// struct, but its maps, slices and pointers are the cache's): the agent
// builds several views a second, and deep-copying every pod for each was
// the largest part of its CPU (17 % of a 500-pod burst's profile). Nothing
// may write to them: state.Build copies what it keeps, and code that
// changes one of these objects (a taint, a toleration) reads its own copy
// with Get or DeepCopy first. TestViewsLeaveTheCacheUnchanged guards it.
// The claims and pools stay copies: admission fills in their fields.
func (b *viewBuilder) list(ctx context.Context) (*cacheLists, error) {
	l := &cacheLists{}
	shared := []client.ObjectList{&l.pods, &l.nodes, &l.daemonSets, &l.pdbs}
	for _, list := range []client.ObjectList{&l.pods, &l.nodes, &l.daemonSets, &l.pdbs, &l.nodePools, &l.nodeClasses, &l.nodeClaims, &l.provisioners, &l.nodeOverlays} {
		var opts []client.ListOption
		if slices.Contains(shared, list) {
			opts = append(opts, client.UnsafeDisableDeepCopy)
		}
		if err := b.client.List(ctx, list, opts...); err != nil {
			if list == &l.nodeOverlays && meta.IsNoMatchError(err) {
				continue // a cluster whose CRDs predate NodeOverlays has none
			}
			return nil, fmt.Errorf("listing %s: %w", listKind(list), err)
		}
	}
	return l, nil
}

// listKind names a list for errors: "*v1.PodList" reads as "pods".
func listKind(list client.ObjectList) string {
	name := fmt.Sprintf("%T", list)
	name = name[strings.LastIndex(name, ".")+1:]
	return strings.ToLower(strings.TrimSuffix(name, "List")) + "s"
}

// addWorkload takes the bound and unschedulable pods, the nodes, the
// daemonsets and the PDBs as they are, and notes the pods not bound yet.
func (v *clusterView) addWorkload(l *cacheLists) {
	objs := &v.objects
	for i := range l.pods.Items {
		p := &l.pods.Items[i]
		if p.Spec.NodeName != "" || isUnschedulable(p) {
			objs.Pods = append(objs.Pods, p)
		}
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodPending {
			v.pending[p.Namespace+"/"+p.Name] = true
		}
	}
	for i := range l.nodes.Items {
		objs.Nodes = append(objs.Nodes, &l.nodes.Items[i])
	}
	for i := range l.daemonSets.Items {
		objs.DaemonSets = append(objs.DaemonSets, &l.daemonSets.Items[i])
	}
	for i := range l.pdbs.Items {
		objs.PDBs = append(objs.PDBs, &l.pdbs.Items[i])
	}
}

// admitClasses takes the valid NodeClasses, records whether each can
// launch, and returns them by name.
func (b *viewBuilder) admitClasses(ctx context.Context, v *clusterView, items []v1.NodeClass) map[string]*v1.NodeClass {
	classes := map[string]*v1.NodeClass{}
	for i := range items {
		nc := &items[i]
		if errs := nc.Validate(); len(errs) > 0 {
			v.invalid[v1.NodeClassKind+"/"+nc.Name] = errs.ToAggregate().Error()
			v.classReady[nc.Name] = fmt.Errorf("invalid: %s", errs.ToAggregate().Error())
			continue
		}
		classes[nc.Name] = nc
		v.classReady[nc.Name] = b.classReady(ctx, nc)
		v.objects.NodeClasses = append(v.objects.NodeClasses, nc)
	}
	return classes
}

// admitClaims records every claim and takes the valid ones.
func (v *clusterView) admitClaims(items []v1.NodeClaim) {
	byName := map[string]*corev1.Node{}
	for _, n := range v.objects.Nodes {
		byName[n.Name] = n
	}
	for i := range items {
		c := &items[i]
		v.claims[c.Name] = c
		// A launch the claim's status does not show yet (the cache lags
		// the cloud call): the node named after the claim is its node.
		if n := byName[c.Name]; n != nil && c.Status.ProviderID == "" && c.Status.NodeName == "" {
			c.Status.ProviderID = n.Spec.ProviderID
		}
		if errs := c.Validate(); len(errs) > 0 {
			v.invalid[v1.NodeClaimKind+"/"+c.Name] = errs.ToAggregate().Error()
			continue
		}
		v.objects.NodeClaims = append(v.objects.NodeClaims, c)
	}
}

// admitNodePools takes the valid NodePools whose NodeClass can launch.
func (b *viewBuilder) admitNodePools(ctx context.Context, v *clusterView, classes map[string]*v1.NodeClass, items []v1.NodePool) {
	for i := range items {
		np := &items[i]
		if why := poolInvalid(np.Validate().ToAggregate(), np.Spec.Limits); why != "" {
			v.invalid[v1.NodePoolKind+"/"+np.Name] = why
			continue
		}
		if b.poolReady(ctx, v, np.Name, classRef(np), classes, nil) {
			v.objects.NodePools = append(v.objects.NodePools, np)
		}
	}
}

// admitProvisioners takes the valid Provisioners whose NodeClass (named,
// or converted from an inline provider) can launch.
func (b *viewBuilder) admitProvisioners(ctx context.Context, v *clusterView, classes map[string]*v1.NodeClass, items []v1alpha5.Provisioner) {
	for i := range items {
		p := &items[i]
		var limits corev1.ResourceList
		if p.Spec.Limits != nil {
			limits = p.Spec.Limits.Resources
		}
		if why := poolInvalid(p.Validate().ToAggregate(), limits); why != "" {
			v.invalid[v1alpha5.ProvisionerKind+"/"+p.Name] = why
			continue
		}
		np, nc, err := v1alpha5.ToNodePool(p)
		if err != nil {
			v.invalid[v1alpha5.ProvisionerKind+"/"+p.Name] = err.Error()
			continue
		}
		if b.poolReady(ctx, v, p.Name, classRef(np), classes, nc) {
			v.objects.Provisioners = append(v.objects.Provisioners, p)
		}
	}
}

// poolInvalid says why a pool is left out (its validation errors, or a
// negative limit), or "".
func poolInvalid(validation error, limits corev1.ResourceList) string {
	if validation != nil {
		return validation.Error()
	}
	if err := negativeLimits(limits); err != nil {
		return err.Error()
	}
	return ""
}

// classRef is the name of the NodeClass a pool's template names, or "".
func classRef(np *v1.NodePool) string {
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
		return ref.Name
	}
	return ""
}

// poolReady reports whether pool name's NodeClass (class, else the one
// className names) can launch, recording why not in the view.
func (b *viewBuilder) poolReady(ctx context.Context, v *clusterView, name, className string, classes map[string]*v1.NodeClass, class *v1.NodeClass) bool {
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
		err = b.classReady(ctx, class)
	}
	if err != nil {
		v.notReady[name] = err.Error()
		return false
	}
	return true
}

// classReady asks the cloud whether class can launch nodes: nil, or why
// not.
func (b *viewBuilder) classReady(ctx context.Context, class *v1.NodeClass) error {
	if r, ok := b.cloud.(interface{ Ready(*v1.NodeClass) error }); ok {
		return r.Ready(class)
	}
	_, err := b.cloud.InstanceTypes(ctx, &state.Pool{Name: class.Name, NodeClass: class.Name, Class: class})
	if err != nil && !cloud.IsNodeClassNotReady(err) {
		return fmt.Errorf("listing its instance types: %w", err)
	}
	return err
}

// instanceTypesFunc returns the Build hook that asks the cloud for a pool's
// instance types (once per node class per snapshot) and sizes them by the
// pool's kubelet settings.
func (b *viewBuilder) instanceTypesFunc(ctx context.Context) state.InstanceTypesFunc {
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
			types, err = b.cloud.InstanceTypes(ctx, &state.Pool{Name: pool.Name, NodeClass: class.Name, Class: class})
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

// claimOfNode returns the claim whose node is name, or nil.
func (v *clusterView) claimOfNode(name string) *v1.NodeClaim {
	for _, c := range v.claims {
		if c.Status.NodeName == name {
			return c
		}
	}
	return nil
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

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
