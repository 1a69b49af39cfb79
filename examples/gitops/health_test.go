package gitops_test

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

var updateHealth = flag.Bool("update-health", false, "rewrite argocd/argocd-cm-health.yaml from the .lua files")

// healthScripts maps each tenon.dev kind to the Argo CD health check that judges it.
var healthScripts = map[string]string{
	"NodePool":    "argocd/conditions.lua",
	"NodeClass":   "argocd/conditions.lua",
	"Provisioner": "argocd/conditions.lua",
	"NodeClaim":   "argocd/nodeclaim.lua",
	"NodeOverlay": "argocd/conditions.lua",
}

// health runs an Argo CD health script as Argo CD does: gopher-lua (the interpreter Argo CD
// embeds), the object as the global obj, the returned table read as status and message.
func health(t *testing.T, script string, obj runtime.Object) (status, message string) {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath} {
		open(L)
	}
	L.SetGlobal("obj", toLua(L, u))
	if err := L.DoString(read(t, script)); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("%s returned %s, want a table", script, L.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
}

// toLua converts a JSON-shaped value as Argo CD does: objects and arrays become tables (arrays
// 1-based), numbers LNumber.
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, e := range x {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, e := range x {
			t.Append(toLua(L, e))
		}
		return t
	case string:
		return lua.LString(x)
	case bool:
		return lua.LBool(x)
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case nil:
		return lua.LNil
	default:
		panic(fmt.Sprintf("toLua: %T", v))
	}
}

func cond(typ string, status metav1.ConditionStatus, gen int64, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, ObservedGeneration: gen, Reason: "R" + typ, Message: msg, LastTransitionTime: metav1.Unix(1, 0)}
}

