package convert

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const ec2NodeClassDefault = `
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: NodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
`

// TestFieldMapping converts one object per case and checks fields of the
// object at index (JSON paths, values as JSON), and the exact list of
// input fields reported as not mapped.
func TestFieldMapping(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		opts         Options
		index        int
		want         map[string]string // path -> JSON value; "absent" when it must not exist
		wantUnmapped []string
		wantIgnored  []string
	}{
		{
			name: "provisioner labels, requirements and annotations move to tenon.dev",
			in: `
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: default}
  labels: {karpenter.k8s.aws/instance-category: c, team: web, karpenter.sh/provisioner-name: x}
  annotations: {karpenter.sh/do-not-disrupt: "true", karpenter.sh/do-not-consolidate: "true", karpenter.sh/do-not-evict: "true", example.com/a: b}
  requirements:
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
    - {key: karpenter.sh/provisioner-name, operator: In, values: [x]}
    - {key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t3]}
    - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["33"]}
    - {key: karpenter.k8s.aws/instance-encryption-in-transit-supported, operator: In, values: ["true"]}
`,
			want: map[string]string{
				"apiVersion": `"tenon.dev/v1alpha5"`, "kind": `"Provisioner"`,
				"spec.labels":              `{"team":"web","tenon.dev/instance-category":"c"}`,
				"spec.annotations":         `{"example.com/a":"b","karpenter.sh/do-not-consolidate":"true","tenon.dev/do-not-disrupt":"true"}`,
				"spec.requirements[0]":     `{"key":"tenon.dev/capacity-type","operator":"In","values":["spot","on-demand"]}`,
				"spec.requirements[1].key": `"tenon.dev/instance-family"`,
				"spec.requirements[2]":     `{"key":"tenon.dev/instance-cpu","operator":"Lt","values":["33"]}`,
				"spec.requirements[3].key": `"tenon.dev/instance-encryption-in-transit"`,
				"spec.requirements[4]":     "absent",
				"spec.providerRef":         `{"name":"default"}`,
			},
			wantUnmapped: []string{"spec.labels[karpenter.sh/provisioner-name]", "spec.annotations[karpenter.sh/do-not-evict]", "spec.requirements[1]"},
		},
		{
			name: "provisioner lifetimes, limits, weight, consolidation and kubelet",
			in: `
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {apiVersion: karpenter.k8s.aws/v1alpha1, kind: AWSNodeTemplate, name: tmpl}
  ttlSecondsUntilExpired: 604800
  limits: {resources: {cpu: 100, memory: 400Gi}}
  weight: 7
  consolidation: {enabled: true}
  kubeletConfiguration: {containerRuntime: containerd, maxPods: 50, cpuCFSQuota: false, evictionSoft: {memory.available: 1Gi}, evictionSoftGracePeriod: {memory.available: 1m0s}}
  taints: [{key: a, value: b, effect: NoSchedule, timeAdded: "2024-01-01T00:00:00Z"}]
`,
			want: map[string]string{
				"spec.ttlSecondsUntilExpired": `604800`,
				"spec.limits":                 `{"resources":{"cpu":"100","memory":"400Gi"}}`,
				"spec.weight":                 `7`,
				"spec.consolidation":          `{"enabled":true}`,
				"spec.kubeletConfiguration":   `{"maxPods":50,"evictionSoft":{"memory.available":"1Gi"},"evictionSoftGracePeriod":{"memory.available":"1m"},"cpuCFSQuota":false}`,
				"spec.providerRef":            `{"name":"tmpl"}`,
				"spec.taints":                 `[{"key":"a","value":"b","effect":"NoSchedule"}]`,
			},
			wantUnmapped: []string{"spec.kubeletConfiguration.containerRuntime"},
			wantIgnored:  []string{"spec.taints[0].timeAdded"},
		},
		{
			name: "inline provider keeps tag selectors and reports the rest",
			opts: Options{DefaultInstanceProfile: "NodeProfile"},
			in: `
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: inline}
spec:
  ttlSecondsAfterEmpty: 60
  provider:
    amiFamily: Bottlerocket
    subnetSelector: {karpenter.sh/discovery: prod}
    securityGroupSelector: {aws-ids: sg-1, Name: nodes}
    amiSelector: {aws::name: my-ami}
    launchTemplate: my-template
    tags: {team: a}
`,
			want: map[string]string{
				"spec.provider":             `{"amiFamily":"Bottlerocket","instanceProfile":"NodeProfile","subnetSelector":{"karpenter.sh/discovery":"prod"},"securityGroupSelector":{"Name":"nodes"},"tags":{"team":"a"}}`,
				"spec.ttlSecondsAfterEmpty": `60`,
			},
			wantUnmapped: []string{"spec.provider.amiSelector[aws::name]", "spec.provider.securityGroupSelector[aws-ids]", "spec.provider.launchTemplate"},
		},
		{
			name: "v1 nodepool: template, disruption, limits, weight",
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  weight: 3
  limits: {cpu: "64", nvidia.com/gpu: 2}
  template:
    metadata:
      labels: {karpenter.sh/capacity-type: spot, team: a}
      annotations: {karpenter.sh/do-not-disrupt: "true"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 24h
      terminationGracePeriod: 1h0m0s
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [reserved, spot]}
        - {key: karpenter.sh/nodepool, operator: In, values: [pool]}
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, m6i, m7i], minValues: 2}
        - {key: karpenter.sh/capacity-type, operator: In, values: [reserved]}
      taints: [{key: dedicated, value: a, effect: NoSchedule}]
      startupTaints: [{key: cilium, effect: NoExecute}]
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
    budgets:
      - {nodes: "1", reasons: [Empty, Drifted]}
      - {nodes: "0", schedule: "@daily", duration: 1h30m0s}
