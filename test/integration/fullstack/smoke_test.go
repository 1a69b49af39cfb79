// Package fullstack_test is the smoke test of the whole local stack Tenon's end-to-end tests and
// demo run on: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and KWOK, as
// `make testbin` builds them.
package fullstack_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// suite is the whole stack, started by the first test that needs it.
var suite = controlplane.NewSuite(controlplane.Options{ControllerManager: true, Scheduler: true, KWOK: true})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// TestDeploymentRunsOnAKWOKNode: a Deployment's pods wait Pending while there is no node, a
// Node handed to KWOK becomes Ready, and the scheduler binds the pods to it, where KWOK runs
// them.
func TestDeploymentRunsOnAKWOKNode(t *testing.T) {
	c := suite.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "smoke"}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const replicas = 3
	if _, err := client.AppsV1().Deployments("smoke").Create(ctx, deployment(replicas), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The controller manager makes the pods (once it has made the namespace's default service
	// account); the scheduler finds no node for them.
	waitFor(ctx, t, "3 pods Pending and unschedulable", func() (bool, string) {
		pods, err := client.CoreV1().Pods("smoke").List(ctx, metav1.ListOptions{LabelSelector: "app=smoke"})
		if err != nil {
			return false, err.Error()
		}
		unschedulable := 0
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "" &&
					cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
					unschedulable++
				}
			}
		}
		return unschedulable == replicas, fmt.Sprintf("%d of %d pods unschedulable", unschedulable, len(pods.Items))
	})

	if _, err := client.CoreV1().Nodes().Create(ctx, kwokNode("kwok-node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the KWOK node Ready", func() (bool, string) {
		node, err := client.CoreV1().Nodes().Get(ctx, "kwok-node-0", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s, taints %v", cond.Status, node.Spec.Taints)
			}
		}
		return false, "no Ready condition yet"
	})

	waitFor(ctx, t, "3 pods Running on the KWOK node", func() (bool, string) {
		pods, err := client.CoreV1().Pods("smoke").List(ctx, metav1.ListOptions{LabelSelector: "app=smoke"})
		if err != nil {
			return false, err.Error()
		}
		running := 0
		var states []string
		for _, p := range pods.Items {
			states = append(states, fmt.Sprintf("%s %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName))
			if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName == "kwok-node-0" {
				running++
			}
		}
		return running == replicas, fmt.Sprint(states)
	})
	waitFor(ctx, t, "the Deployment available", func() (bool, string) {
		d, err := client.AppsV1().Deployments("smoke").Get(ctx, "smoke", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return d.Status.AvailableReplicas == replicas, fmt.Sprintf("%d available", d.Status.AvailableReplicas)
	})
}

func deployment(replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "smoke"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "app",
						Image: "registry.invalid/smoke:1", // KWOK runs no container, so nothing is pulled
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("500m"),
							corev1.ResourceMemory: resource.MustParse("256Mi"),
						}},
					}},
				},
			},
		},
	}
}

// kwokNode is a Node KWOK manages: it carries the annotation KWOK selects on, and KWOK keeps its
// status and lease as a kubelet would.
func kwokNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{controlplane.KWOKNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// waitFor polls cond until it holds, failing the test with cond's last word at the deadline.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	for {
		ok, state := cond()
		if ok {
			t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond))
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; last: %s", what, ctx.Err(), state)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