func TestHealthChecks(t *testing.T) {
	now := metav1.Unix(2, 0)
	pool := func(gen int64, conds ...metav1.Condition) runtime.Object {
		np := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general", Generation: gen}}
		np.Status.Conditions = conds
		return np
	}
	class := func(conds ...metav1.Condition) runtime.Object {
		nc := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 1}}
		nc.Status.Conditions = conds
		return nc
	}
	provisioner := func(conds ...metav1.Condition) runtime.Object {
		p := &v1alpha5.Provisioner{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 3}}
		p.Status.Conditions = conds
		return p
	}
	claim := func(deleting bool, conds ...metav1.Condition) runtime.Object {
		c := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "general-abcde", Generation: 1}}
		if deleting {
			c.DeletionTimestamp = &now
		}
		c.Status = v1.NodeClaimStatus{NodeName: "node-1", ProviderID: "kwok://node-1", InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", Conditions: conds}
		return c
	}
	tests := []struct {
		name            string
		kind            string
		obj             runtime.Object
		status, message string
	}{
		{"pool ready", "NodePool", pool(2, cond("ValidationSucceeded", "True", 2, ""), cond("Ready", "True", 2, "")), "Healthy", "Ready"},
		{"pool not looked at yet", "NodePool", pool(1), "Progressing", "Waiting for the Tenon agent to set the Ready condition (is the agent running?)"},
		{"pool edited since", "NodePool", pool(3, cond("Ready", "True", 2, "")), "Progressing", "Waiting for the Tenon agent to observe generation 3"},
		{"pool invalid", "NodePool", pool(2, cond("ValidationSucceeded", "False", 2, "limits.cpu is -1: a limit cannot be negative"), cond("Ready", "False", 2, "limits.cpu is -1: a limit cannot be negative")), "Degraded", "ValidationSucceeded: limits.cpu is -1: a limit cannot be negative"},
		{"pool's class not ready", "NodePool", pool(2, cond("ValidationSucceeded", "True", 2, ""), cond("NodeClassReady", "False", 2, `NodeClass "default" has no subnets`), cond("Ready", "False", 2, "x")), "Degraded", `NodeClassReady: NodeClass "default" has no subnets`},
		{"pool ready unknown", "NodePool", pool(2, cond("Ready", "Unknown", 2, "")), "Progressing", "Ready is Unknown"},
		{"class ready", "NodeClass", class(cond("SubnetsReady", "True", 1, ""), cond("Ready", "True", 1, "nodes can be launched")), "Healthy", "Ready"},
		{"class without subnets", "NodeClass", class(cond("SubnetsReady", "False", 1, "no subnet matches the selector"), cond("Ready", "False", 1, "no subnets")), "Degraded", "SubnetsReady: no subnet matches the selector"},
		{"class false without detail", "NodeClass", class(cond("Ready", "False", 1, "")), "Degraded", "Ready is False (RReady)"},
		{"provisioner ready", "Provisioner", provisioner(cond("Ready", "True", 3, "")), "Healthy", "Ready"},
		{"provisioner invalid", "Provisioner", provisioner(cond("ValidationSucceeded", "False", 3, "requirements[0].operator: Sometimes is not an operator"), cond("Ready", "False", 3, "")), "Degraded", "ValidationSucceeded: requirements[0].operator: Sometimes is not an operator"},
		{"claim new", "NodeClaim", claim(false), "Progressing", "Launching"},
		{"claim launched", "NodeClaim", claim(false, cond("Launched", "True", 1, "")), "Progressing", "Launched kwok://node-1, waiting for its node to register"},
		{"claim registered", "NodeClaim", claim(false, cond("Launched", "True", 1, ""), cond("Registered", "True", 1, "")), "Progressing", "Node node-1 registered, waiting for it to become Ready"},
		{"claim ready", "NodeClaim", claim(false, cond("Launched", "True", 1, ""), cond("Registered", "True", 1, ""), cond("Initialized", "True", 1, ""), cond("Ready", "True", 1, "")), "Healthy", "Running as m5.large (spot, us-east-1a)"},
		{"claim drifted", "NodeClaim", claim(false, cond("Ready", "True", 1, ""), cond("Drifted", "True", 1, "")), "Healthy", "Running as m5.large (spot, us-east-1a); drifted from its NodePool or NodeClass, due for replacement"},
		{"claim expired", "NodeClaim", claim(false, cond("Ready", "True", 1, ""), cond("Drifted", "False", 1, ""), cond("Expired", "True", 1, "")), "Healthy", "Running as m5.large (spot, us-east-1a); expired, due for replacement"},
		{"claim class not ready", "NodeClaim", claim(false, cond("Launched", "False", 1, `NodeClass "default" is not ready`)), "Degraded", `Not launched: NodeClass "default" is not ready`},
		{"claim terminating", "NodeClaim", claim(true, cond("Ready", "True", 1, "")), "Progressing", "Terminating: draining the node and deleting its instance"},
		{"pool deleting", "NodePool", func() runtime.Object { o := pool(1).(*v1.NodePool); o.DeletionTimestamp = &now; return o }(), "Progressing", "Being deleted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, message := health(t, healthScripts[tc.kind], tc.obj)
			if status != tc.status || message != tc.message {
				t.Errorf("health = %s %q, want %s %q", status, message, tc.status, tc.message)
			}
		})
	}
}

// TestArgoCDHealthConfig keeps argocd/argocd-cm-health.yaml (what users merge into argocd-cm)
// equal to the scripts the test above runs, one key per kind.
func TestArgoCDHealthConfig(t *testing.T) {
	kinds := make([]string, 0, len(healthScripts))
	for k := range healthScripts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	data := map[string]string{}
	for _, k := range kinds {
		data["resource.customizations.health.tenon.dev_"+k] = read(t, healthScripts[k])
	}
	cm := corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "argocd", Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		Data:       data,
	}
	out, err := yaml.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Argo CD health checks for the tenon.dev kinds: merge into the argocd-cm ConfigMap\n" +
		"# (kubectl -n argocd patch configmap argocd-cm --patch-file argocd-cm-health.yaml).\n" +
		"# Generated from conditions.lua and nodeclaim.lua: go test ./examples/gitops -run TestArgoCDHealthConfig -update-health\n" +
		strings.Replace(string(out), "  creationTimestamp: null\n", "", 1)
	const path = "argocd/argocd-cm-health.yaml"
	if *updateHealth {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(t, path); got != want {
		t.Errorf("%s is stale: run go test ./examples/gitops -run TestArgoCDHealthConfig -update-health", path)
	}
}
