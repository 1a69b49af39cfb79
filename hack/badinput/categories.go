package badinput

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// truncated: the bases cut at many points, as a copy cut short or a file
// read while it was written. Some cuts leave valid input.
func (g *gen) truncated() {
	for _, base := range []struct {
		tool Tool
		data string
	}{{Scenario, scenarioBase}, {Karpenter, karpenterBase}} {
		step := len(base.data) / 25
		for cut := step / 2; cut < len(base.data); cut += step {
			g.add("truncated", fmt.Sprintf("at byte %d", cut), base.tool, base.data[:cut], Either, "", 0)
		}
		// Cut inside a multi-byte character.
		g.add("truncated", "mid rune", base.tool, strings.Replace(base.data, "web", "wéb", 1)[:strings.Index(base.data, "web")+2], Either, "", 0)
	}
}

// bombs: inputs built to exhaust memory, stack or time when expanded.
func (g *gen) bombs() {
	for _, tool := range []Tool{Scenario, Karpenter} {
		// Billion laughs: each level repeats the one before ten times.
		for _, depth := range []int{4, 6, 9} {
			var sb strings.Builder
			sb.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
			for i := 1; i <= depth; i++ {
				fmt.Fprintf(&sb, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
			}
			g.refused("bombs", fmt.Sprintf("alias bomb depth %d", depth), tool, sb.String(), "")
			// The same bomb inside an object's labels.
			g.refused("bombs", fmt.Sprintf("alias bomb in an object depth %d", depth), tool, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n"+indent(sb.String(), "  "), "")
		}
		for _, depth := range []int{1000, 100000} {
			g.refused("bombs", fmt.Sprintf("flow nesting %d", depth), tool, "kind: "+strings.Repeat("[", depth)+strings.Repeat("]", depth)+"\n", "")
			g.refused("bombs", fmt.Sprintf("block nesting %d", depth/10), tool, nestedBlocks(depth/10), "")
			g.refused("bombs", fmt.Sprintf("json nesting %d", depth), tool, `{"kind": `+strings.Repeat(`{"a": `, depth)+"1"+strings.Repeat("}", depth)+"}\n", "")
		}
		g.refused("bombs", "unclosed flow", tool, "kind: ["+strings.Repeat("a, ", 10000)+"\n", "")
		g.refused("bombs", "unclosed quote", tool, "kind: \""+strings.Repeat("a", 100000)+"\n", "")
		g.refused("bombs", "binary", tool, string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe, 0, 0}), "")
		g.refused("bombs", "utf16", tool, "\xff\xfea\x00p\x00i\x00V\x00e\x00r\x00s\x00i\x00o\x00n\x00:\x00 \x00v\x001\x00\n\x00", "")
		g.refused("bombs", "million documents", tool, strings.Repeat("---\n", 1000000), "")
		g.refused("bombs", "huge key", tool, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"+strings.Repeat("k", 1<<20)+": 1\n", "")
	}
	// A scenario of many small Pods past the cap: refused before they are
	// simulated.
	var sb strings.Builder
	sb.WriteString(scenarioBase[:strings.Index(scenarioBase, "---\napiVersion: apps/v1")])
	for i := range 100_001 {
		fmt.Fprintf(&sb, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p%d, namespace: default}, spec: {containers: [{name: c, image: x}]}}\n", i)
	}
	g.refused("bombs", "100001 pods", Scenario, sb.String(), "Pod default/p100000: metadata.name")
}

