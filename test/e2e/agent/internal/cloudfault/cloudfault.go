// Package cloudfault makes a cloud provider fail on demand, for the agent's fault tests: every
// instance call (Create, Delete, Get, List) first reads a file, and while the file says so the
// call fails as a real cloud API does when it throttles ("throttle") or is down ("5xx"). The
// instance-type catalog keeps answering, as the AWS provider's cached one does. The test writes the file to start the
// fault and empties it to end it, without restarting the agent.
package cloudfault

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// EnvFile names the environment variable that holds the fault file's path.
const EnvFile = "TENON_E2E_CLOUD_FAULTS"

// Faults wraps a provider; the calls it failed are counted in Failed.
type Faults struct {
	cloud.CloudProvider
	file   string
	Failed atomic.Int64
}

// Wrap returns p failing while file says so.
func Wrap(p cloud.CloudProvider, file string) *Faults { return &Faults{CloudProvider: p, file: file} }

// fault is the error the current fault gives, or nil.
func (f *Faults) fault(op string) error {
	data, err := os.ReadFile(f.file)
	if err != nil {
		return nil
	}
	var e error
	switch strings.TrimSpace(string(data)) {
	case "throttle":
		e = fmt.Errorf("%s: cloud API: RequestLimitExceeded: Request limit exceeded (injected)", op)
	case "5xx":
		e = fmt.Errorf("%s: cloud API: 503 Service Unavailable (injected)", op)
	default:
		return nil
	}
	f.Failed.Add(1)
	return e
}

// Create fails while the fault lasts, else launches.
func (f *Faults) Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error) {
	if err := f.fault("RunInstances"); err != nil {
		return nil, err
	}
	return f.CloudProvider.Create(ctx, claim)
}

// Delete fails while the fault lasts, else terminates.
func (f *Faults) Delete(ctx context.Context, claim *v1.NodeClaim) error {
	if err := f.fault("TerminateInstances"); err != nil {
		return err
	}
	return f.CloudProvider.Delete(ctx, claim)
}

// Get fails while the fault lasts.
func (f *Faults) Get(ctx context.Context, providerID string) (*v1.NodeClaim, error) {
	if err := f.fault("DescribeInstances"); err != nil {
		return nil, err
	}
	return f.CloudProvider.Get(ctx, providerID)
}

// List fails while the fault lasts.
func (f *Faults) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	if err := f.fault("DescribeInstances"); err != nil {
		return nil, err
	}
	return f.CloudProvider.List(ctx)
}

// Ready keeps the wrapped provider's NodeClass readiness check, which the agent finds by type
// assertion and the embedding would hide.
func (f *Faults) Ready(nc *v1.NodeClass) error {
	if r, ok := f.CloudProvider.(interface{ Ready(*v1.NodeClass) error }); ok {
		return r.Ready(nc)
	}
	return nil
}
