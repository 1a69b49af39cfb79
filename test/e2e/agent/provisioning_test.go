package agent_test

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// inflateScenario is the test 1: a Provisioner allowing spot and
// on-demand whose nodes go 5 s after they empty, and inflate, five pods of
// 1 CPU. The same text feeds `tenon simulate` and the cluster.
const inflateScenario = `
apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata:
  name: inflate
spec:
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata:
  name: inflate
spec:
  kwok: {}
---
apiVersion: tenon.dev/v1alpha5
kind: Provisioner
metadata:
  name: inflate
spec:
  providerRef:
    name: inflate
  requirements:
    - key: tenon.dev/capacity-type
      operator: In
      values: [spot, on-demand]
    - key: kubernetes.io/arch
      operator: In
      values: [amd64]
  ttlSecondsAfterEmpty: 5
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: inflate
  namespace: inflate
spec:
  replicas: 5
  selector:
    matchLabels:
      app: inflate
  template:
    metadata:
      labels:
        app: inflate
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: inflate
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: "1"
`

// TestInflateScalesUpAndDown is the e2e test 1: inflate 0 → 5 runs
// every pod on agent-launched nodes within 20 s, on the instance types
// `tenon simulate` predicts; 5 → 0 removes every node within 20 s after
// the 5 s TTL.
func TestInflateScalesUpAndDown(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "inflate")
	want := predictedTypes(t, inflateScenario)
	// The cluster starts at zero replicas; the test scales.
	apply(t, e, ns, strings.Replace(inflateScenario, "replicas: 5", "replicas: 0", 1))
	startAgent(t, e, "inflate")
	cleanupPool(t, e, ns, "inflate")

	scale(t, e, ns, "inflate", 5)
	up := waitFor(t, 20*time.Second, "5 inflate pods Running on agent nodes", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=inflate", "inflate")
		return running == 5, states
	})
	got := instanceTypes(poolNodes(t, e, "inflate"))
	if !slices.Equal(got, want) {
		t.Errorf("launched instance types %v, tenon simulate predicts %v", got, want)
	}
	t.Logf("scale-up: 5 pods Running in %s on %v", up.Round(100*time.Millisecond), got)

	scale(t, e, ns, "inflate", 0)
	waitFor(t, 5*time.Second+20*time.Second, "every inflate node gone after the 5 s TTL", func() (bool, string) {
		nodes := poolNodes(t, e, "inflate")
		return len(nodes) == 0, strings.Join(instanceTypes(nodes), ",") + "; claims: " + describeClaims(t, e, "inflate")
	})
}
