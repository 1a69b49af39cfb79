package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestKarpenterWorkloadRunsUnchanged runs examples/karpenter-workload, the
// manifests of a workload written for Karpenter (node selectors and
// affinities on karpenter.sh/* and karpenter.k8s.aws/* labels), through
// `tenon simulate` unchanged: every pod is placed, and each node's labels
// with the Karpenter aliases the agent and KWOK add satisfy its pods'
// selectors read literally, as kube-scheduler reads them.
func TestKarpenterWorkloadRunsUnchanged(t *testing.T) {
	requirePacking(t)
	dir := filepath.Join("..", "..", "examples", "karpenter-workload")
	files := []string{filepath.Join(dir, "workload.yaml"), filepath.Join(dir, "policy.yaml")}
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	if code := c.run(context.Background(), []string{"-f", files[0], "-f", files[1], "-o", "json", "--check"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var report Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(report.Unschedulable) > 0 {
		t.Fatalf("pods written for Karpenter left pending: %+v", report.Unschedulable)
	}
	sc, err := Load(files...)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := sc.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]*state.Pod{}
	for _, p := range snap.PendingPods() {
		pods[p.Key()] = p
	}
	placed := 0
	for _, n := range report.Nodes {
		nodeLabels := maps.Clone(n.Labels)
		maps.Copy(nodeLabels, scheduling.KarpenterAliases(nodeLabels))
		for _, key := range n.Pods {
			placed++
			if why := kubeSchedulerRefuses(pods[key], nodeLabels); why != "" {
				t.Errorf("pod %s on %s (%s): %s; node labels %v", key, n.Name, n.InstanceType, why, nodeLabels)
			}
		}
	}
	if placed != len(pods) || placed == 0 {
		t.Errorf("%d of %d pods placed", placed, len(pods))
	}
}

// kubeSchedulerRefuses says why kube-scheduler would not bind pod to a
// node with these labels (its nodeSelector and required node affinity,
// keys read literally), or "".
func kubeSchedulerRefuses(pod *state.Pod, nodeLabels map[string]string) string {
	if pod == nil {
		return "not a pod of the scenario"
	}
	if !labels.SelectorFromSet(pod.NodeSelector).Matches(labels.Set(nodeLabels)) {
		return "nodeSelector " + labels.SelectorFromSet(pod.NodeSelector).String() + " does not match"
	}
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var whys []string
	for _, term := range pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		sel := labels.NewSelector()
		for _, e := range term.MatchExpressions {
			op := map[corev1.NodeSelectorOperator]selection.Operator{
				corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
				corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
				corev1.NodeSelectorOpGt: selection.GreaterThan, corev1.NodeSelectorOpLt: selection.LessThan,
			}[e.Operator]
			r, err := labels.NewRequirement(e.Key, op, e.Values)
			if err != nil {
				return err.Error()
			}
			sel = sel.Add(*r)
		}
		if sel.Matches(labels.Set(nodeLabels)) {
			return ""
		}
		whys = append(whys, sel.String())
	}
	return "no required node affinity term matches: " + strings.Join(whys, " | ")
}