` + ec2NodeClassDefault,
			want: map[string]string{
				"apiVersion": `"tenon.dev/v1"`, "kind": `"NodePool"`,
				"spec.weight":                                `3`,
				"spec.limits":                                `{"cpu":"64","nvidia.com/gpu":"2"}`,
				"spec.template.metadata":                     `{"labels":{"team":"a","tenon.dev/capacity-type":"spot"},"annotations":{"tenon.dev/do-not-disrupt":"true"}}`,
				"spec.template.spec.nodeClassRef":            `{"name":"default"}`,
				"spec.template.spec.expireAfter":             `"24h"`,
				"spec.template.spec.terminationGracePeriod":  `"1h"`,
				"spec.template.spec.requirements[0]":         `{"key":"tenon.dev/capacity-type","operator":"In","values":["reserved","spot"]}`,
				"spec.template.spec.requirements[1]":         `{"key":"tenon.dev/instance-family","operator":"In","values":["m5","m6i","m7i"],"minValues":2}`,
				"spec.template.spec.requirements[2]":         `{"key":"tenon.dev/capacity-type","operator":"In","values":["reserved"]}`,
				"spec.template.spec.taints[0].key":           `"dedicated"`,
				"spec.template.spec.startupTaints[0].effect": `"NoExecute"`,
				"spec.disruption.consolidationPolicy":        `"WhenEmpty"`,
				"spec.disruption.consolidateAfter":           `"30s"`,
				"spec.disruption.budgets":                    `[{"nodes":"1","reasons":["Empty","Drifted"]},{"nodes":"0","schedule":"@daily","duration":"1h30m"}]`,
			},
			wantUnmapped: []string{"spec.template.spec.requirements[1]"},
		},
		{
			name: "v1 nodepool: Balanced consolidation",
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: services}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidationPolicy: Balanced, consolidateAfter: 5m}
` + ec2NodeClassDefault,
			want: map[string]string{"spec.disruption.consolidationPolicy": `"Balanced"`, "spec.disruption.consolidateAfter": `"5m"`},
		},
		{
			name: "v1 static nodepool: replicas and limits.nodes",
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: baseline}
spec:
  replicas: 4
  limits: {nodes: "5"}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
