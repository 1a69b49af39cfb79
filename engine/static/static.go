package static

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// MaxOptions caps the offerings a static claim lists (cheapest first) for
// the launch to fall back through on insufficient capacity.
const MaxOptions = 60

// Status is one static pool's size against its replicas.
type Status struct {
	Pool     string
	Replicas int64
	// Nodes counts the pool's nodes not being deleted, in-flight claims
	// included.
	Nodes int
	// Launch is how many nodes the pool is short and may launch now;
	// Surplus how many it has above its replicas.
	Launch, Surplus int
	// Blocked says why the pool launches fewer than it is short (its
	// limits.nodes, no offering), "" otherwise.
	Blocked string
}

// Count returns how many of pool's nodes count toward its replicas: those
// of the pool not being deleted, in-flight claims included.
func Count(snap *state.Snapshot, pool string) int {
	n := 0
	for _, node := range snap.Nodes {
		if node.Pool == pool && !node.MarkedForDeletion {
			n++
		}
	}
	return n
}

// Plan returns the claims that bring every static pool of snap up to its
// replicas, and each static pool's status, in pool order. Claim names are
// "<pool>-<n>", n the lowest numbers no node of snap has.
func Plan(snap *state.Snapshot) ([]*packing.Claim, []Status) {
	var claims []*packing.Claim
	var out []Status
	taken := map[string]bool{}
	for _, n := range snap.Nodes {
		taken[n.Name] = true
	}
	for _, pool := range snap.Pools {
		if !pool.Static() {
			continue
		}
		st := status(snap, pool)
		zones := zoneCounts(snap, pool.Name)
		launched := 0
		for range st.Launch {
			name := freeName(pool.Name, taken)
			cl, err := NewClaim(pool, name, zones)
			if err != nil {
				st.Blocked = err.Error()
				break
			}
			taken[name] = true
			zones[cl.Chosen().Zone]++
			claims = append(claims, cl)
			launched++
		}
		st.Launch = launched
		out = append(out, st)
	}
	return claims, out
}

// status measures pool against its replicas and limits.nodes.
func status(snap *state.Snapshot, pool *state.Pool) Status {
	st := Status{Pool: pool.Name, Replicas: *pool.Replicas, Nodes: Count(snap, pool.Name)}
	want := int(*pool.Replicas) - st.Nodes
	if want < 0 {
		st.Surplus = -want
		return st
	}
	st.Launch = want
	if limit, ok := pool.Limits[state.ResourceNodes]; ok {
		// Nodes being deleted still count toward the limit until gone.
		all := 0
		for _, n := range snap.Nodes {
			if n.Pool == pool.Name {
				all++
			}
		}
		room := max(int(min(limit.Value(), math.MaxInt32))-all, 0)
		if room < want {
			st.Launch = room
			st.Blocked = fmt.Sprintf("limits.nodes %s reached (%d nodes, %d being deleted)", limit.String(), all, all-st.Nodes)
		}
	}
	return st
}

// NewClaim returns a claim named name for one node of static pool: every
// offering the pool may buy, cheapest first, ties broken toward the zone
// with the fewest nodes by zones, then by type name and zone. It fails when
// the pool allows no offering.
func NewClaim(pool *state.Pool, name string, zones map[string]int) (*packing.Claim, error) {
	opts := offerings(pool)
	if len(opts) == 0 {
		return nil, fmt.Errorf("nodepool %q allows no instance type with a price in the zones and capacity types its requirements allow", pool.Name)
	}
	slices.SortFunc(opts, func(a, b option) int {
		return cmp.Or(cmp.Compare(a.o.PricePerHour, b.o.PricePerHour), cmp.Compare(zones[a.o.Zone], zones[b.o.Zone]),
			strings.Compare(a.it.Name, b.it.Name), strings.Compare(a.o.Zone, b.o.Zone), strings.Compare(a.o.CapacityType, b.o.CapacityType))
	})
	if len(opts) > MaxOptions {
		opts = opts[:MaxOptions]
	}
	cl := &packing.Claim{Name: name, Pool: pool.Name, Requirements: pool.Requirements.Clone(), Requests: corev1.ResourceList{}, Pods: []string{}}
	for _, o := range opts {
		cl.Options = append(cl.Options, packing.InstanceOption{
			InstanceType: o.it.Name, Zone: o.o.Zone, CapacityType: o.o.CapacityType, PricePerHour: o.o.PricePerHour,
		})
	}
	first := opts[0]
	cl.Labels = pool.ClaimLabels(first.it, first.o.Zone, first.o.CapacityType, name, cl.Requirements)
	return cl, nil
}

type option struct {
	it *catalog.InstanceType
	o  catalog.Offering
}

// offerings lists what pool may buy: the offerings of its launchable types
// its requirements allow, exotic types only when the pool names them or no
// ordinary type is left (as packing decides).
func offerings(pool *state.Pool) []option {
	filter := pool.Offerings()
	var ordinary, exotic []option
	for _, it := range pool.InstanceTypes {
		if !pool.Launchable(it) {
			continue
		}
		isExotic := it.Exotic() != "" && !it.NamesExotic(pool.Requirements)
		for _, o := range it.Offerings {
			if !filter.Allows(o) {
				continue
			}
			if isExotic {
				exotic = append(exotic, option{it, o})
			} else {
				ordinary = append(ordinary, option{it, o})
			}
		}
	}
	if len(ordinary) > 0 {
		return ordinary
	}
	return exotic
}

// zoneCounts counts pool's nodes per zone, those being deleted aside.
func zoneCounts(snap *state.Snapshot, pool string) map[string]int {
	out := map[string]int{}
	for _, n := range snap.Nodes {
		if n.Pool == pool && !n.MarkedForDeletion {
			out[n.Zone]++
		}
	}
	return out
}

// freeName returns "<pool>-<n>" for the lowest n not in taken.
func freeName(pool string, taken map[string]bool) string {
	for i := 1; ; i++ {
		if name := pool + "-" + strconv.Itoa(i); !taken[name] {
			return name
		}
	}
}
