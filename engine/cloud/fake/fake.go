// Package fake is an in-memory cloud.CloudProvider for unit tests, with
// knobs in the style of Karpenter's fake: the next error of each call, a
// capacity shortage per offering, a latency, a call log and Reset.
//
// Instances live in a map keyed by provider ID "fake://<claim>", so Create
// is idempotent per claim exactly as the contract asks.
package fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// ProviderIDPrefix starts the provider ID of every fake instance.
const ProviderIDPrefix = "fake://"

// Call is one recorded call: the method and the claim name or provider ID
// it was made with.
type Call struct {
	Method string
	Arg    string
}

// Provider is the fake cloud. The zero value is not usable; call New.
type Provider struct {
	types []*catalog.InstanceType

	mu        sync.Mutex
	instances map[string]*v1.NodeClaim
	nextErr   map[string]error
	shortage  map[cloud.Offering]bool
	drift     map[string]cloud.DriftReason
	latency   time.Duration
	calls     []Call
}

var _ cloud.CloudProvider = (*Provider)(nil)

// New returns a fake offering types (nil: the embedded catalog's types in
// the default region).
func New(types []*catalog.InstanceType) (*Provider, error) {
	if types == nil {
		cat, err := catalog.New()
		if err != nil {
			return nil, fmt.Errorf("building the fake's catalog: %w", err)
		}
		types = cat.InstanceTypes()
	}
	p := &Provider{types: types}
	p.Reset()
	return p, nil
}

// Reset forgets every instance, knob and recorded call.
func (p *Provider) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.instances = map[string]*v1.NodeClaim{}
	p.nextErr = map[string]error{}
	p.shortage = map[cloud.Offering]bool{}
	p.drift = map[string]cloud.DriftReason{}
	p.latency = 0
	p.calls = nil
}

// Methods the knobs and the call log name.
const (
	MethodCreate        = "Create"
	MethodDelete        = "Delete"
	MethodGet           = "Get"
	MethodList          = "List"
	MethodInstanceTypes = "InstanceTypes"
	MethodIsDrifted     = "IsDrifted"
)

// SetNextError makes the next call of method fail with err (once).
func (p *Provider) SetNextError(method string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextErr[method] = err
}

// SetShortage makes Create treat an offering as out of capacity (or, with
// short false, as available again).
func (p *Provider) SetShortage(o cloud.Offering, short bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if short {
		p.shortage[o] = true
	} else {
		delete(p.shortage, o)
	}
}

// SetLatency delays every call by d (honouring ctx).
func (p *Provider) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// SetDrift makes IsDrifted report reason for the instance providerID.
func (p *Provider) SetDrift(providerID string, reason cloud.DriftReason) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drift[providerID] = reason
}

// Calls returns the recorded calls, oldest first.
func (p *Provider) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// CallCount returns how many times method was called.
func (p *Provider) CallCount(method string) int {
	n := 0
	for _, c := range p.Calls() {
		if c.Method == method {
			n++
		}
	}
	return n
}

// AddInstance records an instance no claim may track, as if launched
// earlier (for garbage-collection tests).
func (p *Provider) AddInstance(claim *v1.NodeClaim) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.instances[claim.Status.ProviderID] = claim.DeepCopy()
}

// begin records a call, waits the latency and returns the method's pending
// error, if any.
func (p *Provider) begin(ctx context.Context, method, arg string) error {
	p.mu.Lock()
	p.calls = append(p.calls, Call{Method: method, Arg: arg})
	err := p.nextErr[method]
	delete(p.nextErr, method)
	latency := p.latency
	p.mu.Unlock()
	if latency > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(latency):
		}
	}
	return err
}

// Name returns "fake".
func (p *Provider) Name() string { return "fake" }

// Create launches the first available candidate offering of claim, or
// returns the instance it already launched for claim.
func (p *Provider) Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error) {
	if err := p.begin(ctx, MethodCreate, claim.Name); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := ProviderIDPrefix + claim.Name
	if existing, ok := p.instances[id]; ok {
		return existing.DeepCopy(), nil
	}
	all, err := cloud.Candidates(claim, p.types, nil)
	if err != nil {
		return nil, err
	}
	var tried []cloud.Offering
	for _, c := range all {
		if p.shortage[c.Offering] {
			tried = append(tried, c.Offering)
			continue
		}
		out := cloud.Launched(claim, c, id, "fake-image")
		p.instances[id] = out.DeepCopy()
		return out, nil
	}
	return nil, &cloud.InsufficientCapacityError{Claim: claim.Name, Offerings: tried}
}

// Delete removes the instance behind claim.
func (p *Provider) Delete(ctx context.Context, claim *v1.NodeClaim) error {
	if err := p.begin(ctx, MethodDelete, claim.Status.ProviderID); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.instances[claim.Status.ProviderID]; !ok {
		return &cloud.NotFoundError{ProviderID: claim.Status.ProviderID}
	}
	delete(p.instances, claim.Status.ProviderID)
	return nil
}

// Get returns the instance providerID.
func (p *Provider) Get(ctx context.Context, providerID string) (*v1.NodeClaim, error) {
	if err := p.begin(ctx, MethodGet, providerID); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.instances[providerID]
	if !ok {
		return nil, &cloud.NotFoundError{ProviderID: providerID}
	}
	return c.DeepCopy(), nil
}

// List returns every instance, sorted by provider ID.
func (p *Provider) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	if err := p.begin(ctx, MethodList, ""); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*v1.NodeClaim, 0, len(p.instances))
	for _, c := range p.instances {
		out = append(out, c.DeepCopy())
	}
	slices.SortFunc(out, func(a, b *v1.NodeClaim) int { return strings.Compare(a.Status.ProviderID, b.Status.ProviderID) })
	return out, nil
}

// InstanceTypes returns the fake's types, whatever the pool.
func (p *Provider) InstanceTypes(ctx context.Context, pool *state.Pool) ([]*catalog.InstanceType, error) {
	name := ""
	if pool != nil {
		name = pool.Name
	}
	if err := p.begin(ctx, MethodInstanceTypes, name); err != nil {
		return nil, err
	}
	return slices.Clone(p.types), nil
}

// IsDrifted reports the drift set with SetDrift.
func (p *Provider) IsDrifted(ctx context.Context, claim *v1.NodeClaim) (cloud.DriftReason, error) {
	if err := p.begin(ctx, MethodIsDrifted, claim.Status.ProviderID); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drift[claim.Status.ProviderID], nil
}

// RepairPolicies are Ready False or Unknown for 30 minutes
// (state.ReadyRepairPolicies).
func (p *Provider) RepairPolicies() []state.RepairPolicy { return state.ReadyRepairPolicies() }
