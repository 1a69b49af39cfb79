// Package awsfake is an in-memory stand-in for the EC2, SSM, Pricing, SQS and IAM
// APIs the AWS cloud provider calls (engine/cloud/aws's narrow interfaces),
// with knobs for the faults the provider must survive: a one-shot error per
// operation, insufficient capacity per offering, throttling, latency, and a
// log of every call. It keeps just enough state (subnets, security groups,
// images, parameters, instance types, offerings, prices, launch templates,
// instances, queue messages) to behave like AWS for the provider's requests.
//
// A Fake is safe for concurrent use. It imports only the SDK, never the
// provider, so the provider's own tests can use it.
package awsfake

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"
)

// Call is one recorded API call.
type Call struct {
	// Op is the operation name, such as "CreateFleet".
	Op string
	// Input is the request, a pointer to the SDK input type.
	Input any
}

// Offering names one (instance type, zone, capacity type).
type Offering struct {
	InstanceType string
	Zone         string
	CapacityType string // "spot" or "on-demand"
}

// Fake implements engine/cloud/aws's EC2API, SSMAPI, PricingAPI, SQSAPI and
// IAMAPI.
// Populate its exported state before use; the zero value is empty but usable.
type Fake struct {
	mu sync.Mutex

	// Subnets, SecurityGroups and Images are what the Describe calls return
	// (filtered by the request).
	Subnets        []ec2types.Subnet
	SecurityGroups []ec2types.SecurityGroup
	Images         []ec2types.Image
	// Parameters are SSM parameters by name.
	Parameters map[string]string
	// InstanceTypes are what DescribeInstanceTypes returns.
	InstanceTypes []ec2types.InstanceTypeInfo
	// Offerings are what DescribeInstanceTypeOfferings returns (location type
	// availability-zone).
	Offerings []ec2types.InstanceTypeOffering
	// OnDemandPrices are USD per hour by instance type, served by GetProducts
	// as Price List JSON; CreateFleet uses them to order on-demand overrides.
	OnDemandPrices map[string]float64
	// SpotPrices are what DescribeSpotPriceHistory returns; CreateFleet uses
	// them to order spot overrides.
	SpotPrices []ec2types.SpotPrice
	// CapacityReservations are what DescribeCapacityReservations returns;
	// CreateFleet launches into the one a launch template targets and
	// counts the instance against it.
	CapacityReservations []ec2types.CapacityReservation

	now           func() time.Time
	nextErr       map[string][]error
	throttle      map[string]int
	lose          map[string]int
	ice           map[Offering]bool
	latency       time.Duration
	calls         []Call
	templates     map[string]ec2types.LaunchTemplate
	templateData  map[string]ec2types.RequestLaunchTemplateData
	instances     map[string]*ec2types.Instance
	order         []string // instance IDs in launch order
	fleetTokens   map[string]fleetResult
	queue         []*message
	seq           int
	launchedCount int
	profiles      map[string]*iamtypes.InstanceProfile
}

// New returns an empty Fake whose clock is time.Now.
func New() *Fake {
	f := &Fake{}
	f.Reset()
	return f
}

// Reset forgets the calls, knobs, launch templates, instances, client tokens,
// messages and instance profiles, keeping the discovery data (subnets, groups, images,
// parameters, types, offerings, prices).
func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.now == nil {
		f.now = time.Now
	}
	if f.Parameters == nil {
		f.Parameters = map[string]string{}
	}
	if f.OnDemandPrices == nil {
		f.OnDemandPrices = map[string]float64{}
	}
	f.nextErr = map[string][]error{}
	f.throttle = map[string]int{}
	f.lose = map[string]int{}
	f.ice = map[Offering]bool{}
	f.latency = 0
	f.calls = nil
	f.templates = map[string]ec2types.LaunchTemplate{}
	f.templateData = map[string]ec2types.RequestLaunchTemplateData{}
	f.instances = map[string]*ec2types.Instance{}
	f.order = nil
	f.fleetTokens = map[string]fleetResult{}
	f.queue = nil
	f.launchedCount = 0
	f.profiles = map[string]*iamtypes.InstanceProfile{}
}