` + ec2NodeClassDefault,
			want: map[string]string{
				"spec.replicas": `4`,
				"spec.limits":   `{"nodes":"5"}`,
				"spec.weight":   "absent",
			},
		},
		{
			name: "--node-repair: Karpenter's NodeRepair gate turns repair on in each NodePool, Unhealthy budgets and do-not-repair carry over",
			opts: Options{NodeRepair: true},
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    metadata:
      annotations: {karpenter.sh/do-not-repair: "true"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption:
    consolidateAfter: 1m
    budgets: [{nodes: "1", reasons: [Unhealthy]}]
`,
			want: map[string]string{
				"spec.disruption.repair":             `{"enabled":true}`,
				"spec.disruption.consolidateAfter":   `"1m"`,
				"spec.disruption.budgets[0]":         `{"nodes":"1","reasons":["Unhealthy"]}`,
				"spec.template.metadata.annotations": `{"tenon.dev/do-not-repair":"true"}`,
			},
		},
		{
			name: "--node-repair on a NodePool without a disruption block",
			opts: Options{NodeRepair: true},
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`,
			want: map[string]string{"spec.disruption": `{"consolidateAfter":"0s","repair":{"enabled":true}}`},
		},
		{
			name: "without --node-repair a NodePool does not repair",
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidateAfter: 1m}
`,
			want: map[string]string{"spec.disruption.repair": "absent"},
		},
		{
			name: "unknown fields are reported, not dropped",
			in: `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      futureField: 1
  disruption: {consolidateAfter: 0s, brandNew: {a: 1}}
  somethingElse: x
`,
			want:         map[string]string{"spec.disruption": `{"consolidateAfter":"0s"}`},
			wantUnmapped: []string{"spec.template.spec.futureField", "spec.disruption.brandNew", "spec.somethingElse"},
		},
		{
			name: "v1beta1 nodepool: WhenUnderutilized, expireAfter and kubelet move",
			in: `
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
      kubelet: {maxPods: 20}
      resources: {requests: {cpu: "1"}}
  disruption:
    consolidationPolicy: WhenUnderutilized
    expireAfter: 2160h
    budgets: [{nodes: 5%, schedule: "0 0 * * *", duration: 10m}]
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  role: NodeRole
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
`,
			want: map[string]string{
				"spec.disruption":                "{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\",\"consolidateAfter\":\"0s\",\"budgets\":[{\"nodes\":\"5%\",\"schedule\":\"0 0 * * *\",\"duration\":\"10m\"}]}",
				"spec.template.spec.expireAfter": `"2160h"`,
				"spec.template.spec.kubelet":     "absent",
			},
			wantUnmapped: []string{"spec.template.spec.resources"},
			wantIgnored:  []string{"spec.template.spec.kubelet"},
		},
		{
			name:  "v1beta1 kubelet lands on the referenced NodeClass",
			index: 1,
			in: `
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      kubelet: {maxPods: 20, clusterDNS: [10.0.0.10]}
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  role: NodeRole
  kubelet: {maxPods: 30}
`,
			want:         map[string]string{"spec.aws.kubelet": `{"clusterDNS":["10.0.0.10"],"maxPods":20}`},
			wantUnmapped: []string{"spec.kubelet"},
			wantIgnored:  []string{"spec.template.spec.kubelet"},
		},
		{
			name: "v1beta1 kubelet without its NodeClass is reported",
			in: `
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {name: elsewhere}
      kubelet: {maxPods: 20}
`,
			want:         map[string]string{"spec.template.spec.nodeClassRef.name": `"elsewhere"`},
			wantUnmapped: []string{"spec.template.spec.kubelet"},
		},
		{
			name:  "v1beta1 pools sharing a NodeClass with different kubelets are reported",
			index: 2,
			in: `
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: a}
spec: {template: {spec: {nodeClassRef: {name: default}, kubelet: {maxPods: 20}}}}
---
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: b}
spec: {template: {spec: {nodeClassRef: {name: default}, kubelet: {maxPods: 30}}}}
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec: {amiFamily: AL2023, role: NodeRole}
`,
			want:         map[string]string{"spec.aws.kubelet": "absent"},
			wantUnmapped: []string{"spec.template.spec.kubelet", "spec.template.spec.kubelet"},
		},
		{
			name: "v1 EC2NodeClass: alias, terms, disks, metadata options, kubelet, extras",
			in: `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc, labels: {team: a}}
spec:
  amiSelectorTerms: [{alias: bottlerocket@v1.20.0}]
  instanceProfile: Profile
  subnetSelectorTerms: [{id: subnet-1}, {tags: {a: "*"}}]
  securityGroupSelectorTerms: [{name: sg-name}, {id: sg-1}]
  capacityReservationSelectorTerms: [{id: cr-1}, {tags: {team: ml}, ownerID: "123456789012", instanceMatchCriteria: targeted}]
  tags: {team: a}
  blockDeviceMappings:
    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 20Gi, volumeType: gp3, kmsKeyID: k, snapshotID: snap-1, volumeInitializationRate: 100}}
  metadataOptions: {httpTokens: optional, httpPutResponseHopLimit: 2}
  kubelet: {podsPerCore: 4}
  userData: echo hi
  instanceStorePolicy: RAID0
  detailedMonitoring: true
  associatePublicIPAddress: false
  context: ctx
`,
			want: map[string]string{
				"apiVersion": `"tenon.dev/v1"`, "kind": `"NodeClass"`,
				"metadata.labels":                           `{"team":"a"}`,
				"spec.aws.amiFamily":                        `"Bottlerocket"`,
				"spec.aws.amiSelectorTerms":                 "absent",
				"spec.aws.instanceProfile":                  `"Profile"`,
				"spec.aws.subnetSelectorTerms":              `[{"id":"subnet-1"},{"tags":{"a":"*"}}]`,
				"spec.aws.securityGroupSelectorTerms":       `[{"name":"sg-name"},{"id":"sg-1"}]`,
				"spec.aws.capacityReservationSelectorTerms": `[{"id":"cr-1"},{"tags":{"team":"ml"},"ownerID":"123456789012","instanceMatchCriteria":"targeted"}]`,
				"spec.aws.blockDeviceMappings":              `[{"deviceName":"/dev/xvda","ebs":{"kmsKeyID":"k","snapshotID":"snap-1","volumeSize":"20Gi","volumeType":"gp3"},"rootVolume":true}]`,
				"spec.aws.metadataOptions":                  `{"httpPutResponseHopLimit":2,"httpTokens":"optional"}`,
				"spec.aws.kubelet":                          `{"podsPerCore":4}`,
				"spec.aws.userData":                         `"echo hi"`,
			},
			wantUnmapped: []string{
				"spec.amiSelectorTerms[0].alias",
				"spec.blockDeviceMappings[0].ebs.volumeInitializationRate",
				"spec.instanceStorePolicy", "spec.detailedMonitoring", "spec.associatePublicIPAddress", "spec.context",
			},
		},
		{
			name: "unsupported AMI families and aliases are reported",
			in: `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  amiFamily: AL2
  amiSelectorTerms: [{alias: windows2022@latest}, {id: ami-123}]
  role: R
`,
			want:         map[string]string{"spec.aws.amiFamily": "absent", "spec.aws.amiSelectorTerms": `[{"id":"ami-123"}]`},
			wantUnmapped: []string{"spec.amiFamily", "spec.amiSelectorTerms[0].alias"},
		},
		{
			name: "v1beta1 EC2NodeClass has no kubelet or alias",
			in: `
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  amiFamily: Custom
  amiSelectorTerms: [{name: my-ami-*, owner: "123456789012"}, {tags: {a: b}}]
  role: R
`,
			want: map[string]string{"spec.aws.amiFamily": `"Custom"`, "spec.aws.amiSelectorTerms": `[{"name":"my-ami-*","owner":"123456789012"},{"tags":{"a":"b"}}]`},
		},
		{
			name: "AWSNodeTemplate selectors become terms",
			opts: Options{DefaultInstanceProfile: "Fallback"},
			in: `
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: tmpl}
spec:
  subnetSelector: {aws-ids: "subnet-1, subnet-2"}
  securityGroupSelector: {aws-ids: sg-1, Name: x}
  amiSelector: {aws::name: "my-ami-*", aws::owners: "self,123456789012", team: a}
  launchTemplate: lt
  userData: hi
`,
			want: map[string]string{
				"spec.aws.amiFamily":                  "absent",
				"spec.aws.instanceProfile":            `"Fallback"`,
				"spec.aws.subnetSelectorTerms":        `[{"id":"subnet-1"},{"id":"subnet-2"}]`,
				"spec.aws.securityGroupSelectorTerms": `[{"id":"sg-1"}]`,
				"spec.aws.amiSelectorTerms":           `[{"tags":{"team":"a"},"name":"my-ami-*","owner":"self"},{"tags":{"team":"a"},"name":"my-ami-*","owner":"123456789012"}]`,
				"spec.aws.userData":                   `"hi"`,
			},
			wantUnmapped: []string{"spec.amiFamily", "spec.securityGroupSelector[Name]", "spec.launchTemplate"},
		},
		{
			name: "AWSNodeTemplate amiSelector by ID",
			in: `
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: tmpl}
spec:
  amiFamily: AL2023
  instanceProfile: P
  amiSelector: {aws::ids: "ami-1,ami-2", team: a}
`,
			want:         map[string]string{"spec.aws.amiSelectorTerms": `[{"id":"ami-1"},{"id":"ami-2"}]`},
			wantUnmapped: []string{"spec.amiSelector[team]"},
		},
		{
			name: "object metadata: Helm and server fields ignored, own labels kept",
			in: `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: nc
  namespace: ""
  uid: x
  resourceVersion: "1"
  labels: {helm.sh/chart: karpenter-1.0, app.kubernetes.io/managed-by: Helm, team: a}
  annotations: {meta.helm.sh/release-name: k, compatibility.karpenter.sh/v1beta1-kubelet-conversion: "{}"}
  ownerReferences: [{apiVersion: v1, kind: X, name: y, uid: z}]
spec: {amiFamily: AL2023, role: R}
status: {instanceProfile: x}
`,
			want:         map[string]string{"metadata.labels": `{"team":"a"}`, "metadata.annotations": "absent"},
			wantUnmapped: []string{"metadata.ownerReferences", "metadata.annotations[compatibility.karpenter.sh/v1beta1-kubelet-conversion]"},
			wantIgnored: []string{
				"metadata.namespace", "metadata.uid", "metadata.resourceVersion",
				"metadata.labels[app.kubernetes.io/managed-by]", "metadata.labels[helm.sh/chart]",
				"metadata.annotations[meta.helm.sh/release-name]", "status",
			},
		},
		{
			name: "cluster-name placeholders are replaced",
			opts: Options{ClusterName: "prod"},
			in: `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole-${CLUSTER_NAME}
  subnetSelectorTerms: [{tags: {kubernetes.io/cluster/$CLUSTER_NAME: owned}}]
`,
			want: map[string]string{
				"spec.aws.role":                "\"KarpenterNodeRole-prod\"",
				"spec.aws.subnetSelectorTerms": `[{"tags":{"kubernetes.io/cluster/prod":"owned"}}]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convertYAML(t, tt.in, tt.opts)
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if tt.index >= len(res.Objects) {
				t.Fatalf("got %d objects, want at least %d", len(res.Objects), tt.index+1)
			}
			obj := res.Objects[tt.index].Value
			for path, want := range tt.want {
				got, ok := lookup(t, obj, path)
				if want == "absent" {
					if ok {
						t.Errorf("%s = %v, want it absent", path, got)
					}
					continue
				}
				if !ok {
					t.Errorf("%s is absent, want %s", path, want)
					continue
				}
				raw, _ := json.Marshal(got)
				if !jsonEqual(t, string(raw), want) {
					t.Errorf("%s = %s, want %s", path, raw, want)
				}
			}
			if got := fields(res.Unmapped); !sameSet(got, tt.wantUnmapped) {
				t.Errorf("unmapped = %q, want %q", got, tt.wantUnmapped)
			}
			if tt.wantIgnored != nil {
				if got := fields(res.Ignored); !sameSet(got, tt.wantIgnored) {
					t.Errorf("ignored = %q, want %q", got, tt.wantIgnored)
				}
			}
			for _, f := range res.Unmapped {
				if f.File != "in.yaml" || f.Object == "" || f.Reason == "" {
					t.Errorf("finding %+v must name the file, the object and a reason", f)
				}
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("bad JSON in test %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestWarnsAboutPlaceholdersWithoutClusterName(t *testing.T) {
	res, err := convertYAML(t, `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec: {amiFamily: AL2023, role: "Role-${CLUSTER_NAME}"}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "spec.role") || !strings.Contains(res.Warnings[0], "--cluster-name") {
		t.Errorf("warnings = %q, want one naming spec.role and --cluster-name", res.Warnings)
	}
}

