package badinput

import (
	"fmt"
	"strings"
)

// scenarioBase is a valid scenario of 3 pods: a Deployment of 2 replicas
// and a Job of parallelism 1, on one pool. The cases change one thing in it.
const scenarioBase = `apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  limits: {cpu: "1000", memory: 4000Gi}
  template:
    metadata: {labels: {team: web}}
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: {requests: {cpu: 500m, memory: 1Gi}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: default}
spec:
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: registry.k8s.io/pause:3.10
          resources: {requests: {cpu: 250m}}
`

// scenarioPods is how many pods scenarioBase holds.
const scenarioPods = 3

// karpenterBase is a valid Karpenter policy of 2 objects: a v1 NodePool
// and its EC2NodeClass.
const karpenterBase = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np, labels: {team: web}, annotations: {owner: platform}}
spec:
  weight: 10
  limits: {cpu: "400", memory: 1000Gi}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["5"]}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: TenonNodeRole-prod
  subnetSelectorTerms: [{tags: {tenon.dev/discovery: prod}}]
  securityGroupSelectorTerms: [{tags: {tenon.dev/discovery: prod}}]
  kubelet: {maxPods: 110, systemReserved: {cpu: 100m, memory: 100Mi}}
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 100Gi, volumeType: gp3}
`

// karpenterObjects is how many objects karpenterBase holds.
const karpenterObjects = 2

// sub returns s with the first old replaced by new; old must be there.
func sub(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic(fmt.Sprintf("badinput: %q is not in the base", old))
	}
	return strings.Replace(s, old, new, 1)
}

// deployment is the Deployment document of scenarioBase with old replaced.
func withDeployment(old, new string) string { return sub(scenarioBase, old, new) }

// podSpecWith adds lines (indented as the Deployment's pod spec) to the
// Deployment's pod template.
func podSpecWith(lines string) string {
	return sub(scenarioBase, "    spec:\n      containers:\n        - name: app", "    spec:\n"+indent(lines, "      ")+"      containers:\n        - name: app")
}

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	var sb strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			sb.WriteString(pre + l)
		}
	}
	return sb.String()
}

// Wants: where the base's objects are named in errors.
const (
	wantDeployment = "Deployment default/web: "
	wantJob        = "Job default/batch: "
	wantPool       = "NodePool default: "
	wantPodSpec    = wantDeployment + "spec.template.spec."
	wantKPool      = "NodePool np: "
	wantKClass     = "EC2NodeClass default: "
)
