package v1test

// NodePoolBase is the valid NodePool every case of NodePoolTwins patches.
const NodePoolBase = `
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

// NodePoolTwins are the NodePool validation cases: each is valid, or rejected by the Go validation
// and the CRD at Path (by a CEL rule of ours when CEL is set, with Fix in its message).
var NodePoolTwins = []Twin{
	// Valid objects.
	{Name: "minimal"},
	{Name: "everything set", Patch: `
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
	{Name: "well-known and open label domains", Patch: `
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
	// Karpenter v1 reserves only its own group: pools migrating with keys in
	// the kubernetes.io and k8s.io domains are accepted (issue 17 item 11).
	{Name: "kubernetes.io and k8s.io domains", Patch: `
spec:
  template:
    metadata:
      labels: {kubernetes.io/team: a, storage.k8s.io/tier: fast, k8s.io/x: "y"}
    spec:
      requirements:
      - {key: kubernetes.io/test, operator: In, values: [test-value]}
      - {key: subdomain.kubernetes.io/test, operator: In, values: [test-value]}
      - {key: k8s.io/test, operator: Exists}
      - {key: subdomain.k8s.io/test, operator: Exists}
      - {key: beta.kubernetes.io/arch, operator: In, values: [amd64]}
`},
	{Name: "never expire, never consolidate", Patch: `
spec:
  template: {spec: {expireAfter: Never}}
  disruption: {consolidateAfter: Never}
`},
	{Name: "budget nodes default inside a list", Patch: `
spec:
  disruption: {consolidateAfter: 0s, budgets: [{schedule: "@hourly", duration: 10m}]}
`},
	{Name: "weight 1", Patch: `spec: {weight: 1}`},
	{Name: "Balanced consolidation", Patch: `{spec: {disruption: {consolidateAfter: 0s, consolidationPolicy: Balanced}}}`},
	{Name: "update may change the NodeClass name and the weight", Old: `spec: {weight: 10}`, Patch: `
spec:
  weight: 20
  template: {spec: {nodeClassRef: {name: other}}}
`},

	// Requirements: operator and values.
	{Name: "In without values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In}]}}}}`,
		Path: req + ".values", Fix: "operator In requires at least one value; add values or use Exists", CEL: true},
	{Name: "In with empty values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: []}]}}}}`,
		Path: req + ".values", Fix: "operator In requires at least one value; add values or use Exists", CEL: true},
	{Name: "NotIn without values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: NotIn}]}}}}`,
		Path: req + ".values", Fix: "operator NotIn requires at least one value; add values or use DoesNotExist", CEL: true},
	{Name: "Exists with values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, values: [a]}]}}}}`,
		Path: req + ".values", Fix: "operators Exists and DoesNotExist take no values; remove values or use In or NotIn", CEL: true},
	{Name: "DoesNotExist with values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: DoesNotExist, values: [a]}]}}}}`,
		Path: req + ".values", Fix: "remove values or use In or NotIn", CEL: true},
	{Name: "Gt with two values", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: ["1", "2"]}]}}}}`,
		Path: req + ".values", Fix: "take exactly one value, a non-negative integer such as '4'; set values to a single number", CEL: true},
	{Name: "Lt with a word", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Lt, values: [four]}]}}}}`,
		Path: req + ".values", Fix: "set values to a single number", CEL: true},
	{Name: "Gte negative", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gte, values: ["-1"]}]}}}}`,
		Path: req + ".values", Fix: "a non-negative integer", CEL: true},
	{Name: "Lte without values", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Lte}]}}}}`,
		Path: req + ".values", Fix: "set values to a single number", CEL: true},
	{Name: "Gt with a number too large for int64", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: ["9999999999999999999"]}]}}}}`,
		Path: req + ".values", Fix: "set values to a single number", CEL: true},
	{Name: "minValues above the number of In values", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [a, b], minValues: 3}]}}}}`,
		Path: req + ".minValues", Fix: "minValues is more than the number of values; lower minValues or add values", CEL: true},
	{Name: "minValues 0", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, minValues: 0}]}}}}`,
		Path: req + ".minValues", Fix: "minValues must be between 1 and 50"},
	{Name: "minValues 51", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Exists, minValues: 51}]}}}}`,
		Path: req + ".minValues", Fix: "minValues must be between 1 and 50"},
	{Name: "unknown operator", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: Contains, values: [a]}]}}}}`,
		Path: req + ".operator", Fix: `supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"`},
	{Name: "missing operator", Patch: `{spec: {template: {spec: {requirements: [{key: team}]}}}}`,
		Path: req + ".operator", Fix: "set operator to one of In, NotIn"},
	{Name: "value not a label value", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [ok, "not ok"]}]}}}}`,
		Path: req + ".values[1]", Fix: "value must be up to 63 letters, digits"},
	{Name: "value too long", Patch: `{spec: {template: {spec: {requirements: [{key: team, operator: In, values: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]}]}}}}`,
		Path: req + ".values[0]", Fix: "value must be up to 63 letters"},

	// Requirements: keys.
	{Name: "key not a label key", Patch: `{spec: {template: {spec: {requirements: [{key: "team name", operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "key must be a label key such as example.com/team", CEL: true},
	{Name: "key with a name part over 63 characters", Patch: `{spec: {template: {spec: {requirements: [{key: example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "key must be a label key", CEL: true},
	{Name: "empty key", Patch: `{spec: {template: {spec: {requirements: [{key: "", operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "set key to a node label"},
	{Name: "kubernetes.io/hostname", Patch: `{spec: {template: {spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it", CEL: true},
	// Karpenter's aliases of the well-known labels may be required (read as Tenon's), not set.
	{Name: "reserved capacity", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/capacity-type, operator: In, values: [reserved, on-demand]}]}}}}`},
	{Name: "unknown capacity type", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/capacity-type, operator: In, values: [reserve]}]}}}}`,
		Path: req + ".values", Fix: "capacity types are on-demand, spot and reserved (EC2 capacity reservations the NodeClass selects); fix the value", CEL: true},
	{Name: "unknown karpenter capacity type", Patch: `{spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: NotIn, values: [spot, preemptible]}]}}}}`,
		Path: req + ".values", Fix: "capacity types are on-demand, spot and reserved", CEL: true},
	{Name: "karpenter.sh/capacity-type", Patch: `{spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}}}`},
	{Name: "Karpenter's AWS instance labels", Patch: `{spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}]}}}}`},
	{Name: "karpenter.sh", Patch: `{spec: {template: {spec: {requirements: [{key: karpenter.sh/nodepool, operator: In, values: [general]}]}}}}`,
		Path: req + ".key", Fix: "label domain karpenter.sh is restricted in requirements but for karpenter.sh/capacity-type", CEL: true},
	{Name: "tenon.dev beyond the well-known labels", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/team, operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "label domain tenon.dev is restricted; use a well-known label", CEL: true},
	{Name: "a tenon.dev subdomain", Patch: `{spec: {template: {spec: {requirements: [{key: x.tenon.dev/team, operator: Exists}]}}}}`,
		Path: req + ".key", Fix: "label domain tenon.dev is restricted", CEL: true},
	{Name: "tenon.dev/nodepool requirement", Patch: `{spec: {template: {spec: {requirements: [{key: tenon.dev/nodepool, operator: In, values: [general]}]}}}}`,
		Path: req + ".key", Fix: "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove the requirement", CEL: true},

	// Template labels and annotations.
	{Name: "label kubernetes.io/hostname", Patch: `{spec: {template: {metadata: {labels: {kubernetes.io/hostname: a}}}}}`,
		Path: "spec.template.metadata.labels[kubernetes.io/hostname]", Fix: "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name", CEL: true},
	{Name: "label karpenter.sh", Patch: `{spec: {template: {metadata: {labels: {karpenter.sh/capacity-type: spot}}}}}`,
		Path: "spec.template.metadata.labels[karpenter.sh/capacity-type]", Fix: "label domain karpenter.sh is restricted", CEL: true},
	{Name: "label Karpenter AWS", Patch: `{spec: {template: {metadata: {labels: {karpenter.k8s.aws/instance-category: c}}}}}`,
		Path: "spec.template.metadata.labels[karpenter.k8s.aws/instance-category]", Fix: "Karpenter's instance labels are restricted", CEL: true},
	{Name: "label tenon.dev", Patch: `{spec: {template: {metadata: {labels: {tenon.dev/team: a}}}}}`,
		Path: "spec.template.metadata.labels[tenon.dev/team]", Fix: "label domain tenon.dev is restricted", CEL: true},
	{Name: "label tenon.dev/nodepool", Patch: `{spec: {template: {metadata: {labels: {tenon.dev/nodepool: other}}}}}`,
		Path: "spec.template.metadata.labels[tenon.dev/nodepool]", Fix: "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove it", CEL: true},
	{Name: "label key syntax", Patch: `{spec: {template: {metadata: {labels: {-team: a}}}}}`,
		Path: "spec.template.metadata.labels[-team]", Fix: "key must be a label key", CEL: true},
	{Name: "label value syntax", Patch: `{spec: {template: {metadata: {labels: {team: "two words"}}}}}`,
		Path: "spec.template.metadata.labels[team]", Fix: "value must be up to 63 letters"},
	{Name: "annotation key syntax", Patch: `{spec: {template: {metadata: {annotations: {"not a key": a}}}}}`,
		Path: "spec.template.metadata.annotations[not a key]", Fix: "key must be a label key", CEL: true},

	// Taints.
	{Name: "taint effect", Patch: `{spec: {template: {spec: {taints: [{key: a, effect: NoRun}]}}}}`,
		Path: tmpl + ".taints[0].effect", Fix: `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
	{Name: "taint without effect", Patch: `{spec: {template: {spec: {taints: [{key: a}]}}}}`,
		Path: tmpl + ".taints[0].effect", Fix: "set effect to NoSchedule, PreferNoSchedule or NoExecute"},
	{Name: "taint key syntax", Patch: `{spec: {template: {spec: {taints: [{key: "a b", effect: NoSchedule}]}}}}`,
		Path: tmpl + ".taints[0].key", Fix: "key must be a label key", CEL: true},
	{Name: "taint value syntax", Patch: `{spec: {template: {spec: {taints: [{key: a, value: "b c", effect: NoSchedule}]}}}}`,
		Path: tmpl + ".taints[0].value", Fix: "value must be up to 63 letters", CEL: true},
	{Name: "startup taint key syntax", Patch: `{spec: {template: {spec: {startupTaints: [{key: "/a", effect: NoSchedule}]}}}}`,
		Path: tmpl + ".startupTaints[0].key", Fix: "key must be a label key", CEL: true},
	{Name: "startup taint value syntax", Patch: `{spec: {template: {spec: {startupTaints: [{key: a, value: "-b", effect: NoSchedule}]}}}}`,
		Path: tmpl + ".startupTaints[0].value", Fix: "value must be up to 63 letters", CEL: true},
	{Name: "repeated taint", Patch: `{spec: {template: {spec: {taints: [{key: a, value: one, effect: NoSchedule}, {key: a, value: two, effect: NoSchedule}]}}}}`,
		Path: tmpl + ".taints[1]", Fix: "taints repeat a key and effect; remove the duplicate", CEL: true},
	{Name: "repeated startup taint", Patch: `{spec: {template: {spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}}}`,
		Path: tmpl + ".startupTaints[1]", Fix: "startupTaints repeat a key and effect; remove the duplicate", CEL: true},
	{Name: "startup taint repeats a taint", Patch: `{spec: {template: {spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: a, effect: NoSchedule}]}}}}`,
		Path: tmpl + ".startupTaints[0]", Fix: "keep it in taints or startupTaints, not both", CEL: true},

	// nodeClassRef.
	{Name: "no nodeClassRef", Patch: `{spec: {template: {spec: {nodeClassRef: null}}}}`,
		Path: tmpl + ".nodeClassRef", Fix: "set nodeClassRef.name to the NodeClass"},
	{Name: "nodeClassRef without a name", Patch: `{spec: {template: {spec: {nodeClassRef: {name: null, kind: NodeClass}}}}}`,
		Path: tmpl + ".nodeClassRef.name", Fix: "set the name of the NodeClass"},
	{Name: "nodeClassRef name syntax", Patch: `{spec: {template: {spec: {nodeClassRef: {name: My_Class}}}}}`,
		Path: tmpl + ".nodeClassRef.name", Fix: "name must be a NodeClass name", CEL: true},
	{Name: "nodeClassRef group", Patch: `{spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws}}}}}`,
		Path: tmpl + ".nodeClassRef.group", Fix: `supported values: "tenon.dev"`},
	{Name: "nodeClassRef kind", Patch: `{spec: {template: {spec: {nodeClassRef: {kind: EC2NodeClass}}}}}`,
		Path: tmpl + ".nodeClassRef.kind", Fix: `supported values: "NodeClass"`},
	{Name: "nodeClassRef group changed", Old: `{spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws}}}}}`,
		Path: tmpl + ".nodeClassRef.group", Fix: "nodeClassRef.group is immutable; create a new NodePool", CEL: true},
	{Name: "nodeClassRef kind changed", Old: `{spec: {template: {spec: {nodeClassRef: {kind: EC2NodeClass}}}}}`,
		Path: tmpl + ".nodeClassRef.kind", Fix: "nodeClassRef.kind is immutable; create a new NodePool", CEL: true},

	// Durations.
	{Name: "expireAfter in days", Patch: `{spec: {template: {spec: {expireAfter: 30d}}}}`,
		Path: tmpl + ".expireAfter", Fix: "expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never", CEL: true},
	{Name: "expireAfter never in lower case", Patch: `{spec: {template: {spec: {expireAfter: never}}}}`,
		Path: tmpl + ".expireAfter", Fix: "or Never", CEL: true},
	{Name: "terminationGracePeriod Never", Patch: `{spec: {template: {spec: {terminationGracePeriod: Never}}}}`,
		Path: tmpl + ".terminationGracePeriod", Fix: "terminationGracePeriod must be a duration such as 30m", CEL: true},
	{Name: "terminationGracePeriod fraction", Patch: `{spec: {template: {spec: {terminationGracePeriod: 1.5h}}}}`,
		Path: tmpl + ".terminationGracePeriod", Fix: "(units s, m, h)", CEL: true},
	{Name: "consolidateAfter words", Patch: `{spec: {disruption: {consolidateAfter: 5 minutes}}}`,
		Path: "spec.disruption.consolidateAfter", Fix: "consolidateAfter must be a duration such as 30s or 5m (units s, m, h), or Never", CEL: true},
	{Name: "disruption without consolidateAfter", Patch: `{spec: {disruption: {consolidationPolicy: WhenEmpty}}}`,
		Path: "spec.disruption.consolidateAfter", Fix: "set consolidateAfter to a duration such as 30s"},
	{Name: "v1beta1 consolidation policy", Patch: `{spec: {disruption: {consolidateAfter: 0s, consolidationPolicy: WhenUnderutilized}}}`,
		Path: "spec.disruption.consolidationPolicy", Fix: `supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"`},

	// Budgets.
	{Name: "budget over 100%", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "101%"}]}}}`,
		Path: "spec.disruption.budgets[0].nodes", Fix: "nodes must be a count such as 5 or a percentage from 0% to 100% such as 10%", CEL: true},
	{Name: "budget negative", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "-1"}]}}}`,
		Path: "spec.disruption.budgets[0].nodes", Fix: "nodes must be a count", CEL: true},
	{Name: "budget in words", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: ten}]}}}`,
		Path: "spec.disruption.budgets[0].nodes", Fix: "nodes must be a count", CEL: true},
	{Name: "schedule without duration", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", schedule: "@daily"}]}}}`,
		Path: "spec.disruption.budgets[0].duration", Fix: "schedule needs a duration; add duration", CEL: true},
	{Name: "duration without schedule", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "duration needs a schedule; add a cron schedule", CEL: true},
	{Name: "schedule with four fields", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "0 9 * *", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "schedule must be cron syntax with 5 fields", CEL: true},
	{Name: "schedule minute 60", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "60 * * * *", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "schedule must be cron syntax", CEL: true},
	{Name: "schedule day of week 7", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "0 0 * * 7", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "schedule must be cron syntax", CEL: true},
	{Name: "schedule step 0", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "*/0 * * * *", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "schedule must be cron syntax", CEL: true},
	{Name: "schedule @every", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "@every 5m", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "or @hourly, @daily", CEL: true},
	{Name: "schedule with a time zone", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "TZ=UTC 0 9 * * *", duration: 1h}]}}}`,
		Path: "spec.disruption.budgets[0].schedule", Fix: "schedule must be cron syntax", CEL: true},
	{Name: "budget duration in seconds", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{schedule: "@daily", duration: 30s}]}}}`,
		Path: "spec.disruption.budgets[0].duration", Fix: "duration must be hours and minutes such as 8h, 90m or 1h30m", CEL: true},
	{Name: "budget reason", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{reasons: [Expired]}]}}}`,
		Path: "spec.disruption.budgets[0].reasons[0]", Fix: `supported values: "Empty", "Underutilized", "Drifted", "Unhealthy"`},

	// Consolidation savings thresholds.
	{Name: "savings thresholds zero", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "0", minSavingsPercent: 0, minSavingsPerPod: "0"}}}`},
	{Name: "savings thresholds high", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "12.5", minSavingsPercent: 100, minSavingsPerPod: "0.000001"}}}`},
	{Name: "minSavingsPerHour negative", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "-0.01"}}}`,
		Path: "spec.disruption.minSavingsPerHour", Fix: "minSavingsPerHour must be a decimal amount in USD per hour, 0 or more", CEL: true},
	{Name: "minSavingsPerHour with a dollar sign", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "$0.01"}}}`,
		Path: "spec.disruption.minSavingsPerHour", Fix: "such as 0.01 or 0.5", CEL: true},
	{Name: "minSavingsPerHour exponent", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "1e-2"}}}`,
		Path: "spec.disruption.minSavingsPerHour", Fix: "minSavingsPerHour must be a decimal amount", CEL: true},
	{Name: "minSavingsPerHour too long", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerHour: "0.00000000000000001"}}}`,
		Path: "spec.disruption.minSavingsPerHour", Fix: "may not be more than 16"},
	{Name: "minSavingsPerPod seven decimals", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerPod: "0.0000001"}}}`,
		Path: "spec.disruption.minSavingsPerPod", Fix: "minSavingsPerPod must be a decimal amount in USD per hour, 0 or more, such as 0.003", CEL: true},
	{Name: "minSavingsPerPod negative", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPerPod: "-1"}}}`,
		Path: "spec.disruption.minSavingsPerPod", Fix: "minSavingsPerPod must be a decimal amount", CEL: true},
	{Name: "minSavingsPercent negative", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPercent: -1}}}`,
		Path: "spec.disruption.minSavingsPercent", Fix: "minSavingsPercent must be a percentage from 0 to 100"},
	{Name: "minSavingsPercent over 100", Patch: `{spec: {disruption: {consolidateAfter: 0s, minSavingsPercent: 101}}}`,
		Path: "spec.disruption.minSavingsPercent", Fix: "minSavingsPercent must be a percentage from 0 to 100"},

	// Karpenter's annotations.
	{Name: "karpenterAnnotations Honor", Patch: `{spec: {disruption: {consolidateAfter: 0s, karpenterAnnotations: Honor}}}`},
	{Name: "karpenterAnnotations Ignore", Patch: `{spec: {disruption: {consolidateAfter: 0s, karpenterAnnotations: Ignore}}}`},
	{Name: "karpenterAnnotations lower case", Patch: `{spec: {disruption: {consolidateAfter: 0s, karpenterAnnotations: ignore}}}`,
		Path: "spec.disruption.karpenterAnnotations", Fix: `supported values: "Honor", "Ignore"`},

	// Static pools (replicas).
	{Name: "static pool", Patch: `{spec: {replicas: 3, limits: {nodes: "4"}}}`},
	{Name: "static pool of zero nodes", Patch: `{spec: {replicas: 0}}`},
	{Name: "static pool may change replicas", Old: `{spec: {replicas: 5}}`, Patch: `{spec: {replicas: 2}}`},
	{Name: "replicas negative", Patch: `{spec: {replicas: -1}}`, Path: "spec.replicas", Fix: "replicas must be between 0 and 10000"},
	{Name: "replicas too many", Patch: `{spec: {replicas: 10001}}`, Path: "spec.replicas", Fix: "replicas must be between 0 and 10000"},
	{Name: "static pool with a cpu limit", Patch: `{spec: {replicas: 3, limits: {nodes: "4", cpu: "100"}}}`,
		Path: "spec.limits", Fix: "a static NodePool (replicas set) takes only limits.nodes; remove the other limits", CEL: true},
	{Name: "static pool with a weight", Patch: `{spec: {replicas: 3, weight: 10}}`,
		Path: "spec.weight", Fix: "a static NodePool (replicas set) takes no weight", CEL: true},
	{Name: "replicas added to a dynamic pool", Patch: `{spec: {replicas: 3}}`, Old: `{metadata: {labels: {a: b}}}`,
		Path: "spec", Fix: "replicas cannot be added to or removed from an existing NodePool", CEL: true},
	{Name: "replicas removed from a static pool", Old: `{spec: {replicas: 3}}`,
		Path: "spec", Fix: "replicas cannot be added to or removed from an existing NodePool", CEL: true},
	// Capacity buffers.
	{Name: "buffer of pods", Patch: `{spec: {buffer: {pods: 4, resources: {cpu: "1", memory: 2Gi}}}}`},
	{Name: "buffer by percent capped by pods", Patch: `{spec: {buffer: {pods: 10, percent: 20, resources: {cpu: 500m}}}}`},
	{Name: "buffer of zero pods", Patch: `{spec: {buffer: {pods: 0, resources: {cpu: "1"}}}}`},
	{Name: "buffer in one zone", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}]}}}`},
	{Name: "buffer without a size", Patch: `{spec: {buffer: {resources: {cpu: "1"}}}}`,
		Path: "spec.buffer", Fix: "a buffer needs pods (how many placeholder pods), percent", CEL: true},
	{Name: "buffer pods too many", Patch: `{spec: {buffer: {pods: 10001, resources: {cpu: "1"}}}}`,
		Path: "spec.buffer.pods", Fix: "buffer.pods must be between 0 and 10000"},
	{Name: "buffer pods negative", Patch: `{spec: {buffer: {pods: -1, resources: {cpu: "1"}}}}`,
		Path: "spec.buffer.pods", Fix: "buffer.pods must be between 0 and 10000"},
	{Name: "buffer percent zero", Patch: `{spec: {buffer: {percent: 0, resources: {cpu: "1"}}}}`,
		Path: "spec.buffer.percent", Fix: "buffer.percent must be between 1 and 1000"},
	{Name: "buffer percent too large", Patch: `{spec: {buffer: {percent: 1001, resources: {cpu: "1"}}}}`,
		Path: "spec.buffer.percent", Fix: "buffer.percent must be between 1 and 1000"},
	{Name: "buffer without resources", Patch: `{spec: {buffer: {pods: 2, resources: {}}}}`,
		Path: "spec.buffer.resources", Fix: "buffer.resources must name at least one resource", CEL: true},
	{Name: "buffer resource zero", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "0"}}}}`,
		Path: "spec.buffer.resources[cpu]", Fix: "buffer.resources values must be positive quantities", CEL: true},
	{Name: "buffer requirement minValues", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: topology.kubernetes.io/zone, operator: In, values: [a], minValues: 1}]}}}`,
		Path: "spec.buffer.requirements[0].minValues", Fix: "minValues has no meaning in a buffer's requirements", CEL: true},
	{Name: "buffer requirement unknown capacity type", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spott]}]}}}`,
		Path: "spec.buffer.requirements[0].values", Fix: "capacity types are on-demand, spot and reserved", CEL: true},
	{Name: "buffer requirement bad operator", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: topology.kubernetes.io/zone, operator: Is, values: [a]}]}}}`,
		Path: "spec.buffer.requirements[0].operator", Fix: "supported values"},
	{Name: "buffer requirement In without values", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: team, operator: In}]}}}`,
		Path: "spec.buffer.requirements[0].values", Fix: "operator In requires at least one value", CEL: true},
	{Name: "buffer requirement NotIn without values", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: team, operator: NotIn}]}}}`,
		Path: "spec.buffer.requirements[0].values", Fix: "operator NotIn requires at least one value", CEL: true},
	{Name: "buffer requirement Exists with values", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: team, operator: Exists, values: [a]}]}}}`,
		Path: "spec.buffer.requirements[0].values", Fix: "operators Exists and DoesNotExist take no values", CEL: true},
	{Name: "buffer requirement Gt with two values", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: ["1", "2"]}]}}}`,
		Path: "spec.buffer.requirements[0].values", Fix: "take exactly one value, a non-negative integer", CEL: true},
	{Name: "buffer requirement minValues above its values", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: team, operator: In, values: [a], minValues: 3}]}}}`,
		Path: "spec.buffer.requirements[0].minValues", Fix: "minValues is more than the number of values", CEL: true},
	{Name: "buffer requirement key not a label key", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: "team name", operator: Exists}]}}}`,
		Path: "spec.buffer.requirements[0].key", Fix: "key must be a label key such as example.com/team", CEL: true},
	{Name: "buffer requirement hostname", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}}`,
		Path: "spec.buffer.requirements[0].key", Fix: "label kubernetes.io/hostname is restricted", CEL: true},
	{Name: "buffer requirement karpenter.sh", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: karpenter.sh/nodepool, operator: In, values: [general]}]}}}`,
		Path: "spec.buffer.requirements[0].key", Fix: "label domain karpenter.sh is restricted in requirements", CEL: true},
	{Name: "buffer requirement tenon.dev", Patch: `{spec: {buffer: {pods: 2, resources: {cpu: "1"}, requirements: [{key: tenon.dev/team, operator: Exists}]}}}`,
		Path: "spec.buffer.requirements[0].key", Fix: "label domain tenon.dev is restricted", CEL: true},
	{Name: "buffer on a static pool", Patch: `{spec: {replicas: 2, buffer: {pods: 2, resources: {cpu: "1"}}}}`,
		Path: "spec.buffer", Fix: "a static NodePool (replicas set) takes no buffer", CEL: true},

	// Node repair.
	{Name: "repair enabled", Patch: `{spec: {disruption: {consolidateAfter: 0s, repair: {enabled: true}}}}`},
	{Name: "repair with toleration and maxUnhealthy", Patch: `{spec: {disruption: {consolidateAfter: 0s, repair: {enabled: true, toleration: 10m, maxUnhealthy: "50%"}}}}`},
	{Name: "repair maxUnhealthy count", Patch: `{spec: {disruption: {consolidateAfter: 0s, repair: {enabled: true, maxUnhealthy: "2"}}}}`},
	{Name: "repair toleration without unit", Patch: `{spec: {disruption: {consolidateAfter: 0s, repair: {enabled: true, toleration: "10"}}}}`,
		Path: "spec.disruption.repair.toleration", Fix: "toleration must be a duration such as 10m", CEL: true},
	{Name: "repair maxUnhealthy over 100%", Patch: `{spec: {disruption: {consolidateAfter: 0s, repair: {enabled: true, maxUnhealthy: "120%"}}}}`,
		Path: "spec.disruption.repair.maxUnhealthy", Fix: "maxUnhealthy must be a count such as 3 or a percentage", CEL: true},
	{Name: "budget reason Unhealthy", Patch: `{spec: {disruption: {consolidateAfter: 0s, budgets: [{nodes: "1", reasons: [Unhealthy]}]}}}`},

	// Weight and name.
	{Name: "weight 0", Patch: `{spec: {weight: 0}}`, Path: "spec.weight", Fix: "weight must be between 1 and 100"},
	{Name: "weight 101", Patch: `{spec: {weight: 101}}`, Path: "spec.weight", Fix: "weight must be between 1 and 100"},
	{Name: "name", Patch: `{metadata: {name: General_Pool}}`, Path: "metadata.name", Fix: "must consist of lower case alphanumeric characters"},
}
