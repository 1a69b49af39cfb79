package overlay

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Pool is what Apply needs of a node pool: its name, the labels every node of it carries
// (template labels and tenon.dev/nodepool), and the instance types it may launch.
type Pool struct {
	Name   string
	Labels map[string]string
	Types  []*catalog.InstanceType
}

// Outcome says what became of an overlay.
type Outcome string

// Outcomes, the reasons of a NodeOverlay's Ready condition.
const (
	Applied  Outcome = "Applied"
	Conflict Outcome = "Conflict"
	NoMatch  Outcome = "NoMatch"
)

// Status is what became of one overlay.
type Status struct {
	Name    string
	Outcome Outcome
	// Pools counts, per pool name, the instance types the overlay changed.
	Pools map[string]int
	// Message says what the overlay did, or why it did nothing, for its Ready condition.
	Message string
}

// Result is the overlaid instance types of every pool, and what became of every overlay.
type Result struct {
	// Types maps a pool's name to its instance types, in the order given, overlaid ones replaced
	// by copies (types nothing changed are the same pointers).
	Types map[string][]*catalog.InstanceType
	// Statuses are sorted by overlay name.
	Statuses []Status
}

// setter is the overlay that set one value, and its weight.
type setter struct {
	name   string
	weight int32
}

// typeUpdate is what overlays set on one instance type of one pool.
type typeUpdate struct {
	price    map[int]*PriceChange // by offering index
	priceBy  map[int]setter
	capacity corev1.ResourceList
	capBy    map[corev1.ResourceName]setter
}

// match is one instance type of one pool an overlay selects, and the offerings it selects.
type match struct {
	pool      string
	typ       *catalog.InstanceType
	offerings []int
}

// Apply applies overlays to pools. It does not change its arguments.
func Apply(overlays []Overlay, pools []Pool) Result {
	ordered := slices.Clone(overlays)
	sortOverlays(ordered)
	updates := map[string]map[string]*typeUpdate{} // pool -> type -> update
	var statuses []Status
	for _, o := range ordered {
		matches := matchesOf(o, pools)
		st := Status{Name: o.Name, Pools: map[string]int{}}
		if len(matches) == 0 {
			st.Outcome = NoMatch
			st.Message = "selects no instance type of any pool: check its requirements against the pools' instance types and template labels"
			statuses = append(statuses, st)
			continue
		}
		if msg := conflictOf(o, matches, updates); msg != "" {
			st.Outcome, st.Message = Conflict, msg
			statuses = append(statuses, st)
			continue
		}
		shadowed := record(o, matches, updates, st.Pools)
		st.Outcome = Applied
		st.Message = appliedMessage(st.Pools, shadowed)
		statuses = append(statuses, st)
	}
	slices.SortFunc(statuses, func(a, b Status) int { return strings.Compare(a.Name, b.Name) })
	return Result{Types: overlaid(pools, updates), Statuses: statuses}
}

// matchesOf lists the instance types (and their offerings) of every pool o selects. An overlay
// that changes capacity selects a type when it selects any of its offerings.
func matchesOf(o Overlay, pools []Pool) []match {
	var out []match
	for _, p := range pools {
		for _, it := range p.Types {
			labels := typeLabels(p, it)
			var offerings []int
			for i, off := range it.Offerings {
				labels[scheduling.LabelTopologyZone] = off.Zone
				labels[scheduling.LabelCapacityType] = off.CapacityType
				if o.Requirements.SatisfiedBy(labels) {
					offerings = append(offerings, i)
				}
			}
			if len(offerings) > 0 {
				out = append(out, match{pool: p.Name, typ: it, offerings: offerings})
			}
		}
	}
	return out
}

// typeLabels are the labels a node of it launched by p would have, but zone and capacity type,
// which the offering gives.
func typeLabels(p Pool, it *catalog.InstanceType) map[string]string {
	labels := it.Requirements.Labels()
	maps.Copy(labels, p.Labels)
	labels[scheduling.LabelInstanceType] = it.Name
	labels[scheduling.LabelNodePool] = p.Name
	return labels
}