// nestedBlocks is a YAML mapping depth levels deep in block style.
func nestedBlocks(depth int) string {
	var sb strings.Builder
	sb.WriteString("kind:\n")
	for i := 1; i <= depth; i++ {
		sb.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return sb.String()
}

// badQuantities are quantities that are malformed, negative, or too large
// for any machine (past int64 once in base units, or past Tenon's bounds).
var badQuantities = []string{"8E", "1e400", "9999999Ei", "-1", "abc", "1.5.5", `""`, "1Ki1", "NaN", "Inf", "1e19", "9223372036854775808", "1e99999999", `"1e-99999999"`, "-5E+31"}

// quantities: each bad quantity in each place a scenario or a Karpenter
// policy holds one.
func (g *gen) quantities() {
	for _, q := range badQuantities {
		g.refused("quantities", "request cpu "+q, Scenario, withDeployment("{cpu: 500m, memory: 1Gi}", "{cpu: "+q+", memory: 1Gi}"), wantPodSpec+"containers[0].resources.requests.cpu")
		g.refused("quantities", "request memory "+q, Scenario, withDeployment("{cpu: 500m, memory: 1Gi}", "{cpu: 500m, memory: "+q+"}"), wantPodSpec+"containers[0].resources.requests.memory")
		g.refused("quantities", "job request cpu "+q, Scenario, sub(scenarioBase, "{requests: {cpu: 250m}}", "{requests: {cpu: "+q+"}}"), wantJob+"spec.template.spec.containers[0].resources.requests.cpu")
		g.refused("quantities", "pool limit cpu "+q, Scenario, sub(scenarioBase, `limits: {cpu: "1000", memory: 4000Gi}`, "limits: {cpu: "+q+", memory: 4000Gi}"), wantPool+"spec.limits.cpu")
		g.refused("quantities", "karpenter limit memory "+q, Karpenter, sub(karpenterBase, "memory: 1000Gi}", "memory: "+q+"}"), wantKPool+"spec.limits")
		g.refused("quantities", "karpenter system reserved "+q, Karpenter, sub(karpenterBase, "systemReserved: {cpu: 100m", "systemReserved: {cpu: "+q), wantKClass+"spec.kubelet.systemReserved")
	}
	// Past Tenon's bound on a request (1M cores), though within int64.
	g.refused("quantities", "request cpu 2M", Scenario, withDeployment("{cpu: 500m, memory: 1Gi}", "{cpu: 2M, memory: 1Gi}"), wantPodSpec+"containers[0].resources.requests.cpu")
	for _, q := range []string{"8E", "1e400", "9999999Ei", "-1Gi", "100Ti"} {
		g.refused("quantities", "node allocatable "+q, Scenario, scenarioBase+"---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {cpu: \"4\", memory: "+q+"}}\n", "Node node-1: status.allocatable.memory")
		g.refused("quantities", "volume size "+q, Karpenter, sub(karpenterBase, "volumeSize: 100Gi", "volumeSize: "+q), wantKClass+"spec.blockDeviceMappings[0].ebs.volumeSize")
	}
	// Large but fine: accepted, and the pods are unschedulable or placed.
	for _, q := range []string{"896", "1000000m", "0", "1e-3", "0.001", "2M (memory)"} {
		if strings.HasSuffix(q, " (memory)") {
			g.accepted("quantities", "request memory fine "+q, Scenario, withDeployment("{cpu: 500m, memory: 1Gi}", "{cpu: 500m, memory: "+strings.TrimSuffix(q, " (memory)")+"}"), scenarioPods)
			continue
		}
		g.accepted("quantities", "request cpu fine "+q, Scenario, withDeployment("{cpu: 500m, memory: 1Gi}", "{cpu: \""+q+"\", memory: 1Gi}"), scenarioPods)
	}
}

// counts: replicas, parallelism and completions far past what a simulation
// holds, negative, or not integers.
func (g *gen) counts() {
	for _, n := range []string{"2147483647", "10000000", "100001", "-1", "4294967296", "1.5", "abc", `"2"`, "99999999999999999999"} {
		g.refused("counts", "replicas "+n, Scenario, withDeployment("replicas: 2", "replicas: "+n), wantDeployment+"spec.replicas")
		g.refused("counts", "parallelism "+n, Scenario, sub(scenarioBase, "parallelism: 1", "parallelism: "+n), wantJob+"spec.parallelism")
	}
	// YAML reads 1e3 and 0x10 as numbers (1000, 16), as kubectl does.
	g.accepted("counts", "replicas 1e3", Scenario, withDeployment("replicas: 2", "replicas: 1e3"), 1001)
	g.accepted("counts", "parallelism 0x10", Scenario, sub(scenarioBase, "parallelism: 1", "parallelism: 0x10"), 18)
	// A Job runs min(parallelism, completions) pods at once.
	g.accepted("counts", "completions 2147483647", Scenario, sub(scenarioBase, "parallelism: 1", "parallelism: 1\n  completions: 2147483647"), scenarioPods)
	for _, n := range []string{"-1", "4294967296", "abc"} {
		g.refused("counts", "completions "+n, Scenario, sub(scenarioBase, "parallelism: 1", "parallelism: 1\n  completions: "+n), wantJob+"spec.completions")
		g.refused("counts", "karpenter weight "+n, Karpenter, sub(karpenterBase, "weight: 10", "weight: "+n), wantKPool+"spec.weight")
		g.refused("counts", "karpenter maxPods "+n, Karpenter, sub(karpenterBase, "maxPods: 110", "maxPods: "+n), wantKClass+"spec.kubelet.maxPods")
	}
	// Two workloads, each under the cap, over it together.
	two := withDeployment("replicas: 2", "replicas: 60000")
	two += strings.ReplaceAll(two[strings.Index(two, "---\napiVersion: apps/v1"):strings.Index(two, "---\napiVersion: batch/v1")], "web", "api")
	g.refused("counts", "two workloads over the cap", Scenario, two, "Deployment default/api: spec.replicas")
	// Zero is fine.
	g.accepted("counts", "replicas 0", Scenario, withDeployment("replicas: 2", "replicas: 0"), 1)
	g.accepted("counts", "parallelism 0", Scenario, sub(scenarioBase, "parallelism: 1", "parallelism: 0"), 2)
	g.accepted("counts", "replicas 200", Scenario, withDeployment("replicas: 2", "replicas: 200"), 201)
}

// names: duplicate, unicode, control characters, too long, empty.
func (g *gen) names() {
	bad := map[string]string{
		"uppercase":        "Web",
		"underscore":       "web_app",
		"cyrillic":         "wеb", // the e is U+0435
		"emoji":            "web-🚀",
		"rtl override":     "web\u202egnp",
		"zero width space": "we\u200bb",
		"newline":          `"web\nkind: Secret"`,
		"tab":              `"web\tx"`,
		"nul":              `"web\u0000"`,
		"escape":           `"web\e[2J"`,
		"too long":         strings.Repeat("a", 254),
		"empty":            `""`,
		"slash":            "web/x",
		"dot dot":          "..",
		"leading dash":     "-web",
		"space":            `"web app"`,
	}
	for _, what := range sortedKeys(bad) {
		name := bad[what]
		g.refused("names", "deployment "+what, Scenario, withDeployment("metadata: {name: web, namespace: default", "metadata: {name: "+name+", namespace: default"), ": metadata.name")
		g.refused("names", "pool "+what, Scenario, sub(scenarioBase, "kind: NodePool\nmetadata: {name: default}", "kind: NodePool\nmetadata: {name: "+name+"}"), ": metadata.name")
		g.refused("names", "karpenter pool "+what, Karpenter, sub(karpenterBase, "metadata: {name: np,", "metadata: {name: "+name+","), ": metadata.name")
	}
	for _, ns := range []string{"Default", `"de\nfault"`, strings.Repeat("n", 64), "kube_system"} {
		g.refused("names", "namespace "+slug(ns), Scenario, withDeployment("namespace: default, labels", "namespace: "+ns+", labels"), ": metadata.namespace")
	}
	deploy := scenarioBase[strings.Index(scenarioBase, "---\napiVersion: apps/v1"):strings.Index(scenarioBase, "---\napiVersion: batch/v1")]
	g.refused("names", "duplicate deployment", Scenario, scenarioBase+deploy, wantDeployment+"metadata.name")
	pool := scenarioBase[strings.Index(scenarioBase, "---\napiVersion: tenon.dev/v1\nkind: NodePool"):strings.Index(scenarioBase, "---\napiVersion: apps/v1")]
	g.refused("names", "duplicate pool", Scenario, scenarioBase+pool, wantPool+"metadata.name")
	g.refused("names", "duplicate karpenter pool", Karpenter, karpenterBase+"---\n"+karpenterBase[:strings.Index(karpenterBase, "---")], "NodePool np (document 3)")
	g.refused("names", "duplicate container", Scenario, withDeployment("        - name: app\n          image: registry.k8s.io/pause:3.10\n", "        - name: app\n          image: x\n        - name: app\n          image: registry.k8s.io/pause:3.10\n"), wantPodSpec+"containers[1].name")
	// A Deployment and a Job of the same name are different objects.
	g.accepted("names", "same name different kinds", Scenario, strings.Replace(scenarioBase, "name: batch", "name: web", 1), scenarioPods)
	g.accepted("names", "same name other namespace", Scenario, scenarioBase+strings.Replace(deploy, "namespace: default", "namespace: other", 1), scenarioPods+2)
}

// unknownFields: misspelled, unknown or mistyped fields and kinds.
func (g *gen) unknownFields() {
	scenario := []struct{ what, old, new, want string }{
		{"spec replica", "replicas: 2", "replica: 2", wantDeployment + "spec.replica"},
		{"containers capitalised", "      containers:\n        - name: app", "      Containers: []\n      containers:\n        - name: app", wantPodSpec + "Containers"},
		{"resources requets", "resources: {requests: {cpu: 500m", "resources: {requets: {cpu: 500m", wantPodSpec + "containers[0].resources.requets"},
		{"top level field", "kind: Deployment\n", "kind: Deployment\nstatus2: {}\n", wantDeployment + "status2"},
		{"metadata field", "metadata: {name: web, namespace: default,", "metadata: {name: web, namespace: default, Name: x,", wantDeployment + "metadata.Name"},
		{"replicas string", "replicas: 2", "replicas: two", wantDeployment + "spec.replicas"},
		{"replicas list", "replicas: 2", "replicas: [2]", wantDeployment + "spec.replicas"},
		{"containers map", "      containers:\n        - name: app\n          image: registry.k8s.io/pause:3.10\n          resources: {requests: {cpu: 500m, memory: 1Gi}}", "      containers: {name: app}", wantPodSpec + "containers"},
		{"requests list", "{requests: {cpu: 500m, memory: 1Gi}}", "{requests: [500m]}", wantPodSpec + "containers[0].resources.requests"},
		{"labels list", "labels: {app: web}}\n    spec:", "labels: [app]}\n    spec:", wantDeployment + "spec.template.metadata.labels"},
		{"unknown kind", "kind: Deployment", "kind: Deploymnet", "Deploymnet default/web: kind"},
		{"unknown apiVersion", "apiVersion: apps/v1", "apiVersion: apps/v2", wantDeployment + "apiVersion"},
		{"missing kind", "kind: Deployment\n", "", "document 3: kind"},
		{"missing apiVersion", "apiVersion: apps/v1\n", "", wantDeployment + "apiVersion"},
		{"kind number", "kind: Deployment", "kind: 7", "document 3"},
		{"pool unknown field", "  limits: {cpu: \"1000\", memory: 4000Gi}", "  limit: {cpu: \"1000\"}", wantPool + "spec.limit"},
		{"pool requirement field", "{key: tenon.dev/capacity-type, operator: In, values: [on-demand]}", "{key: tenon.dev/capacity-type, operator: In, value: [on-demand]}", wantPool + "spec.template.spec.requirements[0].value"},
		{"job field", "parallelism: 1", "paralelism: 1", wantJob + "spec.paralelism"},
		{"null spec", "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}", "spec: null\nx:\n  replicas: 2\n  selector: {matchLabels: {app: web}}", wantDeployment + "x"},
		{"selector mismatch", "selector: {matchLabels: {app: web}}", "selector: {matchLabels: {app: api}}", wantDeployment + "spec.template.metadata.labels"},
	}
	for _, c := range scenario {
		g.refused("unknown-fields", c.what, Scenario, sub(scenarioBase, c.old, c.new), c.want)
	}
	karpenter := []struct{ what, old, new, want string }{
		{"unknown kind", "kind: NodePool", "kind: NodePol", "NodePol np: kind"},
		{"unknown apiVersion", "apiVersion: karpenter.sh/v1\n", "apiVersion: karpenter.sh/v9\n", wantKPool + "apiVersion"},
		{"missing kind", "kind: NodePool\n", "", "document 1: kind"},
		{"weight string", "weight: 10", "weight: ten", wantKPool + "spec.weight"},
		{"requirements map", "      requirements:\n", "      requirements: {}\n      x:\n", wantKPool},
		{"limits list", `limits: {cpu: "400", memory: 1000Gi}`, `limits: [400]`, wantKPool + "spec.limits"},
		{"class role number", "role: TenonNodeRole-prod", "role: 7", wantKClass + "spec.role"},
		{"class amiSelectorTerms map", "amiSelectorTerms: [{alias: al2023@latest}]", "amiSelectorTerms: {alias: al2023@latest}", wantKClass + "spec.amiSelectorTerms"},
		{"metadata list", "metadata: {name: default}", "metadata: [default]", "document 2"},
		{"not an object", "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:", "- just\n- a list\n- x:", "document 2"},
		{"deployment given", "apiVersion: karpenter.sh/v1\nkind: NodePool", "apiVersion: apps/v1\nkind: Deployment", "Deployment"},
		{"tenon object given", "apiVersion: karpenter.sh/v1\nkind: NodePool", "apiVersion: tenon.dev/v1\nkind: NodePool", "NodePool np: apiVersion"},
	}
	for _, c := range karpenter {
		g.refused("unknown-fields", c.what, Karpenter, sub(karpenterBase, c.old, c.new), c.want)
	}
	// Fields Tenon has no equivalent for are converted and listed, not
	// refused: the objects are all there.
	g.accepted("unknown-fields", "karpenter unknown spec field", Karpenter, sub(karpenterBase, "weight: 10", "weight: 10\n  frobnicate: 1"), karpenterObjects)
	g.accepted("unknown-fields", "karpenter unknown nested field", Karpenter, sub(karpenterBase, "consolidateAfter: 1m}", "consolidateAfter: 1m, x: {y: 1}}"), karpenterObjects)
}

// documents: several objects in one document, trailing content, empty
// files: each used to drop objects silently.
func (g *gen) documents() {
	podFlow := func(name string) string {
		return "{apiVersion: v1, kind: Pod, metadata: {name: " + name + ", namespace: default}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}}\n"
	}
	podJSON := func(name string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "` + name + `", "namespace": "default"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}` + "\n"
	}
	pool := scenarioBase[:strings.Index(scenarioBase, "---\napiVersion: apps/v1")] + "---\n"
	g.refused("documents", "flow objects on consecutive lines", Scenario, pool+podFlow("a")+podFlow("b"), "")
	g.refused("documents", "flow objects on one line", Scenario, pool+strings.TrimSuffix(podFlow("a"), "\n")+" "+podFlow("b"), "")
	g.refused("documents", "json stream stray brace", Scenario, strings.TrimSuffix(podJSON("a"), "\n")+"}\n"+podJSON("b"), "")
	g.refused("documents", "json trailing comma", Scenario, strings.TrimSuffix(podJSON("a"), "}\n")+",}\n"+podJSON("b"), "")
	g.refused("documents", "json trailing garbage", Scenario, podJSON("a")+"garbage\n", "")
	g.refused("documents", "document after end marker", Scenario, sub(scenarioBase, "---\napiVersion: batch/v1", "...\napiVersion: batch/v1"), "")
	g.refused("documents", "two objects on separator lines", Scenario, pool+"--- "+podFlow("a")+"--- "+podFlow("b"), "")
	g.refused("documents", "empty file", Scenario, "", "")
	g.refused("documents", "only comments", Scenario, "# nothing here\n---\n# still nothing\n", "")
	g.refused("documents", "only separators", Scenario, "---\n---\n---\n", "")
	g.refused("documents", "only whitespace", Scenario, "\n\n   \n\t\n", "")
	g.refused("documents", "null document", Scenario, "null\n", "")
	g.refused("documents", "scalar document", Scenario, pool+"just a string\n", "")
	g.refused("documents", "list document", Scenario, pool+"- a\n- b\n", "")
	g.refused("documents", "tab indentation", Scenario, sub(scenarioBase, "  replicas: 2", "\treplicas: 2"), "")
	g.refused("documents", "duplicate key", Scenario, sub(scenarioBase, "  replicas: 2", "  replicas: 2\n  replicas: 3"), "")
	g.refused("documents", "merge key", Scenario, sub(scenarioBase, "  replicas: 2", "  <<: {replicas: 3}\n  replicas: 2"), "")
	// A top-level list of objects is read as a List's items.
	g.accepted("documents", "list of objects", Scenario, "- "+strings.TrimSpace(podFlow("a"))+"\n- "+podFlow("b"), 2)
	for _, tool := range []Tool{Karpenter} {
		g.refused("documents", "flow objects on consecutive lines", tool, "{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: a}, spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}}\n{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: b}, spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}}\n", "")
		g.refused("documents", "document after end marker", tool, sub(karpenterBase, "---\n", "...\n"), "")
		g.refused("documents", "empty file", tool, "", "")
		g.refused("documents", "only comments", tool, "# nothing\n", "")
		g.refused("documents", "duplicate key", tool, sub(karpenterBase, "weight: 10", "weight: 10\n  weight: 20"), "")
		g.refused("documents", "empty list", tool, "apiVersion: v1\nkind: List\nitems: []\n", "")
	}
	// Written differently, the same objects: all of them accepted.
	g.accepted("documents", "crlf line endings", Scenario, strings.ReplaceAll(scenarioBase, "\n", "\r\n"), scenarioPods)
	g.accepted("documents", "byte order mark", Scenario, "\ufeff"+scenarioBase, scenarioPods)
	g.accepted("documents", "json stream", Scenario, podJSON("a")+podJSON("b"), 2)
	g.refused("documents", "json objects after yaml without ---", Scenario, pool+"---\n"+podJSON("a")+podJSON("b"), "")
	g.accepted("documents", "flow objects with separators", Scenario, pool+podFlow("a")+"---\n"+podFlow("b"), 2)
	g.accepted("documents", "comments and empty documents", Scenario, "# a scenario\n---\n---\n"+scenarioBase+"---\n# end\n", scenarioPods)
	g.accepted("documents", "document end markers", Scenario, strings.ReplaceAll(scenarioBase, "---\n", "...\n---\n"), scenarioPods)
	g.accepted("documents", "list kind", Scenario, pool+"---\napiVersion: v1\nkind: List\nitems:\n- "+strings.TrimSpace(podFlow("a"))+"\n- "+podFlow("b"), 2)
	g.accepted("documents", "crlf line endings", Karpenter, strings.ReplaceAll(karpenterBase, "\n", "\r\n"), karpenterObjects)
	g.accepted("documents", "list kind", Karpenter, "apiVersion: v1\nkind: List\nitems:\n"+listItems(karpenterBase), karpenterObjects)
	g.accepted("documents", "document end markers", Karpenter, strings.ReplaceAll(karpenterBase, "---\n", "...\n---\n"), karpenterObjects)
}

// listItems turns a multi-document YAML into the items of a List.
func listItems(multi string) string {
	var sb strings.Builder
	for _, doc := range strings.Split(multi, "---\n") {
		lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
		for i, l := range lines {
			if i == 0 {
				sb.WriteString("- " + l + "\n")
			} else {
				sb.WriteString("  " + l + "\n")
			}
		}
	}
	return sb.String()
}

// operators: requirement and selector operators and values the API server
// refuses, which used to leave a pod "unschedulable (invalid pod spec)"
// with exit 0.
func (g *gen) operators() {
	const term = wantPodSpec + "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
	exprs := []struct{ what, expr, want string }{
		{"operator Sometimes", "{key: a, operator: Sometimes, values: [x]}", term + "operator"},
		{"operator lower case", "{key: a, operator: in, values: [x]}", term + "operator"},
		{"operator empty", "{key: a, operator: '', values: [x]}", term + "operator"},
		{"Gt abc", "{key: a, operator: Gt, values: [abc]}", term + "values[0]"},
		{"Lt 1.5", "{key: a, operator: Lt, values: ['1.5']}", term + "values[0]"},
		{"Gt two values", "{key: a, operator: Gt, values: ['1', '2']}", term + "values"},
		{"Gt no values", "{key: a, operator: Gt}", term + "values"},
		{"In no values", "{key: a, operator: In}", term + "values"},
		{"NotIn empty values", "{key: a, operator: NotIn, values: []}", term + "values"},
		{"Exists with values", "{key: a, operator: Exists, values: [x]}", term + "values"},
		{"DoesNotExist with values", "{key: a, operator: DoesNotExist, values: [x]}", term + "values"},
		{"key with space", "{key: 'a b', operator: Exists}", term + "key"},
		{"empty key", "{key: '', operator: Exists}", term + "key"},
		{"key newline", "{key: \"a\\nb\", operator: Exists}", term + "key"},
	}
	// Values of node selector requirements are not label values: the API
	// server takes any string, and so does simulate.
	g.accepted("operators", "node affinity value of 64 characters", Scenario, podSpecWith("affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: a, operator: NotIn, values: ["+strings.Repeat("v", 64)+"]}]\n"), scenarioPods)
	for _, e := range exprs {
		g.refused("operators", "node affinity "+e.what, Scenario, podSpecWith("affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions: ["+e.expr+"]\n"), e.want)
	}
	others := []struct{ what, lines, want string }{
		{"no node selector terms", "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms: []\n", wantPodSpec + "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"},
		{"preferred weight 0", "affinity:\n  nodeAffinity:\n    preferredDuringSchedulingIgnoredDuringExecution:\n    - weight: 0\n      preference: {matchExpressions: [{key: a, operator: Exists}]}\n", wantPodSpec + "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
		{"preferred operator", "affinity:\n  nodeAffinity:\n    preferredDuringSchedulingIgnoredDuringExecution:\n    - weight: 10\n      preference: {matchExpressions: [{key: a, operator: Maybe}]}\n", wantPodSpec + "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator"},
		{"pod affinity selector operator", "affinity:\n  podAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n    - topologyKey: kubernetes.io/hostname\n      labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ['1']}]}\n", wantPodSpec + "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator"},
		{"pod affinity no topology key", "affinity:\n  podAntiAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n    - labelSelector: {matchLabels: {app: web}}\n", wantPodSpec + "affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"},
		{"spread whenUnsatisfiable Never", "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: Never, labelSelector: {matchLabels: {app: web}}}\n", wantPodSpec + "topologySpreadConstraints[0].whenUnsatisfiable"},
		{"spread maxSkew 0", "topologySpreadConstraints:\n- {maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n", wantPodSpec + "topologySpreadConstraints[0].maxSkew"},
		{"spread no topology key", "topologySpreadConstraints:\n- {maxSkew: 1, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n", wantPodSpec + "topologySpreadConstraints[0].topologyKey"},
		{"toleration operator", "tolerations:\n- {key: a, operator: Maybe, effect: NoSchedule}\n", wantPodSpec + "tolerations[0].operator"},
		{"toleration effect", "tolerations:\n- {key: a, operator: Exists, effect: Sometimes}\n", wantPodSpec + "tolerations[0].effect"},
		{"toleration Exists with value", "tolerations:\n- {key: a, operator: Exists, value: x}\n", wantPodSpec + "tolerations[0].value"},
		{"node selector key", "nodeSelector: {'bad key': x}\n", wantPodSpec + "nodeSelector"},
	}
	for _, o := range others {
		g.refused("operators", o.what, Scenario, podSpecWith(o.lines), o.want)
	}
	pool := []struct{ what, req, want string }{
		{"pool operator Sometimes", "{key: tenon.dev/capacity-type, operator: Sometimes, values: [spot]}", wantPool + "spec.template.spec.requirements[0].operator"},
		{"pool Gt abc", "{key: tenon.dev/instance-generation, operator: Gt, values: [abc]}", wantPool + "spec.template.spec.requirements[0]"},
		{"pool In no values", "{key: tenon.dev/capacity-type, operator: In}", wantPool + "spec.template.spec.requirements[0]"},
	}
	for _, p := range pool {
		g.refused("operators", p.what, Scenario, sub(scenarioBase, "{key: tenon.dev/capacity-type, operator: In, values: [on-demand]}", p.req), p.want)
	}
	karpenter := []struct{ what, req, want string }{
		{"karpenter operator Sometimes", "{key: karpenter.sh/capacity-type, operator: Sometimes, values: [spot]}", wantKPool + "spec.template.spec.requirements[0].operator"},
		{"karpenter Gt abc", "{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [abc]}", wantKPool + "spec.template.spec.requirements[0]"},
		{"karpenter In no values", "{key: karpenter.sh/capacity-type, operator: In}", wantKPool + "spec.template.spec.requirements[0]"},
		{"karpenter Exists with values", "{key: karpenter.sh/capacity-type, operator: Exists, values: [spot]}", wantKPool + "spec.template.spec.requirements[0]"},
	}
	for _, k := range karpenter {
		g.refused("operators", k.what, Karpenter, sub(karpenterBase, "{key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}", k.req), k.want)
	}
}

// injections are strings meant to end a comment or a string in generated
// HCL, YAML, TOML or MIME and start something live after it.
var injections = map[string]string{
	"hcl data block":     "x\ndata \"external\" \"pwn\" { program = [\"sh\", \"-c\", \"id\"] }\n#",
	"hcl crlf":           "x\r\ndata \"external\" \"pwn\" { program = [\"id\"] }\r\n#",
	"yaml document":      "x\n---\nkind: Secret\n#",
	"line separator":     "x\u2028data \"external\" \"pwn\" {}\u2029",
	"next line":          "x\u0085---\u0085kind: Secret",
	"terminal escape":    "x\x1b[2K\x1b[1Ahidden",
	"rtl override":       "x\u202egnp.exe",
	"close block":        "x\"]\n}\nresource \"null_resource\" \"pwn\" {\n#",
	"template sequence":  "${file(\"/etc/passwd\")}",
	"toml table":         "x\"\n[settings.kubernetes]\napi-server = \"evil\"\n#",
	"mime boundary":      "x\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/sh\nid\n",
	"shell substitution": "$(id)`id`",
}

// injection: each injection as a key or value in the places input reaches
// generated text: unknown field keys, annotation keys and values, labels,
// user data; for convert the output must hold exactly the objects.
func (g *gen) injection() {
	for _, what := range sortedKeys(injections) {
		q := quoteYAML(injections[what])
		g.add("injection", "unknown field key "+what, Karpenter, sub(karpenterBase, "weight: 10", "weight: 10\n  "+q+": 1"), Either, "", karpenterObjects)
		g.add("injection", "annotation key "+what, Karpenter, sub(karpenterBase, "annotations: {owner: platform}", "annotations: {"+q+": v}"), Either, "", karpenterObjects)
		g.add("injection", "annotation value "+what, Karpenter, sub(karpenterBase, "annotations: {owner: platform}", "annotations: {owner: "+q+"}"), Accepted, "", karpenterObjects)
		g.add("injection", "user data "+what, Karpenter, sub(karpenterBase, "role: TenonNodeRole-prod", "role: TenonNodeRole-prod\n  userData: "+q), Accepted, "", karpenterObjects)
		g.refused("injection", "label value "+what, Scenario, withDeployment("labels: {app: web}}\n    spec:", "labels: {app: web, x: "+q+"}}\n    spec:"), wantDeployment+"spec.template.metadata.labels")
	}
}

// quoteYAML writes s as a double-quoted YAML string (JSON's escapes are
// YAML's).
func quoteYAML(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0x202e:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
