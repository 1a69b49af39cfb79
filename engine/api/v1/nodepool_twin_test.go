package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

const nodePoolBase = `
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
`

const (
	req  = "spec.template.spec.requirements[0]"
	tmpl = "spec.template.spec"
)

func TestNodePoolTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodepools.yaml", runTwins[v1.NodePool](t, "tenon.dev_nodepools.yaml", nodePoolBase, nodePoolTwins))
}

var nodePoolTwins = []twin{
	// Valid objects.
	{name: "minimal"},
	{name: "everything set", patch: `
spec:
  template:
    metadata:
      labels: {team: payments, tenon.dev/capacity-type: spot, topology.kubernetes.io/zone: eu-west-1a, node.kubernetes.io/role: worker}
      annotations: {example.com/owner: platform}
    spec:
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge], minValues: 2}
      - {key: tenon.dev/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: kubernetes.io/arch, operator: NotIn, values: [arm64]}
      - {key: tenon.dev/instance-family, operator: Exists, minValues: 3}
      - {key: example.com/gpu, operator: DoesNotExist}
      - {key: tenon.dev/instance-cpu, operator: Gt, values: ["3"]}
      - {key: tenon.dev/instance-memory, operator: Lt, values: ["65537"]}
      - {key: tenon.dev/instance-generation, operator: Gte, values: ["5"]}
      - {key: tenon.dev/instance-gpu-count, operator: Lte, values: ["0"]}
      taints: [{key: example.com/dedicated, value: payments, effect: NoSchedule}, {key: example.com/dedicated, effect: NoExecute}]
      startupTaints: [{key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}]
      nodeClassRef: {group: tenon.dev, kind: NodeClass, name: default}
      expireAfter: 168h
      terminationGracePeriod: 1h30m
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
    budgets:
    - {nodes: "10%"}
    - {nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h, reasons: [Underutilized, Empty]}
    - {nodes: "5", schedule: "@daily", duration: 90m, reasons: [Drifted]}
    - {nodes: "100%", schedule: "*/15 9-17 1,15 JAN-jun ?", duration: 1h30m}
  limits: {cpu: "1000", memory: 1000Gi, nvidia.com/gpu: 8}
  weight: 100
`},
	{name: "well-known and open label domains", patch: `
spec:
  template:
    metadata:
      labels: {kubernetes.io/os: linux, node-restriction.kubernetes.io/pool: a, sub.node.kubernetes.io/x: "yes", karpenter.k8s.aws/foo: bar, plain: ""}
    spec:
      requirements:
      - {key: topology.kubernetes.io/region, operator: In, values: [eu-west-1]}
      - {key: node.kubernetes.io/instance-type, operator: Exists}
      - {key: node-restriction.kubernetes.io/pool, operator: Exists}
      - {key: karpenter.k8s.aws/instance-pods, operator: In, values: ["110"]}
      - {key: kops.k8s.io/instancegroup, operator: Exists}
      - {key: tenon.dev/instance-hypervisor, operator: In, values: [nitro]}
      - {key: mykubernetes.io/x, operator: Exists}
      - {key: team, operator: Exists}
`},
	{name: "never expire, never consolidate", patch: `
spec:
  template: {spec: {expireAfter: Never}}
  disruption: {consolidateAfter: Never}
`},
	{name: "budget nodes default inside a list", patch: `
spec:
  disruption: {consolidateAfter: 0s, budgets: [{schedule: "@hourly", duration: 10m}]}
`},
	{name: "weight 1", patch: `spec: {weight: 1}`},
	{name: "update may change the NodeClass name and the weight", old: `spec: {weight: 10}`, patch: `
spec:
  weight: 20
  template: {spec: {nodeClassRef: {name: other}}}
`},

	// Requirements: operator and values.
	{name: "In without values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In}]}}}}`,
		path: req + ".values", fix: "operator In requires at least one value; add values or use Exists", cel: true},
	{name: "In with empty values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: []}]}}}}`,
		path: req + ".values", fix: "operator In requires at least one value; add values or use Exists", cel: true},
	{name: "NotIn without values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: NotIn}]}}}}`,
		path: req + ".values", fix: "operator NotIn requires at least one value; add values or use DoesNotExist", cel: true},
	{name: "Exists with values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, values: [a]}]}}}}`,
		path: req + ".values", fix: "operators Exists and DoesNotExist take no values; remove values or use In or NotIn", cel: true},
	{name: "DoesNotExist with values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: DoesNotExist, values: [a]}]}}}}`,
		path: req + ".values", fix: "remove values or use In or NotIn", cel: true},
	{name: "Gt with two values", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: ["1", "2"]}]}}}}`,
		path: req + ".values", fix: "take exactly one value, a non-negative integer such as '4'; set values to a single number", cel: true},
	{name: "Lt with a word", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Lt, values: [four]}]}}}}`,
		path: req + ".values", fix: "set values to a single number", cel: true},
	{name: "Gte negative", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gte, values: ["-1"]}]}}}}`,
		path: req + ".values", fix: "a non-negative integer", cel: true},
	{name: "Lte without values", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Lte}]}}}}`,
		path: req + ".values", fix: "set values to a single number", cel: true},
	{name: "Gt with a number too large for int64", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: ["9999999999999999999"]}]}}}}`,
		path: req + ".values", fix: "set values to a single number", cel: true},
	{name: "minValues above the number of In values", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [a, b], minValues: 3}]}}}}`,
		path: req + ".minValues", fix: "minValues is more than the number of values; lower minValues or add values", cel: true},
	{name: "minValues 0", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, minValues: 0}]}}}}`,
		path: req + ".minValues", fix: "minValues must be between 1 and 50"},
	{name: "minValues 51", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, minValues: 51}]}}}}`,
		path: req + ".minValues", fix: "minValues must be between 1 and 50"},
	{name: "unknown operator", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Contains, values: [a]}]}}}}`,
		path: req + ".operator", fix: `supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"`},
	{name: "missing operator", patch: `{spec: {template: {spec: {requirements: [{key: team}]}}}}`,
		path: req + ".operator", fix: "set operator to one of In, NotIn"},
	{name: "value not a label value", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [ok, "not ok"]}]}}}}`,
		path: req + ".values[1]", fix: "value must be up to 63 letters, digits"},
	{name: "value too long", patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]}]}}}}`,
		path: req + ".values[0]", fix: "value must be up to 63 letters"},

	// Requirements: keys.
	{name: "key not a label key", patch: `{spec: {template: {spec: {requirements: [{key: "team name", operator: Exists}]}}}}`,
		path: req + ".key", fix: "key must be a label key such as example.com/team", cel: true},
	{name: "key with a name part over 63 characters", patch: `{spec: {template: {spec: {requirements: [{key: example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, operator: Exists}]}}}}`,
		path: req + ".key", fix: "key must be a label key", cel: true},
	{name: "empty key", patch: `{spec: {template: {spec: {requirements: [{key: "", operator: Exists}]}}}}`,
		path: req + ".key", fix: "set key to a node label"},
	{name: "kubernetes.io/hostname", patch: `{spec: {template: {spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain kubernetes.io is restricted; use kubernetes.io/arch", cel: true},
	{name: "a kubernetes.io subdomain", patch: `{spec: {template: {spec: {requirements: [{key: storage.kubernetes.io/csi, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain kubernetes.io is restricted", cel: true},
	{name: "beta kubernetes.io labels", patch: `{spec: {template: {spec: {requirements: [{key: beta.kubernetes.io/arch, operator: In, values: [amd64]}]}}}}`,
		path: req + ".key", fix: "label domain kubernetes.io is restricted", cel: true},
	{name: "k8s.io", patch: `{spec: {template: {spec: {requirements: [{key: k8s.io/x, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain k8s.io is restricted (kops.k8s.io excepted); use a key in your own domain", cel: true},
	{name: "a k8s.io subdomain", patch: `{spec: {template: {spec: {requirements: [{key: storage.k8s.io/x, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain k8s.io is restricted", cel: true},
	{name: "karpenter.sh", patch: `{spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}}}`,
		path: req + ".key", fix: "use the tenon.dev equivalent, such as tenon.dev/capacity-type", cel: true},
	{name: "Karpenter's AWS instance labels", patch: `{spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}]}}}}`,
		path: req + ".key", fix: "use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family", cel: true},
	{name: "tenon.dev beyond the well-known labels", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/team, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain tenon.dev is restricted; use a well-known label", cel: true},
	{name: "a tenon.dev subdomain", patch: `{spec: {template: {spec: {requirements: [{key: x.tenon.dev/team, operator: Exists}]}}}}`,
		path: req + ".key", fix: "label domain tenon.dev is restricted", cel: true},
	{name: "tenon.dev/nodepool requirement", patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/nodepool, operator: In, values: [general]}]}}}}`,
		path: req + ".key", fix: "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove the requirement", cel: true},

	// Template labels and annotations.
	{name: "label kubernetes.io/hostname", patch: `{spec: {template: {metadata: {labels: {kubernetes.io/hostname: a}}}}}`,
		path: "spec.template.metadata.labels[kubernetes.io/hostname]", fix: "label domain kubernetes.io is restricted", cel: true},
	{name: "label k8s.io", patch: `{spec: {template: {metadata: {labels: {k8s.io/a: b}}}}}`,
		path: "spec.template.metadata.labels[k8s.io/a]", fix: "label domain k8s.io is restricted", cel: true},
	{name: "label karpenter.sh", patch: `{spec: {template: {metadata: {labels: {karpenter.sh/capacity-type: spot}}}}}`,
		path: "spec.template.metadata.labels[karpenter.sh/capacity-type]", fix: "label domain karpenter.sh is restricted", cel: true},
	{name: "label Karpenter AWS", patch: `{spec: {template: {metadata: {labels: {karpenter.k8s.aws/instance-category: c}}}}}`,
		path: "spec.template.metadata.labels[karpenter.k8s.aws/instance-category]", fix: "Karpenter's instance labels are restricted", cel: true},
	{name: "label tenon.dev", patch: `{spec: {template: {metadata: {labels: {tenon.dev/team: a}}}}}`,
		path: "spec.template.metadata.labels[tenon.dev/team]", fix: "label domain tenon.dev is restricted", cel: true},
	{name: "label tenon.dev/nodepool", patch: `{spec: {template: {metadata: {labels: {tenon.dev/nodepool: other}}}}}`,
		path: "spec.template.metadata.labels[tenon.dev/nodepool]", fix: "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove it", cel: true},
	{name: "label key syntax", patch: `{spec: {template: {metadata: {labels: {-team: a}}}}}`,
		path: "spec.template.metadata.labels[-team]", fix: "key must be a label key", cel: true},
	{name: "label value syntax", patch: `{spec: {template: {metadata: {labels: {team: "two words"}}}}}`,
		path: "spec.template.metadata.labels[team]", fix: "value must be up to 63 letters"},
	{name: "annotation key syntax", patch: `{spec: {template: {metadata: {annotations: {"not a key": a}}}}}`,
		path: "spec.template.metadata.annotations[not a key]", fix: "key must be a label key", cel: true},

	// Taints.
	{name: "taint effect", patch: `{spec: {template: {spec: {taints: [{key: a, effect: NoRun}]}}}}`,
		path: tmpl + ".taints[0].effect", fix: `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
	{name: "taint without effect", patch: `{spec: {template: {spec: {taints: [{key: a}]}}}}`,
		path: tmpl + ".taints[0].effect", fix: "set effect to NoSchedule, PreferNoSchedule or NoExecute"},
	{name: "taint key syntax", patch: `{spec: {template: {spec: {taints: [{key: "a b", effect: NoSchedule}]}}}}`,
		path: tmpl + ".taints[0].key", fix: "key must be a label key", cel: true},
	{name: "taint value syntax", patch: `{spec: {template: {spec: {taints: [{key: a, value: "b c", effect: NoSchedule}]}}}}`,
		path: tmpl + ".taints[0].value", fix: "value must be up to 63 letters", cel: true},
	{name: "startup taint key syntax", patch: `{spec: {template: {spec: {startupTaints: [{key: "/a", effect: NoSchedule}]}}}}`,
		path: tmpl + ".startupTaints[0].key", fix: "key must be a label key", cel: true},
	{name: "startup taint value syntax", patch: `{spec: {template: {spec: {startupTaints: [{key: a, value: "-b", effect: NoSchedule}]}}}}`,
		path: tmpl + ".startupTaints[0].value", fix: "value must be up to 63 letters", cel: true},
	{name: "repeated taint", patch: `{spec: {template: {spec: {taints: [{key: a, value: one, effect: NoSchedule}, {key: a, value: two, effect: NoSchedule}]}}}}`,
		path: tmpl + ".taints[1]", fix: "taints repeat a key and effect; remove the duplicate", cel: true},
	{name: "repeated startup taint", patch: `{spec: {template: {spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}}}`,
		path: tmpl + ".startupTaints[1]", fix: "startupTaints repeat a key and effect; remove the duplicate", cel: true},
	{name: "startup taint repeats a taint", patch: `{spec: {template: {spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: a, effect: NoSchedule}]}}}}`,
		path: tmpl + ".startupTaints[0]", fix: "keep it in taints or startupTaints, not both", cel: true},

	// nodeClassRef.
	{name: "no nodeClassRef", patch: `{spec: {template: {spec: {nodeClassRef: null}}}}`,
		path: tmpl + ".nodeClassRef", fix: "set nodeClassRef.name to the NodeClass"},
	{name: "nodeClassRef without a name", patch: `{spec: {template: {spec: {nodeClassRef: {name: null, kind: NodeClass}}}}}`,
		path: tmpl + ".nodeClassRef.name", fix: "set the name of the NodeClass"},
	{name: "nodeClassRef name syntax", patch: `{spec: {template: {spec: {nodeClassRef: {name: My_Class}}}}}`,
		path: tmpl + ".nodeClassRef.name", fix: "name must be a NodeClass name", cel: true},
	{name: "nodeClassRef group", patch: `{spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws}}}}}`,
		path: tmpl + ".nodeClassRef.group", fix: `supported values: "tenon.dev"`},
	{name: "nodeClassRef kind", patch: `{spec: {template: {spec: {nodeClassRef: {kind: EC2NodeClass}}}}}`,
		path: tmpl + ".nodeClassRef.kind", fix: `supported values: "NodeClass"`},
	{name: "nodeClassRef group changed", old: `{spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws}}}}}`,
		path: tmpl + ".nodeClassRef.group", fix: "nodeClassRef.group is immutable; create a new NodePool", cel: true},
	{name: "nodeClassRef kind changed", old: `{spec: {template: {spec: {nodeClassRef: {kind: EC2NodeClass}}}}}`,
		path: tmpl + ".nodeClassRef.kind", fix: "nodeClassRef.kind is immutable; create a new NodePool", cel: true},

	// Durations.
	{name: "expireAfter in days", patch: `{spec: {template: {spec: {expireAfter: 30d}}}}`,
		path: tmpl + ".expireAfter", fix: "expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never", cel: true},
	{name: "expireAfter never in lower case", patch: `{spec: {template: {spec: {expireAfter: never}}}}`,
		path: tmpl + ".expireAfter", fix: "or Never", cel: true},
	{name: "terminationGracePeriod Never", patch: `{spec: {template: {spec: {terminationGracePeriod: Never}}}}`,
		path: tmpl + ".terminationGracePeriod", fix: "terminationGracePeriod must be a duration such as 30m", cel: true},
	{name: "terminationGracePeriod fraction", patch: `{spec: {template: {spec: {terminationGracePeriod: 1.5h}}}}`,
		path: tmpl + ".terminationGracePeriod", fix: "(units s, m, h)", cel: true},
	{name: "consolidateAfter words", patch: `{spec: {disruption: {consolidateAfter: 5 minutes}}}`,
		path: "spec.disruption.consolidateAfter", fix: "consolidateAfter must be a duration such as 30s or 5m (units s, m, h), or Never", cel: true},
	{name: "disruption without consolidateAfter", patch: `{spec: {disruption: {consolidationPolicy: WhenEmpty}}}`,
		path: "spec.disruption.consolidateAfter", fix: "set consolidateAfter to a duration such as 30s"},
	{name: "v1beta1 consolidation policy", patch: `{spec: {disruption: {consolidateAfter: 0s, consolidationPolicy: WhenUnderutilized}}}`,
		path: "spec.disruption.consolidationPolicy", fix: `supported values: "WhenEmpty", "WhenEmptyOrUnderutilized"`},

	// Budgets.
	{name: "budget over 100%", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "101%"}]}}}`,
		path: "spec.disruption.budgets[0].nodes", fix: "nodes must be a count such as 5 or a percentage from 0% to 100% such as 10%", cel: true},
	{name: "budget negative", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "-1"}]}}}`,
		path: "spec.disruption.budgets[0].nodes", fix: "nodes must be a count", cel: true},
	{name: "budget in words", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: ten}]}}}`,
		path: "spec.disruption.budgets[0].nodes", fix: "nodes must be a count", cel: true},
	{name: "schedule without duration", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", schedule: "@daily"}]}}}`,
		path: "spec.disruption.budgets[0].duration", fix: "schedule needs a duration; add duration", cel: true},
	{name: "duration without schedule", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "duration needs a schedule; add a cron schedule", cel: true},
	{name: "schedule with four fields", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "0 9 * *", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "schedule must be cron syntax with 5 fields", cel: true},
	{name: "schedule minute 60", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "60 * * * *", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "schedule must be cron syntax", cel: true},
	{name: "schedule day of week 7", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "0 0 * * 7", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "schedule must be cron syntax", cel: true},
	{name: "schedule step 0", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "*/0 * * * *", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "schedule must be cron syntax", cel: true},
	{name: "schedule @every", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "@every 5m", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "or @hourly, @daily", cel: true},
	{name: "schedule with a time zone", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "TZ=UTC 0 9 * * *", duration: 1h}]}}}`,
		path: "spec.disruption.budgets[0].schedule", fix: "schedule must be cron syntax", cel: true},
	{name: "budget duration in seconds", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "@daily", duration: 30s}]}}}`,
		path: "spec.disruption.budgets[0].duration", fix: "duration must be hours and minutes such as 8h, 90m or 1h30m", cel: true},
	{name: "budget reason", patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{reasons: [Expired]}]}}}`,
		path: "spec.disruption.budgets[0].reasons[0]", fix: `supported values: "Empty", "Underutilized", "Drifted"`},

	// Weight and name.
	{name: "weight 0", patch: `{spec: {weight: 0}}`, path: "spec.weight", fix: "weight must be between 1 and 100"},
	{name: "weight 101", patch: `{spec: {weight: 101}}`, path: "spec.weight", fix: "weight must be between 1 and 100"},
	{name: "name", patch: `{metadata: {name: General_Pool}}`, path: "metadata.name", fix: "must consist of lower case alphanumeric characters"},
}
