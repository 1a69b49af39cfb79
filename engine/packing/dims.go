package packing

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// dims interns resource names into resources.Vector indices: cpu,
// memory, pods and ephemeral-storage at their fixed indices, extended
// resources after them in an order that depends only on the batch.
type dims struct {
	names []corev1.ResourceName
	index map[corev1.ResourceName]int
}

func newDims() *dims {
	d := &dims{index: map[corev1.ResourceName]int{}}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
		d.index[name] = len(d.names)
		d.names = append(d.names, name)
	}
	return d
}

// intern adds the names of list, sorted so indices do not depend on map
// order, and fails beyond resources.MaxDims.
func (d *dims) intern(list corev1.ResourceList) error {
	var fresh []corev1.ResourceName
	for name := range list {
		if _, ok := d.index[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	slices.Sort(fresh)
	for _, name := range fresh {
		if len(d.names) == resources.MaxDims {
			return fmt.Errorf("resource %s: more than %d distinct resources requested (%v)", name, resources.MaxDims, d.names)
		}
		d.index[name] = len(d.names)
		d.names = append(d.names, name)
	}
	return nil
}

// vector converts list, ignoring names not interned. It looks each interned
// name up rather than ranging over list: starting a map iteration costs
// more than the few lookups.
func (d *dims) vector(list corev1.ResourceList) resources.Vector {
	var v resources.Vector
	if len(list) == 0 {
		return v
	}
	for i, name := range d.names {
		if q, ok := list[name]; ok {
			v[i] = amount(i, q)
		}
	}
	return v
}

// nodeCapacity is what a node of this capacity counts toward its pool's
// limits: the capacity, and one node when a limit counts nodes.
func (d *dims) nodeCapacity(list corev1.ResourceList) resources.Vector {
	v := d.vector(list)
	if i, ok := d.index[state.ResourceNodes]; ok {
		v[i] = 1
	}
	return v
}

// podVector is a pod's requests plus its pod slot.
func (d *dims) podVector(list corev1.ResourceList) resources.Vector {
	v := d.vector(list)
	v[resources.Pods] = 1
	return v
}

func amount(i int, q resource.Quantity) int64 {
	if i == resources.CPU {
		return q.MilliValue()
	}
	return q.Value()
}

// list converts v back to a ResourceList with the non-zero amounts.
func (d *dims) list(v resources.Vector) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, name := range d.names {
		if v[i] == 0 {
			continue
		}
		switch i {
		case resources.CPU:
			out[name] = *resource.NewMilliQuantity(v[i], resource.DecimalSI)
		case resources.Memory, resources.EphemeralStorage:
			out[name] = *resource.NewQuantity(v[i], resource.BinarySI)
		default:
			out[name] = *resource.NewQuantity(v[i], resource.DecimalSI)
		}
	}
	return out
}

// format prints v in the units people read (cpu cores, GiB).
func (d *dims) format(i int, n int64) string {
	switch i {
	case resources.CPU:
		return resource.NewMilliQuantity(n, resource.DecimalSI).String()
	case resources.Memory, resources.EphemeralStorage:
		return resource.NewQuantity(n, resource.BinarySI).String()
	default:
		return fmt.Sprint(n)
	}
}
