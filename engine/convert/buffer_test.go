package convert

import (
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

const bufferPools = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: batch}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
` + ec2NodeClassDefault

const bufferWorkload = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: prod}
spec:
  replicas: 10
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      nodeSelector: {karpenter.sh/nodepool: web}
      containers:
        - {name: api, image: api, resources: {requests: {cpu: 500m, memory: 1Gi}}}
`

// TestConvertCapacityBuffer: a CapacityBuffer becomes the buffer of the NodePool its pods would
// run in, with their requests and the size the upstream API gives (the smallest of replicas,
// percentage of the workload's replicas and limits), or an error naming what to change.
func TestConvertCapacityBuffer(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		pool   string
		pods   int32
		errors []string
	}{
		{name: "percentage of a Deployment, capped by replicas", in: bufferPools + "---" + bufferWorkload + `---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: api-buffer, namespace: prod}
spec:
  provisioningStrategy: buffer.x-k8s.io/active-capacity
  scalableRef: {apiGroup: apps, kind: Deployment, name: api}
  percentage: 20
  replicas: 5
`, pool: "web", pods: 2},
		{name: "a PodTemplate within limits", in: bufferPools + `---
apiVersion: v1
kind: PodTemplate
metadata: {name: worker, namespace: prod}
template:
  spec:
    nodeSelector: {karpenter.sh/nodepool: batch}
    containers: [{name: w, image: w, resources: {requests: {cpu: "2", memory: 4Gi}}}]
---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata: {name: worker-buffer, namespace: prod}
spec:
  podTemplateRef: {name: worker}
  limits: {cpu: "20", memory: 12Gi}
`, pool: "batch", pods: 3},
		{name: "the referenced workload is not in the input", in: bufferPools + `---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: prod}
spec:
  scalableRef: {kind: Deployment, name: missing}
  replicas: 2
`, errors: []string{`spec.scalableRef: Deployment "missing" in namespace prod is not in the input: pass its manifest with -f too`}},
		{name: "no pool named and two pools", in: bufferPools + `---
apiVersion: v1
kind: PodTemplate
metadata: {name: t}
template:
  spec:
    containers: [{name: w, image: w, resources: {requests: {cpu: "1"}}}]
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b}
spec:
  podTemplateRef: {name: t}
  replicas: 2
`, errors: []string{"no NodePool for the buffer: give the pod template a nodeSelector karpenter.sh/nodepool"}},
		{name: "another strategy", in: bufferPools + "---" + bufferWorkload + `---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: prod}
spec:
  provisioningStrategy: example.com/one-shot
  scalableRef: {kind: Deployment, name: api}
  replicas: 2
`, errors: []string{`spec.provisioningStrategy: unsupported: Tenon keeps buffers as buffer.x-k8s.io/active-capacity does`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := convertYAML(t, tc.in, Options{})
			if len(tc.errors) > 0 {
				if err == nil {
					t.Fatal("Convert succeeded, want an error")
				}
				for _, want := range tc.errors {
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("error %q does not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got *v1.CapacityBuffer
			for _, o := range res.Objects {
				if np, ok := o.Value.(*v1.NodePool); ok {
					if np.Name == tc.pool {
						got = np.Spec.Buffer
					} else if np.Spec.Buffer != nil {
						t.Fatalf("pool %s got a buffer too", np.Name)
					}
				}
			}
			if got == nil || got.Pods == nil || *got.Pods != tc.pods || len(got.Resources) == 0 {
				t.Fatalf("pool %s's buffer is %+v, want %d pods", tc.pool, got, tc.pods)
			}
		})
	}
}
