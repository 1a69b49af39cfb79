package aws

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

const testCluster = "prod"

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// classes is a NodeClass store the tests edit.
type classes struct {
	mu sync.Mutex
	m  map[string]*v1.NodeClass
}

func (c *classes) lookup(_ context.Context, name string) (*v1.NodeClass, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	nc, ok := c.m[name]
	if !ok {
		return nil, nil
	}
	return nc.DeepCopy(), nil
}

func (c *classes) put(nc *v1.NodeClass) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[nc.Name] = nc
}

func (c *classes) remove(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, name)
}

type env struct {
	p       *Provider
	fake    *awsfake.Fake
	clock   *fakeClock
	classes *classes
}

// newEnv returns a provider over a fresh awsfake.World with NodeClass
// "default" (AL2023, default selectors, role node-role).
func newEnv(t *testing.T, mutate ...func(*Options)) *env {
	t.Helper()
	f := awsfake.WorldWith(testCluster, testCatalog(t))
	clock := newClock()
	f.SetClock(clock.Now)
	cs := &classes{m: map[string]*v1.NodeClass{}}
	cs.put(nodeClass("default"))
	opts := Options{
		ClusterName: testCluster, Region: "us-east-1", InterruptionQueue: "tenon-prod",
		NodeClass: cs.lookup, ClusterEndpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com", ClusterCA: "Q0E=",
		KubernetesVersion: awsfake.KubernetesVersion, EC2: f, SSM: f, Pricing: f, SQS: f, IAM: f,
		Logger: logr.Discard(), Now: clock.Now, RefreshInterval: -1, Catalog: testCatalog(t),
	}
	for _, m := range mutate {
		m(&opts)
	}
	p, err := New(t.Context(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &env{p: p, fake: f, clock: clock, classes: cs}
}

func nodeClass(name string, mutate ...func(*v1.AWSNodeClassSpec)) *v1.NodeClass {
	spec := &v1.AWSNodeClassSpec{AMIFamily: v1.AMIFamilyAL2023, Role: "node-role"}
	for _, m := range mutate {
		m(spec)
	}
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}, Spec: v1.NodeClassSpec{AWS: spec}}
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirementWithMinValues {
	return v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

// claim returns a claim of pool "general" on NodeClass "default" with
// extra requirements.
func claim(name string, reqs ...v1.NodeSelectorRequirementWithMinValues) *v1.NodeClaim {
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{scheduling.LabelNodePool: "general"}},
		Spec: v1.NodeClaimSpec{
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
			Requirements: append([]v1.NodeSelectorRequirementWithMinValues{
				req(scheduling.LabelNodePool, corev1.NodeSelectorOpIn, "general"),
				req("example.com/team", corev1.NodeSelectorOpIn, "web"),
			}, reqs...),
			Resources: v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		},
	}
}

// testCatalog loads the embedded catalog once for the package's tests.
var testCatalog = func() func(t *testing.T) *catalog.Catalog {
	load := sync.OnceValues(func() (*catalog.Catalog, error) { return catalog.New() })
	return func(t *testing.T) *catalog.Catalog {
		t.Helper()
		c, err := load()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}()

type v1AWS = v1.AWSNodeClassSpec

func subnetIDs(ids ...string) []v1.SubnetSelectorTerm {
	var out []v1.SubnetSelectorTerm
	for _, id := range ids {
		out = append(out, v1.SubnetSelectorTerm{ID: id})
	}
	return out
}

func amiIDs(ids ...string) []v1.AMISelectorTerm {
	var out []v1.AMISelectorTerm
	for _, id := range ids {
		out = append(out, v1.AMISelectorTerm{ID: id})
	}
	return out
}

// errDial is what an unreachable endpoint looks like.
var errDial = errors.New("dial tcp: lookup api.pricing.us-east-1.amazonaws.com: no such host")

// defaultProfile is the instance profile the provider manages for the
// "default" NodeClass of cluster prod in us-east-1 (written out, so a change
// of the naming scheme, which would orphan existing profiles, fails tests).
const defaultProfile = "tenon_prod_e17225dea66a4bd9"
