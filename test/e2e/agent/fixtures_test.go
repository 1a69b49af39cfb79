package agent_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// splitDocs splits multi-document YAML.
func splitDocs(data string) []string {
	var out []string
	for _, d := range strings.Split(data, "\n---") {
		if strings.TrimSpace(d) != "" {
			out = append(out, d)
		}
	}
	return out
}

// apply creates every object of a multi-document YAML but the Scenario
// header, in namespace ns for namespaced kinds without one, and deletes
// them when the test ends.
func apply(t *testing.T, e env, ns, data string) {
	t.Helper()
	ctx := context.Background()
	for _, doc := range splitDocs(data) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("reading fixture: %v\n%s", err, doc)
		}
		if u.GetKind() == simulate.ScenarioKind || u.Object == nil {
			continue
		}
		switch u.GetKind() {
		case "Deployment", "Pod", "PodDisruptionBudget", "DaemonSet":
			if u.GetNamespace() == "" {
				u.SetNamespace(ns)
			}
		}
		if err := e.client.Create(ctx, u); err != nil {
			t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() {
			_ = e.client.Delete(context.Background(), u)
		})
	}
}

// namespace creates a namespace for one test.
func namespace(t *testing.T, e env, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := e.client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.client.Delete(context.Background(), ns) })
	return name
}

// scale sets a Deployment's replicas.
func scale(t *testing.T, e env, ns, name string, replicas int32) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		d := &appsv1.Deployment{}
		if err := e.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			t.Fatal(err)
		}
		d.Spec.Replicas = &replicas
		err := e.client.Update(ctx, d)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
	t.Fatalf("scaling %s/%s: too many conflicts", ns, name)
}

// poolNodes lists the nodes the agent launched for pool.
func poolNodes(t *testing.T, e env, pool string) []corev1.Node {
	t.Helper()
	var nodes corev1.NodeList
	if err := e.client.List(context.Background(), &nodes, client.MatchingLabels{v1.LabelNodePool: pool}); err != nil {
		t.Fatal(err)
	}
	return nodes.Items
}

// poolClaims lists the pool's NodeClaims.
func poolClaims(t *testing.T, e env, pool string) []v1.NodeClaim {
	t.Helper()
	var claims v1.NodeClaimList
	if err := e.client.List(context.Background(), &claims, client.MatchingLabels{v1.LabelNodePool: pool}); err != nil {
		t.Fatal(err)
	}
	return claims.Items
}

// instanceTypes returns the nodes' instance types, sorted.
func instanceTypes(nodes []corev1.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.Labels[corev1.LabelInstanceTypeStable])
	}
	sort.Strings(out)
	return out
}

// podsOf lists the pods of ns matching selector (a label selector such as
// "app=web"); a bad selector fails the test.
func podsOf(t *testing.T, e env, ns, selector string) (*corev1.PodList, error) {
	t.Helper()
	sel, err := labels.Parse(selector)
	if err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	err = e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel})
	return &pods, err
}

// runningOn counts the pods of ns matching selector that are Running on a
// node of pool, and describes every pod.
func runningOn(t *testing.T, e env, ns, selector, pool string) (int, int, string) {
	t.Helper()
	pods, err := podsOf(t, e, ns, selector)
	if err != nil {
		return 0, 0, err.Error()
	}
	nodes := map[string]bool{}
	for _, n := range poolNodes(t, e, pool) {
		nodes[n.Name] = true
	}
	running := 0
	var states []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		states = append(states, fmt.Sprintf("%s %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName))
		if p.Status.Phase == corev1.PodRunning && nodes[p.Spec.NodeName] {
			running++
		}
	}
	return running, len(states), strings.Join(states, ", ")
}

// predictedTypes runs `tenon simulate`'s engine on the scenario and returns
// the instance types of the nodes it would launch, sorted.
func predictedTypes(t *testing.T, scenario string) []string {
	t.Helper()
	rep := simulateReport(t, scenario)
	var out []string
	for _, n := range rep.Nodes {
		if !n.Existing {
			out = append(out, n.InstanceType)
		}
	}
	sort.Strings(out)
	return out
}

// simulateReport runs `tenon simulate`'s engine on a scenario.
func simulateReport(t *testing.T, scenario string) *simulate.Report {
	t.Helper()
	s, err := simulate.Parse(simulate.File{Name: "scenario.yaml", Data: []byte(scenario)})
	if err != nil {
		t.Fatalf("parsing the scenario: %v", err)
	}
	rep, err := s.Simulate(context.Background())
	if err != nil {
		t.Fatalf("simulating: %v", err)
	}
	return rep
}

// cleanupPool deletes the namespace's Deployments and the pool's claims (the
// agent drains and removes the nodes) and waits until no node of the pool
// is left. Register it after startAgent, so that it runs (cleanups run last
// first) while the agent still does.
func cleanupPool(t *testing.T, e env, ns, pool string) {
	t.Cleanup(func() {
		ctx := context.Background()
		_ = e.client.DeleteAllOf(ctx, &appsv1.Deployment{}, client.InNamespace(ns))
		for _, c := range poolClaims(t, e, pool) {
			_ = e.client.Delete(ctx, &c)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if len(poolNodes(t, e, pool)) == 0 && len(poolClaims(t, e, pool)) == 0 {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Errorf("cleanup: pool %s still has nodes %v / claims after 60s", pool, instanceTypes(poolNodes(t, e, pool)))
	})
}

// describeClaims summarises the pool's claims and their conditions, for
// failure messages.
func describeClaims(t *testing.T, e env, pool string) string {
	t.Helper()
	var out []string
	for _, c := range poolClaims(t, e, pool) {
		var conds []string
		for _, cond := range c.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s@%s", cond.Type, cond.Status, cond.LastTransitionTime.Format("15:04:05")))
		}
		out = append(out, fmt.Sprintf("%s[%s deleting=%v]", c.Name, strings.Join(conds, " "), c.DeletionTimestamp != nil))
	}
	return strings.Join(out, "; ")
}

// eventsFor returns the messages of the events about a pod with reason.
func eventsFor(t *testing.T, e env, ns, pod, reason string) []string {
	t.Helper()
	return eventMessages(t, e, ns, "involvedObject.name="+pod, reason)
}

// eventMessages returns the distinct messages of the events in ns ("" for
// all) matching the field selector, with reason.
func eventMessages(t *testing.T, e env, ns, selector, reason string) []string {
	t.Helper()
	evs, err := e.kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs.Items {
		if ev.Reason == reason && !slices.Contains(out, ev.Message) {
			out = append(out, ev.Message)
		}
	}
	return out
}
