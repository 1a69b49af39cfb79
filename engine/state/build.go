package state

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
)

// Objects are the Kubernetes and tenon.dev objects a Snapshot is built from,
// as the agent's informers, a scenario file or a Terraform plan hold them.
// Build does not change them.
type Objects struct {
	Pods         []*corev1.Pod
	Nodes        []*corev1.Node
	DaemonSets   []*appsv1.DaemonSet
	PDBs         []*policyv1.PodDisruptionBudget
	NodePools    []*v1.NodePool
	NodeClasses  []*v1.NodeClass
	NodeClaims   []*v1.NodeClaim
	Provisioners []*v1alpha5.Provisioner
	// NodeOverlays adjust the pools' instance types (overlay.go).
	NodeOverlays []*v1.NodeOverlay
}

// InstanceTypesFunc returns the instance types the cloud offers for a pool's
// node class (nil when the pool names a class that does not exist), not yet
// filtered by the pool's requirements. The simulator passes the embedded
// catalog's types; the agent its cloud provider's.
type InstanceTypesFunc func(pool *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error)

// Option configures Build.
type Option func(*buildOptions)

type buildOptions struct {
	instanceTypes InstanceTypesFunc
}

// WithInstanceTypes sets where pools get their instance types. Without it
// pools have none, and nodes and claims get no price or allocatable from the
// catalog.
func WithInstanceTypes(fn InstanceTypesFunc) Option {
	return func(o *buildOptions) { o.instanceTypes = fn }
}

// Build converts objects into a Snapshot: the one converter the agent, the
// simulator and the provider share. Each tenon.dev object is validated with
// its API's Validate; the error lists every invalid object (as ObjectErrors
// joined), naming the object and the field. Build is deterministic: the
// Snapshot does not depend on the order of objs' slices.
func Build(objs Objects, opts ...Option) (*Snapshot, error) {
	var o buildOptions
	for _, opt := range opts {
		opt(&o)
	}
	b := builder{opts: o}
	pools, err := b.pools(objs)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Pools: pools}
	if snap.Overlays, err = applyOverlays(objs.NodeOverlays, pools); err != nil {
		return nil, err
	}
	types := instanceTypeIndex(pools)
	if snap.Nodes, err = nodes(objs.Nodes, objs.NodeClaims, types); err != nil {
		return nil, err
	}
	overlayNodes(snap.Nodes, pools, objs.NodeClaims)
	if snap.Pods, err = pods(objs.Pods); err != nil {
		return nil, err
	}
	if snap.DaemonSets, err = daemonSets(objs.DaemonSets); err != nil {
		return nil, err
	}
	if snap.PDBs, err = pdbs(objs.PDBs); err != nil {
		return nil, err
	}
	return snap, nil
}

// builder carries Build's options through the conversion.
type builder struct {
	opts buildOptions
}

// ObjectError is a problem with one input object, at one field.
type ObjectError struct {
	// Kind, Namespace and Name identify the object.
	Kind      string
	Namespace string
	Name      string
	// Field is the path of the offending field, e.g.
	// spec.template.spec.requirements[0].operator; "" for the whole object.
	Field string
	// Detail says what is wrong and, where it can, what to do.
	Detail string
}

// Error returns e.g. `NodePool default: spec.weight: Invalid value: 0: weight must be between 1 and 100`.
func (e *ObjectError) Error() string {
	var sb strings.Builder
	sb.WriteString(e.Object())
	sb.WriteString(": ")
	if e.Field != "" {
		sb.WriteString(e.Field)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Detail)
	return sb.String()
}

// Object returns "Kind namespace/name", or "Kind name" for cluster-scoped
// objects.
func (e *ObjectError) Object() string {
	if e.Namespace == "" {
		return e.Kind + " " + e.Name
	}
	return e.Kind + " " + e.Namespace + "/" + e.Name
}

// objectErrors turns a field.ErrorList-like list into joined ObjectErrors,
// or nil when there are none.
func joinObjectErrors(errs []*ObjectError) error {
	if len(errs) == 0 {
		return nil
	}
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

// byKey sorts pointers by a string key, for deterministic output whatever
// the input order.
func byKey[T any](items []T, key func(T) string) {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// errorf builds an ObjectError for a whole object or a field.
func objectErrorf(kind, namespace, name, path, format string, args ...any) *ObjectError {
	return &ObjectError{Kind: kind, Namespace: namespace, Name: name, Field: path, Detail: fmt.Sprintf(format, args...)}
}
