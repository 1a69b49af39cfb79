package awse2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// TestAgentLaunchesIntoACapacityReservation: a NodeClass selecting an
// On-Demand Capacity Reservation of two m5.xlarge by tag, a pool allowing
// reserved and on-demand, and three pods of 3 CPU (one per m5.xlarge): the
// agent launches two instances into the reservation, through a launch
// template that targets it, and buys the third; the NodeClass status lists
// the reservation, and the reserved claims carry its ID.
func TestAgentLaunchesIntoACapacityReservation(t *testing.T) {
	cp := suite.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := kubeClient(t, cp)
	if err := kube.InstallCRDs(ctx, c); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}
	binary := buildAgent(ctx, t)
	resetCluster(ctx, t, c)

	fake := world(t, cp)
	const id = "cr-0a1b2c3d4e5f60718"
	fake.CapacityReservations = []ec2types.CapacityReservation{
		awsfake.Reservation(id, "m5.xlarge", "us-east-1a", 2, ec2types.CapacityReservationTypeDefault, time.Time{},
			ec2types.Tag{Key: aws.String("team"), Value: aws.String("web")}),
	}
	srv := awsfake.NewServer(fake)
	t.Cleanup(srv.Close)

	create(ctx, t, c, &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{
		AMIFamily: v1.AMIFamilyAL2023, Role: "node-role",
		CapacityReservationSelectorTerms: []v1.CapacityReservationSelectorTerm{{Tags: v1.SelectorTags{"team": "web"}}},
	}}})
	create(ctx, t, c, &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general"}, Spec: v1.NodePoolSpec{
		Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{
				{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"reserved", "on-demand"}},
				{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
			},
		}},
	}})
	log := startAgent(t, binary, cp.Kubeconfig, srv.URL())

	// No controller-manager runs; an earlier test may have made the ServiceAccount.
	if err := c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the default ServiceAccount: %v", err)
	}
	for i := range 3 {
		create(ctx, t, c, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}},
		})
	}

	var claims []v1.NodeClaim
	// A claim launched into the reservation is labelled with it right after
	// its launch is recorded.
	waitFor(t, log, 120*time.Second, "three launched NodeClaims, the reserved ones labelled", func() (bool, string) {
		var list v1.NodeClaimList
		if err := c.List(ctx, &list); err != nil {
			return false, err.Error()
		}
		claims = claims[:0]
		unlabelled := 0
		for _, cl := range list.Items {
			if cl.Status.ProviderID != "" {
				claims = append(claims, cl)
			}
			if cl.Status.CapacityType == v1.CapacityTypeReserved && cl.Labels[v1.LabelCapacityReservationID] == "" {
				unlabelled++
			}
		}
		return len(claims) >= 3 && unlabelled == 0, fmt.Sprintf("%d claims, %d launched, %d reserved without the label, %d CreateFleet requests",
			len(list.Items), len(claims), unlabelled, len(srv.Requests("CreateFleet")))
	})
	reserved := 0
	for _, cl := range claims {
		if cl.Status.CapacityType != v1.CapacityTypeReserved {
			continue
		}
		reserved++
		if cl.Labels[v1.LabelCapacityReservationID] != id || cl.Status.InstanceType != "m5.xlarge" || cl.Status.Zone != "us-east-1a" {
			t.Errorf("reserved claim %s: %s in %s, labels %v; want m5.xlarge in us-east-1a labelled %s", cl.Name, cl.Status.InstanceType, cl.Status.Zone, cl.Labels, id)
		}
	}
	inReservation := 0
	for _, inst := range fake.Instances() {
		if aws.ToString(inst.CapacityReservationId) == id {
			inReservation++
		}
	}
	if reserved != 2 || inReservation != 2 {
		t.Errorf("%d reserved claims and %d instances in %s, want 2 (the reservation's count)", reserved, inReservation, id)
	}
	targeted := 0
	for _, lt := range srv.Requests("CreateLaunchTemplate") {
		if lt.Form.Get("LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId") == id {
			targeted++
		}
	}
	if targeted == 0 {
		t.Error("no launch template targets the reservation")
	}
	waitFor(t, log, 30*time.Second, "the NodeClass status listing the reservation", func() (bool, string) {
		nc := &v1.NodeClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: "default"}, nc); err != nil {
			return false, err.Error()
		}
		rs := nc.Status.CapacityReservations
		return len(rs) == 1 && rs[0].ID == id && rs[0].InstanceType == "m5.xlarge", fmt.Sprintf("status reservations %+v", rs)
	})
}

// resetCluster removes what an earlier test of the package left on the
// shared control plane (its agent is gone, so nothing removes their
// finalizers): pods in the default namespace, NodeClaims, Nodes, NodePools
// and NodeClasses, so a test's agent plans on its own objects only.
func resetCluster(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	lists := []client.ObjectList{&corev1.PodList{}, &v1.NodeClaimList{}, &corev1.NodeList{}, &v1.NodePoolList{}, &v1.NodeClassList{}}
	for _, list := range lists {
		if err := c.List(ctx, list); err != nil {
			t.Fatalf("listing %T: %v", list, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range items {
			o := item.(client.Object)
			if len(o.GetFinalizers()) > 0 {
				patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
				o.SetFinalizers(nil)
				if err := c.Patch(ctx, o, patch); client.IgnoreNotFound(err) != nil {
					t.Fatalf("removing the finalizers of %T %s: %v", o, o.GetName(), err)
				}
			}
			if err := c.Delete(ctx, o, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
				t.Fatalf("deleting %T %s: %v", o, o.GetName(), err)
			}
		}
	}
	for _, list := range lists {
		waitGone(ctx, t, c, list)
	}
}

// waitGone waits (bounded) until list is empty.
func waitGone(ctx context.Context, t *testing.T, c client.Client, list client.ObjectList) {
	t.Helper()
	for range 100 {
		if err := c.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		if meta.LenList(list) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%T not empty after 10 s", list)
}
