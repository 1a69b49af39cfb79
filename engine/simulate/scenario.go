package simulate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Scenario header constants: the kind and apiVersion of the optional first
// document that names the region, zones and catalog.
const (
	ScenarioAPIVersion = "tenon.dev/v1alpha1"
	ScenarioKind       = "Scenario"
	// CatalogEmbedded selects Tenon's embedded EC2 catalog, the only one so
	// far.
	CatalogEmbedded = "embedded"
)

// ScenarioHeader is the `tenon.dev/v1alpha1 Scenario` document.
type ScenarioHeader struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ScenarioSpec `json:"spec"`
}

// ScenarioSpec says where the scenario runs.
type ScenarioSpec struct {
	// Region is the AWS region whose prices apply; default us-east-1.
	Region string `json:"region,omitempty"`
	// Zones are the zones offerings are made in; default the region's a, b
	// and c.
	Zones []string `json:"zones,omitempty"`
	// Catalog is where instance types come from: "embedded" (the default).
	Catalog string `json:"catalog,omitempty"`
	// Now is the instant the scenario describes (RFC 3339): consolidation plans at it unless
	// --now says otherwise. `tenon simulate --save` records when it read the cluster, so the
	// file replays with the same answer later.
	Now *metav1.Time `json:"now,omitempty"`
	// CapacityReservations are the EC2 capacity reservations (and capacity blocks) the
	// account holds: a NodeClass's capacityReservationSelectorTerms select among them, as
	// the agent's DescribeCapacityReservations would.
	CapacityReservations []ScenarioReservation `json:"capacityReservations,omitempty"`
}

