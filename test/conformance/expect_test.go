package conformance_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// expect is what a case asserts about the result. Pods are named by their
// name in namespace default, or as namespace/name.
type expect struct {
	// Placed are pods that must be placed; "*" stands for every pending
	// pod Pending does not list.
	Placed []string `json:"placed,omitempty"`
	// Pending maps the pods that must stay Pending to a text their reason
	// must contain (the rule, or the fix).
	Pending map[string]string `json:"pending,omitempty"`
	// Some counts, among identical pods (kube-scheduler may take any of
	// them), how many are placed and how many stay Pending.
	Some []some `json:"some,omitempty"`
	// Together lists groups of pods that must share one node.
	Together [][]string `json:"together,omitempty"`
	// Apart lists groups of pods that must all be on different nodes.
	Apart [][]string `json:"apart,omitempty"`
	// On maps pods to the existing node (or in-flight claim) they must
	// land on.
	On map[string]string `json:"on,omitempty"`
	// NewNodes is the number of nodes to launch, when it matters.
	NewNodes *int `json:"newNodes,omitempty"`
	// Labels maps pods to labels their node must carry.
	Labels map[string]map[string]string `json:"labels,omitempty"`
	// OneOf maps pods to label keys and the values their node may carry.
	OneOf map[string]map[string][]string `json:"oneOf,omitempty"`
	// Lacks maps pods to label keys their node must not carry.
	Lacks map[string][]string `json:"lacks,omitempty"`
	// Skew lists spreads: per domain of a key, the count of running pods
	// the selector matches (terminating pods left out, as Karpenter's
	// ExpectSkew and kube-scheduler's spread leave them out).
	Skew []skew `json:"skew,omitempty"`
}

// some is a count over the pending pods whose names start with Prefix.
type some struct {
	Prefix  string `json:"prefix"`
	Placed  int    `json:"placed"`
	Pending int    `json:"pending"`
	// Reason is a text every Pending one's reason must contain.
	Reason string `json:"reason,omitempty"`
}

// covers reports whether the count is about the pod key.
func (s some) covers(key string) bool { return strings.HasPrefix(key, podKey(s.Prefix)) }

func (s some) check(o *outcome) []string {
	var placed, pending int
	var out []string
	for _, key := range o.pending {
		if !s.covers(key) {
			continue
		}
		if _, ok := o.nodeOf[key]; ok {
			placed++
			continue
		}
		pending++
		if !strings.Contains(o.reasons[key], s.Reason) || strings.Contains(o.reasons[key], "could not take the pod") {
			out = append(out, fmt.Sprintf("%s: reason %q does not say %q", key, o.reasons[key], s.Reason))
		}
	}
	if placed != s.Placed || pending != s.Pending {
		out = append(out, fmt.Sprintf("pods %s*: %d placed and %d Pending, want %d and %d", s.Prefix, placed, pending, s.Placed, s.Pending))
	}
	return out
}

// skew is Karpenter's ExpectSkew: the counts, in any order, of the pods of
// namespace default that selector matches per value of key over the nodes
// that hold at least one of them.
type skew struct {
	Key      string            `json:"key"`
	Selector map[string]string `json:"selector"`
	// Counts are the expected counts, in any order, when the case knows
	// them; Max bounds every count and MaxSkew the difference between the
	// largest and the smallest, when it does not.
	Counts  []int `json:"counts,omitempty"`
	Max     int   `json:"max,omitempty"`
	MaxSkew int   `json:"maxSkew,omitempty"`
}

// check returns every expectation the outcome misses.
func (e *expect) check(o *outcome) []string {
	var out []string
	out = append(out, e.checkAccounting(o)...)
	out = append(out, e.checkGroups(o)...)
	out = append(out, e.checkLabels(o)...)
	for _, s := range e.Skew {
		out = append(out, s.check(o)...)
	}
	for _, p := range slices.Sorted(maps.Keys(e.On)) {
		if got := o.nodeOf[podKey(p)]; got != e.On[p] {
			out = append(out, fmt.Sprintf("%s: want it on %s, got %s", p, e.On[p], o.describe(podKey(p))))
		}
	}
	if e.NewNodes != nil && len(o.newNodes) != *e.NewNodes {
		out = append(out, fmt.Sprintf("new nodes: got %d (%v), want %d", len(o.newNodes), o.newNodes, *e.NewNodes))
	}
	return out
}

