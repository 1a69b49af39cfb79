package fake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/fake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func claim(name string, types []string, zones []string, capacityTypes ...string) *v1.NodeClaim {
	reqs := []v1.NodeSelectorRequirementWithMinValues{
		{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: types},
	}
	if len(zones) > 0 {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones})
	}
	if len(capacityTypes) > 0 {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes})
	}
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodeClaimSpec{
			Requirements: reqs,
			Resources:    v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
		},
	}
}

func TestCreatePicksInOrderAndFallsBackOnShortage(t *testing.T) {
	ctx := context.Background()
	p, err := fake.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		claim    *v1.NodeClaim
		shortage []cloud.Offering
		wantType string
		wantZone string
		wantCT   string
		wantICE  bool
	}{
		{
			name:     "first listed type, its cheapest allowed offering",
			claim:    claim("a", []string{"m5.xlarge", "m5.large"}, []string{"us-east-1b"}, "on-demand"),
			wantType: "m5.xlarge", wantZone: "us-east-1b", wantCT: "on-demand",
		},
		{
			name:     "shortage on the first type moves to the next",
			claim:    claim("b", []string{"m5.xlarge", "m5.large"}, []string{"us-east-1b"}, "on-demand"),
			shortage: []cloud.Offering{{InstanceType: "m5.xlarge", Zone: "us-east-1b", CapacityType: "on-demand"}},
			wantType: "m5.large", wantZone: "us-east-1b", wantCT: "on-demand",
		},
		{
			name:  "shortage everywhere is insufficient capacity",
			claim: claim("c", []string{"m5.large"}, []string{"us-east-1a"}, "spot"),
			shortage: []cloud.Offering{
				{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot"},
			},
			wantICE: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.Reset()
			for _, o := range tc.shortage {
				p.SetShortage(o, true)
			}
			got, err := p.Create(ctx, tc.claim)
			if tc.wantICE {
				if !cloud.IsInsufficientCapacity(err) {
					t.Fatalf("Create error = %v, want insufficient capacity", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.InstanceType != tc.wantType || got.Status.Zone != tc.wantZone || got.Status.CapacityType != tc.wantCT {
				t.Errorf("launched %s/%s/%s, want %s/%s/%s", got.Status.InstanceType, got.Status.Zone, got.Status.CapacityType, tc.wantType, tc.wantZone, tc.wantCT)
			}
			if got.Status.ProviderID != "fake://"+tc.claim.Name || got.Status.Allocatable.Cpu().IsZero() {
				t.Errorf("status not filled: %+v", got.Status)
			}
		})
	}
}

func TestCreateIsIdempotentAndDeleteReportsNotFound(t *testing.T) {
	ctx := context.Background()
	p, err := fake.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := claim("a", []string{"m5.large"}, nil)
	first, err := p.Create(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	// A shortage after the launch must not matter: the instance exists.
	p.SetShortage(cloud.Offering{InstanceType: first.Status.InstanceType, Zone: first.Status.Zone, CapacityType: first.Status.CapacityType}, true)
	second, err := p.Create(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status.ProviderID != second.Status.ProviderID || first.Status.Zone != second.Status.Zone || first.Status.InstanceType != second.Status.InstanceType {
		t.Errorf("second Create launched another instance: %+v vs %+v", first.Status, second.Status)
	}
	list, err := p.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %d instances, %v; want 1", len(list), err)
	}
	if err := p.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := p.Delete(ctx, first); !cloud.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}
	if _, err := p.Get(ctx, first.Status.ProviderID); !cloud.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want NotFound", err)
	}
	if n := p.CallCount(fake.MethodCreate); n != 2 {
		t.Errorf("Create calls = %d, want 2", n)
	}
}

func TestKnobs(t *testing.T) {
	ctx := context.Background()
	p, err := fake.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	p.SetNextError(fake.MethodCreate, boom)
	if _, err := p.Create(ctx, claim("a", []string{"m5.large"}, nil)); !errors.Is(err, boom) {
		t.Fatalf("first Create = %v, want boom", err)
	}
	if _, err := p.Create(ctx, claim("a", []string{"m5.large"}, nil)); err != nil {
		t.Fatalf("the error is for one call only: %v", err)
	}
	p.SetDrift("fake://a", cloud.DriftImage)
	if r, err := p.IsDrifted(ctx, &v1.NodeClaim{Status: v1.NodeClaimStatus{ProviderID: "fake://a"}}); err != nil || r != cloud.DriftImage {
		t.Errorf("IsDrifted = %q, %v", r, err)
	}
	p.SetLatency(time.Minute)
	short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if _, err := p.List(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("List with latency past the deadline = %v", err)
	}
	p.Reset()
	if len(p.Calls()) != 0 {
		t.Errorf("Reset kept calls")
	}
	if list, _ := p.List(ctx); len(list) != 0 {
		t.Errorf("Reset kept instances")
	}
}

func TestInterruptionsStayUntilDone(t *testing.T) {
	ctx := context.Background()
	s := fake.NewInterruptions()
	s.Wait = 10 * time.Millisecond
	if evs, err := s.Receive(ctx); err != nil || len(evs) != 0 {
		t.Fatalf("empty Receive = %v, %v", evs, err)
	}
	s.Send(cloud.Interruption{Kind: cloud.SpotInterruption, ProviderID: "fake://a"})
	evs, err := s.Receive(ctx)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Receive = %v, %v", evs, err)
	}
	if again, _ := s.Receive(ctx); len(again) != 1 {
		t.Fatalf("an event not Done must be delivered again")
	}
	if err := s.Done(ctx, evs[0]); err != nil {
		t.Fatal(err)
	}
	if left := s.Pending(); len(left) != 0 {
		t.Errorf("Done left %v", left)
	}
}
