package kwok_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/kwok"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func newProvider(t *testing.T, opts kwok.Options) (*kwok.Provider, client.Client) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := crfake.NewClientBuilder().WithScheme(scheme).Build()
	if opts.ClusterName == "" {
		opts.ClusterName = "test"
	}
	p, err := kwok.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

func claim(name string) *v1.NodeClaim {
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelNodePool: "default", "team": "a"}},
		Spec: v1.NodeClaimSpec{
			Requirements: []v1.NodeSelectorRequirementWithMinValues{
				{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"}},
				{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1b"}},
				{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}},
			},
			Taints:        []v1.Taint{{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			StartupTaints: []v1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoSchedule}},
			Resources:     v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			NodeClassRef:  &v1.NodeClassReference{Name: "kwok"},
		},
	}
}

func TestCreateMakesALabelledKWOKNodeOnce(t *testing.T) {
	ctx := context.Background()
	p, c := newProvider(t, kwok.Options{Region: "us-east-1", Zones: []string{"us-east-1a", "us-east-1b"}})
	got, err := p.Create(ctx, claim("default-abc"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ProviderID != "kwok://default-abc" || got.Status.InstanceType != "m5.large" || got.Status.Zone != "us-east-1b" {
		t.Errorf("status = %+v", got.Status)
	}
	cat, err := catalog.New(catalog.WithRegion("us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cat.Get("m5.large")
	var node corev1.Node
	if err := c.Get(ctx, client.ObjectKey{Name: "default-abc"}, &node); err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]string{
		scheduling.LabelInstanceType:   "m5.large",
		scheduling.LabelTopologyZone:   "us-east-1b",
		scheduling.LabelTopologyRegion: "us-east-1",
		scheduling.LabelCapacityType:   got.Status.CapacityType,
		scheduling.LabelHostname:       "default-abc",
		scheduling.LabelArch:           "amd64",
		scheduling.LabelOS:             "linux",
		scheduling.LabelNodePool:       "default",
		scheduling.LabelInstanceFamily: "m5",
		scheduling.LabelInstanceSize:   "large",
		scheduling.LabelInstanceCPU:    "2",
		"team":                         "a",
		// Karpenter's aliases of the well-known labels.
		"karpenter.sh/capacity-type":        got.Status.CapacityType,
		"karpenter.sh/nodepool":             "default",
		"karpenter.k8s.aws/instance-family": "m5",
		"karpenter.k8s.aws/instance-cpu":    "2",
	} {
		if node.Labels[key] != value {
			t.Errorf("label %s = %q, want %q", key, node.Labels[key], value)
		}
	}
	if node.Annotations[kwok.AnnotationKWOKNode] != "fake" || node.Spec.ProviderID != "kwok://default-abc" {
		t.Errorf("annotations %v, provider ID %q", node.Annotations, node.Spec.ProviderID)
	}
	if len(node.Spec.Taints) != 2 {
		t.Errorf("taints = %v, want the taint and the startup taint", node.Spec.Taints)
	}
	if !node.Status.Allocatable.Cpu().Equal(*want.Allocatable.Cpu()) || !node.Status.Capacity.Memory().Equal(*want.Capacity.Memory()) {
		t.Errorf("node resources %v / %v, want the catalog's", node.Status.Capacity, node.Status.Allocatable)
	}

	again, err := p.Create(ctx, claim("default-abc"))
	if err != nil || again.Status.ProviderID != got.Status.ProviderID || again.Status.InstanceType != "m5.large" {
		t.Fatalf("second Create = %+v, %v", again, err)
	}
	list, err := p.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %d, %v; want 1 (Create is idempotent)", len(list), err)
	}
	if err := p.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := p.Delete(ctx, got); !cloud.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}
}

func TestListIgnoresOtherNodes(t *testing.T) {
	ctx := context.Background()
	p, c := newProvider(t, kwok.Options{})
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "other", Annotations: map[string]string{kwok.AnnotationKWOKNode: "fake", kwok.AnnotationCluster: "another"}},
		Spec: corev1.NodeSpec{ProviderID: "kwok://other"}}
	if err := c.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if list, err := p.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v; want none (another cluster's node)", list, err)
	}
	if _, err := p.Get(ctx, "kwok://other"); !cloud.IsNotFound(err) {
		t.Errorf("Get of another cluster's node = %v, want NotFound", err)
	}
}

func TestLaunchDelayHonoursContext(t *testing.T) {
	p, _ := newProvider(t, kwok.Options{LaunchDelay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	c := claim("slow")
	c.Spec.Requirements = c.Spec.Requirements[:1]
	if _, err := p.Create(ctx, c); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Create = %v, want the deadline", err)
	}
}

func TestReady(t *testing.T) {
	p, _ := newProvider(t, kwok.Options{})
	cases := []struct {
		name  string
		class *v1.NodeClass
		ready bool
	}{
		{"kwok class", &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "k"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}, true},
		{"aws class", &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{}}}, false},
		{"no class", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Ready(tc.class)
			if (err == nil) != tc.ready {
				t.Errorf("Ready = %v, want ready %v", err, tc.ready)
			}
			if err != nil && !cloud.IsNodeClassNotReady(err) {
				t.Errorf("error %v is not a NodeClassNotReadyError", err)
			}
			_, err = p.InstanceTypes(context.Background(), &state.Pool{Name: "p", Class: tc.class})
			if (err == nil) != tc.ready {
				t.Errorf("InstanceTypes error = %v, want ready %v", err, tc.ready)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	c := crfake.NewClientBuilder().Build()
	if _, err := kwok.New(c, kwok.Options{}); err == nil {
		t.Error("New without a cluster name succeeded")
	}
	if _, err := kwok.New(c, kwok.Options{ClusterName: "x", Region: "us-east-1", Zones: []string{"eu-west-1a"}}); err == nil {
		t.Error("New with a zone outside the region succeeded")
	}
}

func TestInterruptionSourceDeliversUntilDone(t *testing.T) {
	ctx := context.Background()
	p, c := newProvider(t, kwok.Options{})
	launched, err := p.Create(ctx, claim("victim"))
	if err != nil {
		t.Fatal(err)
	}
	src := p.InterruptionSource()
	var node corev1.Node
	if err := c.Get(ctx, client.ObjectKey{Name: "victim"}, &node); err != nil {
		t.Fatal(err)
	}
	node.Annotations[kwok.AnnotationInterruption] = string(cloud.SpotInterruption)
	if err := c.Update(ctx, &node); err != nil {
		t.Fatal(err)
	}
	evs, err := src.Receive(ctx)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Receive = %v, %v; want one event", evs, err)
	}
	ev := evs[0]
	if ev.Kind != cloud.SpotInterruption || ev.ProviderID != launched.Status.ProviderID || ev.Deadline.Sub(ev.Time) != 2*time.Minute {
		t.Errorf("event %+v", ev)
	}
	if err := src.Done(ctx, ev); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if evs, err := src.Receive(short); err != nil || len(evs) != 0 {
		t.Errorf("after Done: %v, %v; want nothing", evs, err)
	}
}