// checkAccounting checks that every pending pod is expected placed or
// Pending, and is; and that every reason names a rule, never the vague
// answer issue 17 ruled out.
func (e *expect) checkAccounting(o *outcome) []string {
	var out []string
	placed := map[string]bool{}
	all := slices.Contains(e.Placed, "*")
	for _, p := range e.Placed {
		if p != "*" {
			placed[podKey(p)] = true
		}
	}
	pending := map[string]string{}
	for p, why := range e.Pending {
		pending[podKey(p)] = why
	}
	for _, key := range o.pending {
		if slices.ContainsFunc(e.Some, func(s some) bool { return s.covers(key) }) {
			continue
		}
		why, wantPending := pending[key]
		_, isPlaced := o.nodeOf[key]
		switch {
		case wantPending && isPlaced:
			out = append(out, fmt.Sprintf("%s: want Pending (%q), got %s", key, why, o.describe(key)))
		case wantPending && !strings.Contains(o.reasons[key], why):
			out = append(out, fmt.Sprintf("%s: reason %q does not say %q", key, o.reasons[key], why))
		case !wantPending && (placed[key] || all) && !isPlaced:
			out = append(out, fmt.Sprintf("%s: want placed, got %s", key, o.describe(key)))
		case !wantPending && !placed[key] && !all:
			out = append(out, fmt.Sprintf("%s: the case says nothing of this pod (%s); list it in placed or pending", key, o.describe(key)))
		}
		if r := o.reasons[key]; strings.Contains(r, "could not take the pod") {
			out = append(out, fmt.Sprintf("%s: reason %q names no rule", key, r))
		}
	}
	for _, s := range e.Some {
		out = append(out, s.check(o)...)
	}
	for key := range placed {
		if !slices.Contains(o.pending, key) {
			out = append(out, fmt.Sprintf("%s: not a pending pod of the case", key))
		}
	}
	return out
}

func (e *expect) checkGroups(o *outcome) []string {
	var out []string
	for _, g := range e.Together {
		nodes := map[string]bool{}
		for _, p := range g {
			nodes[o.nodeOf[podKey(p)]] = true
		}
		if len(nodes) != 1 || nodes[""] {
			out = append(out, fmt.Sprintf("together %v: on %v", g, slices.Sorted(maps.Keys(nodes))))
		}
	}
	for _, g := range e.Apart {
		seen := map[string]string{}
		for _, p := range g {
			n, ok := o.nodeOf[podKey(p)]
			if !ok {
				out = append(out, fmt.Sprintf("apart %v: %s is not placed", g, p))
				continue
			}
			if other, dup := seen[n]; dup {
				out = append(out, fmt.Sprintf("apart %v: %s and %s share %s", g, other, p, n))
			}
			seen[n] = p
		}
	}
	return out
}

func (e *expect) checkLabels(o *outcome) []string {
	var out []string
	nodeLabels := func(p string) (map[string]string, bool) {
		n, ok := o.nodeOf[podKey(p)]
		if !ok {
			out = append(out, fmt.Sprintf("%s: want placed to check its node's labels, got %s", p, o.describe(podKey(p))))
		}
		return o.labels[n], ok
	}
	for _, p := range slices.Sorted(maps.Keys(e.Labels)) {
		if got, ok := nodeLabels(p); ok {
			for k, v := range e.Labels[p] {
				if got[k] != v {
					out = append(out, fmt.Sprintf("%s: node label %s=%q, want %q", p, k, got[k], v))
				}
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(e.OneOf)) {
		if got, ok := nodeLabels(p); ok {
			for k, vs := range e.OneOf[p] {
				if !slices.Contains(vs, got[k]) {
					out = append(out, fmt.Sprintf("%s: node label %s=%q, want one of %v", p, k, got[k], vs))
				}
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(e.Lacks)) {
		if got, ok := nodeLabels(p); ok {
			for _, k := range e.Lacks[p] {
				if v, has := got[k]; has {
					out = append(out, fmt.Sprintf("%s: node carries %s=%q, want no such label", p, k, v))
				}
			}
		}
	}
	return out
}

func (s skew) check(o *outcome) []string {
	got := s.counts(o)
	var out []string
	if s.Counts != nil && !sameCounts(got, s.Counts) {
		out = append(out, fmt.Sprintf("skew on %s of %v: got %v, want %v", s.Key, s.Selector, got, s.Counts))
	}
	if len(got) == 0 {
		return out
	}
	if s.Max > 0 && got[len(got)-1] > s.Max {
		out = append(out, fmt.Sprintf("skew on %s of %v: got %v, want none above %d", s.Key, s.Selector, got, s.Max))
	}
	if s.MaxSkew > 0 && got[len(got)-1]-got[0] > s.MaxSkew {
		out = append(out, fmt.Sprintf("skew on %s of %v: got %v, want at most %d between the largest and the smallest", s.Key, s.Selector, got, s.MaxSkew))
	}
	return out
}

// counts returns the non-zero counts per domain, sorted.
func (s skew) counts(o *outcome) []int {
	sel := labels.SelectorFromSet(s.Selector)
	per := map[string]int{}
	for key, node := range o.nodeOf {
		p := o.pods[key]
		if p == nil || p.Namespace != "default" || p.DaemonSet || p.Terminating || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		domain := scheduling.TopologyDomain(s.Key, node, o.labels[node])
		if domain == "" {
			continue
		}
		per[domain]++
	}
	var out []int
	for _, n := range per {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func sameCounts(got, want []int) bool {
	w := slices.Clone(want)
	slices.Sort(w)
	return slices.Equal(got, w)
}