// conflictOf returns why o conflicts with an overlay of its weight applied before it (the same
// price of an offering, or the same resource of a type), or "" when it does not.
func conflictOf(o Overlay, matches []match, updates map[string]map[string]*typeUpdate) string {
	for _, m := range matches {
		u := updates[m.pool][m.typ.Name]
		if u == nil {
			continue
		}
		if o.Price != nil {
			for _, i := range m.offerings {
				if by, ok := u.priceBy[i]; ok && by.weight == o.Weight {
					off := m.typ.Offerings[i]
					return fmt.Sprintf("conflicts with NodeOverlay %s (weight %d): both set the price of %s %s in %s in NodePool %s; "+
						"give one a higher weight or make their requirements disjoint", by.name, o.Weight, m.typ.Name, off.CapacityType, off.Zone, m.pool)
				}
			}
		}
		for _, name := range sortedNames(o.Capacity) {
			if by, ok := u.capBy[name]; ok && by.weight == o.Weight {
				return fmt.Sprintf("conflicts with NodeOverlay %s (weight %d): both set capacity %s of %s in NodePool %s; "+
					"give one a higher weight or make their requirements disjoint", by.name, o.Weight, name, m.typ.Name, m.pool)
			}
		}
	}
	return ""
}

// record stores what o sets where no higher weight set it first, counting per pool the types o
// changed. It returns how many matched types higher weights had already set entirely.
func record(o Overlay, matches []match, updates map[string]map[string]*typeUpdate, pools map[string]int) int {
	shadowed := 0
	for _, m := range matches {
		if updates[m.pool] == nil {
			updates[m.pool] = map[string]*typeUpdate{}
		}
		u := updates[m.pool][m.typ.Name]
		if u == nil {
			u = &typeUpdate{price: map[int]*PriceChange{}, priceBy: map[int]setter{}, capacity: corev1.ResourceList{}, capBy: map[corev1.ResourceName]setter{}}
			updates[m.pool][m.typ.Name] = u
		}
		changed := false
		if o.Price != nil {
			for _, i := range m.offerings {
				if _, ok := u.priceBy[i]; !ok {
					u.price[i], u.priceBy[i], changed = o.Price, setter{o.Name, o.Weight}, true
				}
			}
		}
		for _, name := range sortedNames(o.Capacity) {
			if _, ok := u.capBy[name]; !ok {
				u.capacity[name], u.capBy[name], changed = o.Capacity[name], setter{o.Name, o.Weight}, true
			}
		}
		if changed {
			pools[m.pool]++
		} else {
			shadowed++
		}
	}
	return shadowed
}

func appliedMessage(pools map[string]int, shadowed int) string {
	names := slices.Sorted(maps.Keys(pools))
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d in NodePool %s", pools[n], n))
	}
	msg := "changes no instance type"
	if len(parts) > 0 {
		msg = "changes instance types: " + strings.Join(parts, ", ")
	}
	if shadowed > 0 {
		msg += fmt.Sprintf("; %d more it selects are set by overlays of higher weight", shadowed)
	}
	return msg
}

func sortedNames(list corev1.ResourceList) []corev1.ResourceName {
	return slices.Sorted(maps.Keys(list))
}

// overlaid returns every pool's types with the updates applied to copies.
func overlaid(pools []Pool, updates map[string]map[string]*typeUpdate) map[string][]*catalog.InstanceType {
	out := make(map[string][]*catalog.InstanceType, len(pools))
	for _, p := range pools {
		types := make([]*catalog.InstanceType, len(p.Types))
		for i, it := range p.Types {
			types[i] = it
			if u := updates[p.Name][it.Name]; u != nil && (len(u.price) > 0 || len(u.capacity) > 0) {
				types[i] = applyUpdate(it, u)
			}
		}
		out[p.Name] = types
	}
	return out
}

// applyUpdate returns a copy of it with u's prices and resources. Hugepages added to a type are
// taken from the memory its pods can request, as the kubelet pre-allocates them.
func applyUpdate(it *catalog.InstanceType, u *typeUpdate) *catalog.InstanceType {
	out := *it
	out.Offerings = slices.Clone(it.Offerings)
	for i, change := range u.price {
		out.Offerings[i].PricePerHour = change.Apply(out.Offerings[i].PricePerHour)
	}
	if len(u.capacity) == 0 {
		return &out
	}
	out.Capacity = it.Capacity.DeepCopy()
	out.Allocatable = it.Allocatable.DeepCopy()
	if out.Capacity == nil {
		out.Capacity = corev1.ResourceList{}
	}
	if out.Allocatable == nil {
		out.Allocatable = corev1.ResourceList{}
	}
	for name, q := range u.capacity {
		out.Capacity[name] = q.DeepCopy()
		out.Allocatable[name] = q.DeepCopy()
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			mem := out.Allocatable[corev1.ResourceMemory]
			mem.Sub(q)
			if mem.Sign() < 0 {
				mem.Set(0)
			}
			out.Allocatable[corev1.ResourceMemory] = mem
		}
	}
	return &out
}
