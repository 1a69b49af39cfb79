package simulate

import (
	"errors"
	"fmt"
	"strings"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Snapshot converts the scenario's objects into a fresh Snapshot with the
// converter the agent uses; pools get the catalog's instance types that
// have an offering in the scenario's zones. Each call builds a new
// Snapshot, so callers may change it. Errors name the file and object.
func (s *Scenario) Snapshot() (*state.Snapshot, error) {
	snap, err := state.Build(s.Objects, state.WithInstanceTypes(s.poolInstanceTypes))
	if err != nil {
		return nil, s.nameFiles(err)
	}
	// The catalog is EC2's: nodes are unhealthy as on AWS (Ready, and the
	// EKS node monitoring agent's conditions), for pools that repair them.
	snap.RepairPolicies = state.AWSRepairPolicies()
	return snap, nil
}

// snapshotAndPending builds a Snapshot and picks its pending pods: one
// run's input to the engine.
func (s *Scenario) snapshotAndPending() (*snapshotAndPods, error) {
	snap, err := s.Snapshot()
	if err != nil {
		return nil, err
	}
	return &snapshotAndPods{snap: snap, pending: snap.PendingPods()}, nil
}

// InstanceTypes returns the catalog's instance types that have at least
// one offering in the scenario's region and zones, sorted by name. They are
// shared and read-only.
func (s *Scenario) InstanceTypes() []*catalog.InstanceType { return s.instanceTypes }

// poolInstanceTypes is the state.InstanceTypesFunc of a scenario: every pool
// whose node class exists may launch any offered type, as its kubelet
// settings size it; the engine narrows them by the pool's requirements.
func (s *Scenario) poolInstanceTypes(pool *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error) {
	if class == nil {
		name := ""
		if ref := pool.Spec.Template.Spec.NodeClassRef; ref != nil {
			name = ref.Name
		}
		return nil, fmt.Errorf("NodeClass %q not found; add a NodeClass document (spec: {kwok: {}} is enough to simulate)", name)
	}
	k, err := state.KubeletFor(pool, class)
	if err != nil {
		return nil, err
	}
	types, err := state.WithKubelet(s.instanceTypes, k)
	if err != nil {
		return nil, err
	}
	reserved := s.reservationsFor(class)
	if len(reserved) == 0 {
		return types, nil
	}
	// Every reservation's type is in the catalog (setReservations checked).
	types, _ = catalog.WithReservations(types, reserved)
	return types, nil
}

// nameFiles prefixes each converter error with the file its object came
// from.
func (s *Scenario) nameFiles(err error) error {
	parts := manifest.Flatten(err)
	files := strings.Join(s.Files, ", ")
	out := make([]error, 0, len(parts))
	for _, e := range parts {
		var oe *state.ObjectError
		if !errors.As(e, &oe) {
			out = append(out, e)
			continue
		}
		out = append(out, s.origins.Errorf(files, oe.Kind, oe.Namespace, oe.Name, oe.Field, "%s", oe.Detail))
	}
	return errors.Join(out...)
}
