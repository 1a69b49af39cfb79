// Package kwok is the cloud provider of local clusters and end-to-end tests:
// an "instance" is a Node object annotated for KWOK, which then keeps the node
// Ready and runs its pods as a kubelet would. Instance types, prices and
// allocatable come from the embedded EC2 catalog for a configurable region
// and zones, so what the agent launches here is what it would launch on AWS.
//
// The Node is named after its NodeClaim and carries provider ID
// kwok://<claim>, so Create is idempotent per claim: a second Create finds
// the Node the first one made.
package kwok

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

const (
	// ProviderIDPrefix starts the provider ID of every KWOK node Tenon makes.
	ProviderIDPrefix = "kwok://"
	// AnnotationKWOKNode is the annotation KWOK selects the nodes it manages
	// by (hack/controlplane starts KWOK with this selector, value "fake").
	AnnotationKWOKNode = "kwok.x-k8s.io/node"
	// AnnotationCluster names the cluster (--cluster-name) whose agent made
	// the node, so List returns only this cluster's instances.
	AnnotationCluster = v1.TagCluster
	// ImageID is the image every KWOK node reports.
	ImageID = "kwok"
)

// Options configure the provider.
type Options struct {
	// ClusterName is recorded on every node (required).
	ClusterName string
	// Region and Zones select the catalog's offerings (defaults: us-east-1
	// and its a, b and c zones).
	Region string
	Zones  []string
	// LaunchDelay is how long Create waits before making the Node,
	// simulating the time an instance takes to boot.
	LaunchDelay time.Duration
	// Logger receives the provider's logs (the agent passes its own, so
	// they follow --log-format and --log-level); the zero Logger discards
	// them.
	Logger logr.Logger
}

// Provider makes KWOK nodes through a Kubernetes client.
type Provider struct {
	client client.Client
	opts   Options
	types  []*catalog.InstanceType
}

var _ cloud.CloudProvider = (*Provider)(nil)

// New returns a provider writing Nodes through c.
func New(c client.Client, opts Options) (*Provider, error) {
	if opts.ClusterName == "" {
		return nil, errors.New("kwok cloud provider: the cluster name is empty; set --cluster-name")
	}
	catOpts := []catalog.Option{}
	if opts.Region != "" {
		catOpts = append(catOpts, catalog.WithRegion(opts.Region))
	}
	if len(opts.Zones) > 0 {
		catOpts = append(catOpts, catalog.WithZones(opts.Zones...))
	}
	cat, err := catalog.New(catOpts...)
	if err != nil {
		return nil, fmt.Errorf("kwok cloud provider: %w", err)
	}
	opts.Region = cat.Region()
	opts.Zones = cat.Zones()
	opts.Logger = opts.Logger.WithValues("cloud", "kwok", "cluster", opts.ClusterName)
	p := &Provider{client: c, opts: opts}
	for _, it := range cat.InstanceTypes() {
		if len(it.Offerings) > 0 {
			p.types = append(p.types, it)
		}
	}
	return p, nil
}

// Name returns "kwok".
func (p *Provider) Name() string { return "kwok" }

// Region returns the region the provider's offerings are in.
func (p *Provider) Region() string { return p.opts.Region }

// Zones returns the zones the provider's offerings are in.
func (p *Provider) Zones() []string { return slices.Clone(p.opts.Zones) }

// Create makes the Node for claim, or returns the one it made before.
func (p *Provider) Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error) {
	if existing, err := p.Get(ctx, ProviderIDPrefix+claim.Name); err == nil {
		return mergeStatus(claim, existing), nil
	} else if !cloud.IsNotFound(err) {
		return nil, fmt.Errorf("creating kwok node %s: %w", claim.Name, err)
	}
	candidates, err := cloud.Candidates(claim, p.types, nil)
	if err != nil {
		return nil, err
	}
	if len(candidates) == 0 {
		return nil, &cloud.InsufficientCapacityError{Claim: claim.Name}
	}
	c := candidates[0]
	if p.opts.LaunchDelay > 0 {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("creating kwok node %s: %w", claim.Name, ctx.Err())
		case <-time.After(p.opts.LaunchDelay):
		}
	}
	node := p.node(claim, c)
	if err := p.client.Create(ctx, node); err != nil {
		if apierrors.IsAlreadyExists(err) {
			existing, getErr := p.Get(ctx, ProviderIDPrefix+claim.Name)
			if getErr != nil {
				return nil, fmt.Errorf("creating kwok node %s: a node of that name exists but is not ours: %w", claim.Name, getErr)
			}
			return mergeStatus(claim, existing), nil
		}
		return nil, fmt.Errorf("creating kwok node %s: %w", claim.Name, err)
	}
	p.opts.Logger.V(1).Info("created kwok node", "node", node.Name, "instanceType", c.InstanceType, "zone", c.Zone, "capacityType", c.CapacityType)
	return cloud.Launched(claim, c, node.Spec.ProviderID, ImageID), nil
}