// SetClock replaces the clock used for launch times and template creation.
func (f *Fake) SetClock(now func() time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = now
}

// NextError makes the next call of op fail with err (queued: several calls
// queue several errors).
func (f *Fake) NextError(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextErr[op] = append(f.nextErr[op], err)
}

// Throttle makes the next n calls of op fail with RequestLimitExceeded.
func (f *Fake) Throttle(op string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.throttle[op] = n
}

// LoseNextResponse makes the next CreateFleet do its work (launch) and then
// fail with a 500 InternalError, as when a response is lost on the way back.
func (f *Fake) LoseNextResponse(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lose[op]++
}

// lost reports (and consumes) a pending LoseNextResponse for op; f.mu held.
func (f *Fake) lost(op string) error {
	if f.lose[op] == 0 {
		return nil
	}
	f.lose[op]--
	return &smithy.GenericAPIError{Code: "InternalError", Message: "We encountered an internal error. Please try again.", Fault: smithy.FaultServer}
}

// InsufficientCapacity makes CreateFleet report InsufficientInstanceCapacity
// for the offering (or clears it with ok=false).
func (f *Fake) InsufficientCapacity(o Offering, ice bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ice {
		f.ice[o] = true
	} else {
		delete(f.ice, o)
	}
}

// SetLatency delays every call by d (or until its context ends).
func (f *Fake) SetLatency(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latency = d
}

// Calls returns the calls made so far, optionally only those of the given
// operations.
func (f *Fake) Calls(ops ...string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if len(ops) == 0 || slices.Contains(ops, c.Op) {
			out = append(out, c)
		}
	}
	return out
}

// Instances returns the instances launched and not yet purged, in launch
// order (terminated ones included, in state terminated).
func (f *Fake) Instances() []ec2types.Instance {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]ec2types.Instance, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, *f.instances[id])
	}
	return out
}

// Launched counts the instances CreateFleet has launched since Reset.
func (f *Fake) Launched() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.launchedCount
}

// AddInstance puts an instance into the fake as if launched elsewhere (for
// example by an earlier provider that crashed).
func (f *Fake) AddInstance(in ec2types.Instance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := aws.ToString(in.InstanceId)
	f.instances[id] = &in
	f.order = append(f.order, id)
}

// LaunchTemplates returns the launch templates by name.
func (f *Fake) LaunchTemplates() map[string]ec2types.RequestLaunchTemplateData {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]ec2types.RequestLaunchTemplateData, len(f.templateData))
	for k, v := range f.templateData {
		out[k] = v
	}
	return out
}

// begin records a call and applies latency, throttling and queued errors.
func (f *Fake) begin(ctx context.Context, op string, input any) error {
	f.mu.Lock()
	f.calls = append(f.calls, Call{Op: op, Input: input})
	latency := f.latency
	var err error
	switch {
	case f.throttle[op] > 0:
		f.throttle[op]--
		err = &smithy.GenericAPIError{Code: "RequestLimitExceeded", Message: "Request limit exceeded.", Fault: smithy.FaultClient}
	case len(f.nextErr[op]) > 0:
		err = f.nextErr[op][0]
		f.nextErr[op] = f.nextErr[op][1:]
	}
	f.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// nextID returns a fresh resource ID with prefix, such as i-000000000000001.
func (f *Fake) nextID(prefix string) string {
	f.seq++
	return prefix + "-" + fmt.Sprintf("%017x", f.seq)
}

// apiError is an AWS error with a code, as the SDK returns it.
func apiError(code, msg string) error {
	return &smithy.GenericAPIError{Code: code, Message: msg, Fault: smithy.FaultClient}
}

func formatPrice(p float64) string { return strconv.FormatFloat(p, 'f', 6, 64) }
