// Package overlay applies NodeOverlays to the instance types a pool may launch, before packing and
// consolidation see them: a price set or adjusted per offering (zone × capacity type), and
// extended resources (hugepages, device plugins' resources) added to the types' capacity and
// allocatable. Where overlays set the same value, the highest weight wins; two of the same weight
// that set the same value of one instance type are in conflict, and the one applied second (the
// name that sorts first, as Karpenter orders them) is applied nowhere, its status naming the
// overlay, pool, instance type and field it clashed on.
//
// It is a pure function of values: the agent, `tenon simulate` and the Terraform data source call
// it through state.Build.
package overlay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// MinPricePerHour is the least price an overlay leaves an offering at, in USD per hour: a price
// set to 0 or discounted by 100% is free in effect, but the packer ranks types by value per
// dollar and needs a positive price.
const MinPricePerHour = 0.000001

// Overlay is one NodeOverlay reduced to what Apply needs.
type Overlay struct {
	Name   string
	Weight int32
	// Requirements select instance types and offerings by the labels their nodes would have.
	Requirements scheduling.Requirements
	// Price is nil when the overlay leaves prices alone.
	Price *PriceChange
	// Capacity holds the extended resources the overlay adds.
	Capacity corev1.ResourceList
}

// FromAPI reduces a validated NodeOverlay to an Overlay. Karpenter's label keys in its
// requirements are read as Tenon's.
func FromAPI(o *v1.NodeOverlay) (Overlay, error) {
	specs := make([]scheduling.RequirementSpec, len(o.Spec.Requirements))
	for i, r := range o.Spec.Requirements {
		specs[i] = scheduling.RequirementSpec{Key: scheduling.NormalizeLabelKey(r.Key), Operator: string(r.Operator), Values: r.Values}
	}
	reqs, err := scheduling.RequirementsFromSpecs(specs...)
	if err != nil {
		return Overlay{}, fmt.Errorf("spec.requirements: %w", err)
	}
	if reqs == nil {
		reqs = scheduling.Requirements{}
	}
	price, err := ParsePrice(o.Spec.Price, o.Spec.PriceAdjustment)
	if err != nil {
		return Overlay{}, err
	}
	out := Overlay{Name: o.Name, Requirements: reqs, Price: price, Capacity: o.Spec.Capacity.DeepCopy()}
	if o.Spec.Weight != nil {
		out.Weight = *o.Spec.Weight
	}
	return out, nil
}

// changeKind is how a PriceChange acts on a price.
type changeKind int

const (
	changeSet changeKind = iota
	changeAdd
	changePercent
)

// PriceChange is a price or priceAdjustment: a new price, an amount added, or a percentage.
type PriceChange struct {
	kind  changeKind
	value float64
	// Text is the field as written, for messages.
	Text string
	// Field is "price" or "priceAdjustment".
	Field string
}

// ParsePrice reads an overlay's price or priceAdjustment (at most one is set; nil when neither
// is), in the forms the API validates.
func ParsePrice(price, adjustment *string) (*PriceChange, error) {
	switch {
	case price != nil && adjustment != nil:
		return nil, fmt.Errorf("spec: set price or priceAdjustment, not both")
	case price != nil:
		if !v1.OverlayPriceRE.MatchString(*price) {
			return nil, fmt.Errorf("spec.price: %q is not a non-negative decimal number of USD per hour such as 0.042", *price)
		}
		v, err := strconv.ParseFloat(*price, 64)
		if err != nil {
			return nil, fmt.Errorf("spec.price: %w", err)
		}
		return &PriceChange{kind: changeSet, value: v, Text: *price, Field: "price"}, nil
	case adjustment != nil:
		return parseAdjustment(*adjustment)
	}
	return nil, nil
}

func parseAdjustment(s string) (*PriceChange, error) {
	if !v1.OverlayPriceAdjustmentRE.MatchString(s) {
		return nil, fmt.Errorf("spec.priceAdjustment: %q is not a signed amount such as -0.01 or a signed percentage such as -15%%", s)
	}
	kind, num := changeAdd, s
	if strings.HasSuffix(s, "%") {
		kind, num = changePercent, strings.TrimSuffix(s, "%")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return nil, fmt.Errorf("spec.priceAdjustment: %w", err)
	}
	return &PriceChange{kind: kind, value: v, Text: s, Field: "priceAdjustment"}, nil
}

// Apply returns price changed: set, added to, or scaled, never below MinPricePerHour.
func (p PriceChange) Apply(price float64) float64 {
	var out float64
	switch p.kind {
	case changeSet:
		out = p.value
	case changeAdd:
		out = price + p.value
	case changePercent:
		out = price * (1 + p.value/100)
	}
	if math.IsNaN(out) || out < MinPricePerHour {
		return MinPricePerHour
	}
	return out
}

// Discount reports whether the change can only lower a price (a negative adjustment).
func (p PriceChange) Discount() bool {
	return p.kind != changeSet && p.value <= 0
}

// sortOverlays orders overlays as they are applied: highest weight first, and within a weight the
// name that sorts last first (Karpenter's order, so a migrated conflict resolves the same way).
func sortOverlays(overlays []Overlay) {
	slices.SortStableFunc(overlays, func(a, b Overlay) int {
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(b.Name, a.Name)
	})
}