// ScenarioReservation is one capacity reservation of a scenario.
type ScenarioReservation struct {
	// ID is the reservation's ID, such as cr-0123456789abcdef0.
	ID string `json:"id"`
	// InstanceType and Zone are what it holds.
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	// Available is how many more instances it can take.
	Available int `json:"available"`
	// Type is default (an On-Demand Capacity Reservation, the default) or capacity-block.
	Type string `json:"type,omitempty"`
	// Tags, OwnerID and InstanceMatchCriteria (open, the default, or targeted) are what
	// selector terms match.
	Tags                  map[string]string `json:"tags,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// Scenario is a set of scenario files, parsed and validated: the objects
// they hold (workloads expanded into their pods) and the catalog they run
// against. It is read-only after Load and may be shared.
type Scenario struct {
	// Name is the header's name, or the first file's base name without
	// extension.
	Name string
	// Files are the files read, in order.
	Files []string
	// Region and Zones are where offerings are made.
	Region string
	Zones  []string
	// Catalog is the instance-type catalog for Region and Zones.
	Catalog *catalog.Catalog
	// Now is the header's spec.now (UTC), or zero.
	Now time.Time
	// Objects are the objects of every file; Deployments, ReplicaSets,
	// StatefulSets and Jobs are expanded into pods X-0 … X-(N-1), or
	// X-<kind>-0 … when a workload of another kind named X came first (a
	// Deployment and a Job may share a name; their pods may not).
	Objects state.Objects
	// Workloads counts the workload objects expanded into pods.
	Workloads int

	instanceTypes []*catalog.InstanceType
	// reservations are the header's capacity reservations, checked.
	reservations []ScenarioReservation
	// origins records the document each object came from, so converter
	// errors name the file.
	origins manifest.Origins
	// overCap is set once the scenario holds more than MaxPods pods.
	overCap bool
	// podPrefixes are the namespace/name prefixes of the pods workloads
	// were expanded into, so that a workload of another kind with the same
	// name gets other pod names.
	podPrefixes map[string]bool
}

// MaxPods is the most pods one scenario may hold, its workloads' replicas
// included: past it, simulate refuses the input with an error naming the
// object that crosses it instead of expanding pods until memory runs out.
// It is Kubernetes' own tested limit of pods per cluster (150,000) rounded
// down, and it keeps every sum of pod requests within int64 (see
// scheduling.MaxRequest).
const MaxPods = 100_000

// File is a scenario file's name and contents.
type File = manifest.File

// Load reads scenario files from disk; see Parse.
func Load(paths ...string) (*Scenario, error) {
	files, err := manifest.ReadFiles(paths, nil)
	if err != nil {
		return nil, err
	}
	return Parse(files...)
}

// Parse reads scenario files: multi-document YAML or JSON holding at most
// one Scenario header, tenon.dev NodePools, NodeClasses, NodeClaims and
// Provisioners, and Pods, Nodes, Deployments, ReplicaSets, StatefulSets,
// Jobs, DaemonSets and PodDisruptionBudgets (scenarioKinds). Documents
// decode strictly (engine/manifest); every error is a *manifest.Error naming
// the file, the object and the field, and all of them are reported
// (joined), not only the first.
//
// A file with no object (empty, or only comments) is an error, and so is a
// scenario of more than MaxPods pods, counting each workload's replicas:
// the check comes before any pod is made, so a huge count fails at once
// instead of exhausting memory.
func Parse(files ...File) (*Scenario, error) {
	return parse(context.Background(), files)
}

// parse is Parse, giving up with ctx's error when ctx ends (--timeout
// bounds reading too).
func parse(ctx context.Context, files []File) (*Scenario, error) {
	if len(files) == 0 {
		return nil, errors.New("no scenario files")
	}
	s := &Scenario{}
	for _, f := range files {
		s.Files = append(s.Files, f.Name)
	}
	var errs []error
	var h firstHeader
	for _, f := range files {
		docs, err := manifest.Split(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(docs) == 0 {
			errs = append(errs, manifest.NoObjects(f, "a scenario file holds Kubernetes YAML or JSON: workloads, nodes and Tenon policy"))
		}
		for _, d := range docs {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("reading %s: %w", f.Name, err)
			}
			errs = append(errs, s.read(d, &h)...)
			if s.overCap {
				// Reading on would only make more pods to refuse.
				return nil, errors.Join(errs...)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := s.setCatalog(h.spec, h.doc); err != nil {
		return nil, err
	}
	if s.Name == "" {
		base := filepath.Base(files[0].Name)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return s, nil
}

// firstHeader is the scenario's header, once read, and the document it
// came from.
type firstHeader struct {
	spec *ScenarioHeader
	doc  *manifest.Document
}

// read decodes one document and adds its objects, or takes it as the
// header.
func (s *Scenario) read(d *manifest.Document, h *firstHeader) []error {
	obj, errs := scenarioKinds.Decode(d)
	if len(errs) > 0 {
		return errs
	}
	if spec, ok := obj.(*ScenarioHeader); ok {
		return h.set(d, spec)
	}
	if err := s.origins.Add(d); err != nil {
		return []error{err}
	}
	return d.FieldErrors(s.add(obj))
}

// set takes a Scenario header, the first of the scenario.
func (h *firstHeader) set(d *manifest.Document, spec *ScenarioHeader) []error {
	if c := spec.Spec.Catalog; c != "" && c != CatalogEmbedded {
		return []error{d.Errorf("spec.catalog", "Unsupported value: %q: supported values: %q", c, CatalogEmbedded)}
	}
	if h.spec != nil {
		return []error{d.Errorf("", "a second Scenario header (the first is in %s); keep one", h.doc.File)}
	}
	h.spec, h.doc = spec, d
	return nil
}

// setCatalog builds the catalog the header asks for (defaults without one)
// and checks that every zone is in the region.
func (s *Scenario) setCatalog(h *ScenarioHeader, d *manifest.Document) error {
	s.Region = catalog.DefaultRegion
	if h != nil {
		s.Name = h.Name
		if h.Spec.Now != nil {
			s.Now = h.Spec.Now.UTC()
		}
		if h.Spec.Region != "" {
			s.Region = h.Spec.Region
		}
		var errs field.ErrorList
		path := field.NewPath("spec", "zones")
		for i, z := range h.Spec.Zones {
			if !zoneInRegion(z, s.Region) {
				errs = append(errs, field.Invalid(path.Index(i), z, fmt.Sprintf("zone is not in region %s; use zones such as %sa", s.Region, s.Region)))
			}
			if slices.Contains(h.Spec.Zones[:i], z) {
				errs = append(errs, field.Duplicate(path.Index(i), z))
			}
		}
		if len(errs) > 0 {
			return errors.Join(d.FieldErrors(errs)...)
		}
		s.Zones = slices.Clone(h.Spec.Zones)
	}
	opts := []catalog.Option{catalog.WithRegion(s.Region)}
	if len(s.Zones) > 0 {
		opts = append(opts, catalog.WithZones(s.Zones...))
	}
	cat, err := catalog.New(opts...)
	if err != nil {
		if d != nil {
			return d.Errorf("spec", "%v", err)
		}
		return fmt.Errorf("building the catalog: %w", err)
	}
	s.Catalog = cat
	s.Zones = cat.Zones()
	for _, it := range cat.InstanceTypes() {
		if len(it.Offerings) > 0 {
			s.instanceTypes = append(s.instanceTypes, it)
		}
	}
	if h != nil {
		if errs := s.setReservations(h.Spec.CapacityReservations); len(errs) > 0 {
			return errors.Join(d.FieldErrors(errs)...)
		}
	}
	return nil
}

// zoneInRegion reports whether zone is an availability zone (region plus a
// letter) or a local or wavelength zone (region-...) of region.
func zoneInRegion(zone, region string) bool {
	rest, ok := strings.CutPrefix(zone, region)
	if !ok || rest == "" {
		return false
	}
	if len(rest) == 1 {
		return rest[0] >= 'a' && rest[0] <= 'z'
	}
	return rest[0] == '-'
}