// mergeStatus returns claim with the status of the instance found.
func mergeStatus(claim, found *v1.NodeClaim) *v1.NodeClaim {
	out := claim.DeepCopy()
	out.Status.ProviderID = found.Status.ProviderID
	out.Status.ImageID = found.Status.ImageID
	out.Status.InstanceType = found.Status.InstanceType
	out.Status.Zone = found.Status.Zone
	out.Status.CapacityType = found.Status.CapacityType
	out.Status.Capacity = found.Status.Capacity.DeepCopy()
	out.Status.Allocatable = found.Status.Allocatable.DeepCopy()
	return out
}

// node builds the Node for claim launched as candidate c: the type's
// capacity and allocatable, every well-known label and its Karpenter alias
// (scheduling.KarpenterAliases), the claim's labels and
// single-valued requirements, its taints and startup taints.
func (p *Provider) node(claim *v1.NodeClaim, c cloud.Candidate) *corev1.Node {
	labels := c.Type.Requirements.Labels()
	maps.Copy(labels, claim.NodeLabels())
	maps.Copy(labels, map[string]string{
		scheduling.LabelInstanceType:   c.InstanceType,
		scheduling.LabelTopologyZone:   c.Zone,
		scheduling.LabelTopologyRegion: p.opts.Region,
		scheduling.LabelCapacityType:   c.CapacityType,
		scheduling.LabelHostname:       claim.Name,
	})
	if _, ok := labels[scheduling.LabelOS]; !ok {
		labels[scheduling.LabelOS] = "linux"
	}
	if _, ok := labels[scheduling.LabelArch]; !ok {
		labels[scheduling.LabelArch] = "amd64"
	}
	// Karpenter's spellings, as the agent adds them on AWS at registration.
	maps.Copy(labels, scheduling.KarpenterAliases(labels))
	var taints []corev1.Taint
	for _, t := range claim.Spec.Taints {
		taints = append(taints, t.ToCore())
	}
	for _, t := range claim.Spec.StartupTaints {
		taints = append(taints, t.ToCore())
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   claim.Name,
			Labels: labels,
			Annotations: map[string]string{
				AnnotationKWOKNode: "fake",
				AnnotationCluster:  p.opts.ClusterName,
			},
		},
		Spec: corev1.NodeSpec{ProviderID: ProviderIDPrefix + claim.Name, Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    c.Type.Capacity.DeepCopy(),
			Allocatable: c.Type.Allocatable.DeepCopy(),
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:    labels[scheduling.LabelArch],
				OperatingSystem: labels[scheduling.LabelOS],
			},
		},
	}
}

// Delete deletes the node behind claim.
func (p *Provider) Delete(ctx context.Context, claim *v1.NodeClaim) error {
	pid := claim.Status.ProviderID
	if pid == "" {
		// Not recorded yet (the claim was deleted while it launched): the node is named after
		// the claim, as Create names it.
		pid = ProviderIDPrefix + claim.Name
	}
	name, ok := nodeName(pid)
	if !ok {
		return &cloud.NotFoundError{ProviderID: pid}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := p.client.Delete(ctx, node); err != nil {
		if apierrors.IsNotFound(err) {
			return &cloud.NotFoundError{ProviderID: pid, Err: err}
		}
		return fmt.Errorf("deleting kwok node %s: %w", name, err)
	}
	p.opts.Logger.V(1).Info("deleted kwok node", "node", name)
	return nil
}

// Get returns the node providerID names as a claim.
func (p *Provider) Get(ctx context.Context, providerID string) (*v1.NodeClaim, error) {
	name, ok := nodeName(providerID)
	if !ok {
		return nil, &cloud.NotFoundError{ProviderID: providerID}
	}
	node := &corev1.Node{}
	if err := p.client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &cloud.NotFoundError{ProviderID: providerID, Err: err}
		}
		return nil, fmt.Errorf("getting kwok node %s: %w", name, err)
	}
	if !p.ours(node) || node.Spec.ProviderID != providerID {
		return nil, &cloud.NotFoundError{ProviderID: providerID, Err: fmt.Errorf("node %s was not made by this cluster's kwok provider", name)}
	}
	return p.claimOf(node), nil
}

