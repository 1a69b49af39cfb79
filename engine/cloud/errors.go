package cloud

import (
	"errors"
	"fmt"
	"strings"
)

// NotFoundError says an instance does not exist (any more).
type NotFoundError struct {
	// ProviderID is the instance looked for.
	ProviderID string
	// Err is the cloud's own error, when there was one.
	Err error
}

func (e *NotFoundError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("instance %s not found: %v", e.ProviderID, e.Err)
	}
	return fmt.Sprintf("instance %s not found", e.ProviderID)
}

func (e *NotFoundError) Unwrap() error { return e.Err }

// Offering names one (instance type, zone, capacity type) a launch may use.
type Offering struct {
	InstanceType string
	Zone         string
	CapacityType string
	// ReservationID is the capacity reservation of a reserved offering.
	ReservationID string
}

func (o Offering) String() string {
	if o.ReservationID != "" {
		return o.InstanceType + "/" + o.Zone + "/" + o.CapacityType + "/" + o.ReservationID
	}
	return o.InstanceType + "/" + o.Zone + "/" + o.CapacityType
}

// InsufficientCapacityError says none of the offerings tried had capacity.
type InsufficientCapacityError struct {
	// Claim is the claim that could not be launched.
	Claim string
	// Offerings are the offerings tried, each now marked unavailable.
	Offerings []Offering
	// Err is the cloud's own error, when there was one.
	Err error
}

func (e *InsufficientCapacityError) Error() string {
	names := make([]string, 0, len(e.Offerings))
	for _, o := range e.Offerings {
		names = append(names, o.String())
	}
	msg := fmt.Sprintf("insufficient capacity for nodeclaim %q", e.Claim)
	if len(names) > 0 {
		msg += " in " + strings.Join(names, ", ")
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *InsufficientCapacityError) Unwrap() error { return e.Err }

// NodeClassNotReadyError says a NodeClass cannot launch nodes yet, and why.
type NodeClassNotReadyError struct {
	// NodeClass is the class's name.
	NodeClass string
	// Reason says what is missing, for example "no subnet matches
	// subnetSelectorTerms[0] (tags kubernetes.io/cluster/prod)".
	Reason string
}

func (e *NodeClassNotReadyError) Error() string {
	return fmt.Sprintf("nodeclass %q is not ready: %s", e.NodeClass, e.Reason)
}

// IsNotFound reports whether err is or wraps a *NotFoundError.
func IsNotFound(err error) bool {
	var t *NotFoundError
	return errors.As(err, &t)
}

// IsInsufficientCapacity reports whether err is or wraps an
// *InsufficientCapacityError.
func IsInsufficientCapacity(err error) bool {
	var t *InsufficientCapacityError
	return errors.As(err, &t)
}

// IsNodeClassNotReady reports whether err is or wraps a
// *NodeClassNotReadyError.
func IsNodeClassNotReady(err error) bool {
	var t *NodeClassNotReadyError
	return errors.As(err, &t)
}