func TestSnake(t *testing.T) {
	tests := map[string]string{
		"amiFamily": "ami_family", "kmsKeyID": "kms_key_id", "snapshotID": "snapshot_id", "clusterDNS": "cluster_dns",
		"cpuCFSQuota": "cpu_cfs_quota", "httpProtocolIPv6": "http_protocol_ipv6", "imageGCHighThresholdPercent": "image_gc_high_threshold_percent",
		"httpPutResponseHopLimit": "http_put_response_hop_limit", "ttlSecondsAfterEmpty": "ttl_seconds_after_empty",
		"minValues": "min_values", "ssmParameter": "ssm_parameter", "weight": "weight", "id": "id", "evictionSoftGracePeriod": "eviction_soft_grace_period",
		"securityGroupSelectorTerms": "security_group_selector_terms", "rootVolume": "root_volume", "IOPS": "iops", "iops": "iops", "ownerID": "owner_id",
		"capacityReservationSelectorTerms": "capacity_reservation_selector_terms", "instanceMatchCriteria": "instance_match_criteria",
	}
	for in, want := range tests {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeDuration(t *testing.T) {
	// input -> its form for the s/m/h fields and for the h/m fields.
	tests := map[string]struct{ smh, hm string }{
		"720h":     {"720h", "720h"},
		"720h0m0s": {"720h", "720h"},
		"1h30m0s":  {"1h30m", "1h30m"},
		"1m0s":     {"1m", "1m"},
		"1h0m30s":  {"1h30s", "1h0m30s"},
		"1.5h":     {"1h30m", "1h30m"},
		"90s":      {"90s", "90s"},
		"0s":       {"0s", "0s"},
		"Never":    {"Never", "Never"},
		"500ms":    {"500ms", "500ms"},
		"soon":     {"soon", "soon"},
	}
	for in, want := range tests {
		if got := normalizeDuration(in, durationSMH); got != want.smh {
			t.Errorf("normalizeDuration(%q, s/m/h) = %q, want %q", in, got, want.smh)
		}
		if got := normalizeDuration(in, durationHM); got != want.hm {
			t.Errorf("normalizeDuration(%q, h/m) = %q, want %q", in, got, want.hm)
		}
	}
}