// List returns every node this cluster's provider made.
func (p *Provider) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	var nodes corev1.NodeList
	if err := p.client.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("listing kwok nodes: %w", err)
	}
	var out []*v1.NodeClaim
	for i := range nodes.Items {
		if n := &nodes.Items[i]; p.ours(n) {
			out = append(out, p.claimOf(n))
		}
	}
	slices.SortFunc(out, func(a, b *v1.NodeClaim) int { return strings.Compare(a.Status.ProviderID, b.Status.ProviderID) })
	return out, nil
}

// InstanceTypes returns the catalog's types offered in the provider's
// zones. A NodeClass with an aws block cannot launch here.
func (p *Provider) InstanceTypes(_ context.Context, pool *state.Pool) ([]*catalog.InstanceType, error) {
	if err := p.Ready(poolClass(pool)); err != nil {
		return nil, err
	}
	return slices.Clone(p.types), nil
}

// Ready reports whether nodes can be launched with class: nil for a kwok
// class, a *cloud.NodeClassNotReadyError saying why otherwise.
func (p *Provider) Ready(class *v1.NodeClass) error {
	switch {
	case class == nil:
		return &cloud.NodeClassNotReadyError{NodeClass: "", Reason: "the pool names no NodeClass"}
	case class.Spec.KWOK == nil:
		return &cloud.NodeClassNotReadyError{NodeClass: class.Name, Reason: "the agent runs with --cloud kwok and launches only NodeClasses with a kwok block; give the class kwok: {} or run the agent with the class's cloud"}
	}
	return nil
}

func poolClass(pool *state.Pool) *v1.NodeClass {
	if pool == nil {
		return nil
	}
	return pool.Class
}

// IsDrifted reports no drift: a KWOK node never drifts from its class, which has no
// settings.
func (p *Provider) IsDrifted(context.Context, *v1.NodeClaim) (cloud.DriftReason, error) {
	return "", nil
}

// ours reports whether node is a KWOK node this cluster's provider made.
func (p *Provider) ours(node *corev1.Node) bool {
	return strings.HasPrefix(node.Spec.ProviderID, ProviderIDPrefix) &&
		node.Annotations[AnnotationCluster] == p.opts.ClusterName &&
		node.Annotations[AnnotationKWOKNode] != ""
}

// claimOf describes node as an instance.
func (p *Provider) claimOf(node *corev1.Node) *v1.NodeClaim {
	c := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Labels: maps.Clone(node.Labels), CreationTimestamp: node.CreationTimestamp},
		Status: v1.NodeClaimStatus{
			NodeName:     node.Name,
			ProviderID:   node.Spec.ProviderID,
			ImageID:      ImageID,
			InstanceType: node.Labels[scheduling.LabelInstanceType],
			Zone:         node.Labels[scheduling.LabelTopologyZone],
			CapacityType: node.Labels[scheduling.LabelCapacityType],
			Capacity:     node.Status.Capacity.DeepCopy(),
			Allocatable:  node.Status.Allocatable.DeepCopy(),
		},
	}
	if node.DeletionTimestamp != nil {
		c.DeletionTimestamp = node.DeletionTimestamp.DeepCopy()
	}
	return c
}

// nodeName returns the node name of a kwok provider ID.
func nodeName(providerID string) (string, bool) {
	name, ok := strings.CutPrefix(providerID, ProviderIDPrefix)
	return name, ok && name != ""
}

// RepairPolicies are AWS's (state.AWSRepairPolicies): the kwok cloud
// simulates EC2 instance types, and a test can set the EKS node monitoring
// agent's conditions on its nodes as on real ones.
func (p *Provider) RepairPolicies() []state.RepairPolicy { return state.AWSRepairPolicies() }
