package packing

import (
	"fmt"
	"math/bits"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// maxDims is how many distinct resources one Solve can track: cpu, memory,
// pods, ephemeral-storage and up to four extended resources.
const maxDims = 8

// The fixed dimensions of a vec.
const (
	dimCPU = iota
	dimMemory
	dimPods
	dimEphemeral
	baseDims
)

// vec is a resource amount: cpu in millicores, the rest in their base unit.
type vec [maxDims]int64

func (a vec) add(b vec) vec {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

func (a vec) sub(b vec) vec {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

func (a vec) scale(n int64) vec {
	for i := range a {
		a[i] *= n
	}
	return a
}

// subTimes takes k copies of b from a in place (a.sub(b.scale(k))
// without the copies).
func (a *vec) subTimes(b *vec, k int64) {
	for i := range a {
		a[i] -= b[i] * k
	}
}

// addTimes adds k copies of b to a in place.
func (a *vec) addTimes(b *vec, k int64) {
	for i := range a {
		a[i] += b[i] * k
	}
}

// fits reports whether a fits within room in every dimension.
func (a vec) fits(room vec) bool {
	for i := range a {
		if a[i] > room[i] {
			return false
		}
	}
	return true
}

// times returns how many copies of a fit within room, capped at limit: 0
// when limit is not positive or some room is negative, else the least of
// limit and room/a over the resources a requests. Most calls ask for a few
// pods that all fit, so each resource is checked with an (overflow-safe)
// multiplication by the count so far and divided only where that many do
// not fit. It takes pointers: vecs are copied on the stack otherwise.
func (a *vec) times(room *vec, limit int64) int64 {
	if limit <= 0 {
		return 0
	}
	n := limit
	for i := range a {
		r := room[i]
		if r < 0 {
			return 0
		}
		if a[i] <= 0 {
			continue
		}
		if hi, lo := bits.Mul64(uint64(a[i]), uint64(n)); hi == 0 && lo <= uint64(r) {
			continue
		}
		if n = r / a[i]; n == 0 {
			return 0
		}
	}
	return n
}

// dims interns resource names into vec indices.
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
// order, and fails beyond maxDims.
func (d *dims) intern(list corev1.ResourceList) error {
	var fresh []corev1.ResourceName
	for name := range list {
		if _, ok := d.index[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	slices.Sort(fresh)
	for _, name := range fresh {
		if len(d.names) == maxDims {
			return fmt.Errorf("resource %s: more than %d distinct resources requested (%v)", name, maxDims, d.names)
		}
		d.index[name] = len(d.names)
		d.names = append(d.names, name)
	}
	return nil
}

// vec converts list, ignoring names not interned. It looks each interned
// name up rather than ranging over list: starting a map iteration costs
// more than the few lookups.
func (d *dims) vec(list corev1.ResourceList) vec {
	var v vec
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

// podVec is a pod's requests plus its pod slot.
func (d *dims) podVec(list corev1.ResourceList) vec {
	v := d.vec(list)
	v[dimPods] = 1
	return v
}

func amount(i int, q resource.Quantity) int64 {
	if i == dimCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// list converts v back to a ResourceList with the non-zero amounts.
func (d *dims) list(v vec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, name := range d.names {
		if v[i] == 0 {
			continue
		}
		switch i {
		case dimCPU:
			out[name] = *resource.NewMilliQuantity(v[i], resource.DecimalSI)
		case dimMemory, dimEphemeral:
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
	case dimCPU:
		return resource.NewMilliQuantity(n, resource.DecimalSI).String()
	case dimMemory, dimEphemeral:
		return resource.NewQuantity(n, resource.BinarySI).String()
	default:
		return fmt.Sprint(n)
	}
}
