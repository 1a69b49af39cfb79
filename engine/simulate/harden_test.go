package simulate

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// The reproducers of issue 20's findings on `tenon simulate`: each input
// was misread before (a wrapped quantity, a dropped object, memory
// exhausted, a crash exiting 2) and must now exit 2 naming the file, the
// object and the field, or exit 3 for a crash.

// runSimulate runs the command with the real engine on data as one file
// and returns the exit code and stderr.
func runSimulate(t *testing.T, data string, args ...string) (int, string) {
	t.Helper()
	path := writeScenario(t, data)
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	code := c.run(context.Background(), append([]string{"-f", path}, args...), &stdout, &stderr)
	return code, stderr.String()
}

func wantBadInput(t *testing.T, code int, stderr string, want ...string) {
	t.Helper()
	if code != ExitBadInput {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitBadInput, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, stderr)
		}
	}
}

// TestQuantityOverflow: a quantity past int64 used to wrap (8E cpu placed
// on a t3.nano, a limit of 1E refusing every pod as "limit cpu=-1").
func TestQuantityOverflow(t *testing.T) {
	for _, cpu := range []string{"8E", "9999999Ei", "2M"} {
		t.Run("request "+cpu, func(t *testing.T) {
			code, stderr := runSimulate(t, header+pool+deployment(cpu))
			wantBadInput(t, code, stderr, "s.yaml: Deployment default/web: spec.template.spec.containers[0].resources.requests.cpu: Invalid value", "must be at most 1M")
		})
	}
	// A Quantity takes minutes to parse 1e-99999999 and to compare
	// 1e99999999 with a bound: refused before decoding, at once.
	for _, q := range []string{`"1e-99999999"`, "1e99999999", "1E+31", "1e400"} {
		t.Run("exponent "+q, func(t *testing.T) {
			start := time.Now()
			code, stderr := runSimulate(t, header+pool+deployment(q))
			wantBadInput(t, code, stderr, "s.yaml: Deployment default/web: spec.template.spec.containers[0].resources.requests.cpu: \"", "\" has an exponent past ±30")
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	t.Run("pool limit 1E", func(t *testing.T) {
		limited := strings.Replace(pool, "spec:\n  template:", "spec:\n  limits: {cpu: 1E}\n  template:", 1)
		code, stderr := runSimulate(t, header+limited+deployment("1"))
		wantBadInput(t, code, stderr, "s.yaml: NodePool default: spec.limits.cpu: Invalid value: \"1E\": must be at most 1P")
	})
	t.Run("node allocatable", func(t *testing.T) {
		node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {memory: 9999999Ei}}\n"
		code, stderr := runSimulate(t, header+pool+node+deployment("1"))
		wantBadInput(t, code, stderr, "s.yaml: Node node-1: status.allocatable.memory: Invalid value", "must be at most 64Ti")
	})
}

// TestPodCap: a huge replica count used to expand pods until the process
// died (exit 2, like bad input); the count is now refused before any pod is
// made.
func TestPodCap(t *testing.T) {
	job := "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n  parallelism: 2147483647\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x}]\n"
	for name, tc := range map[string]struct{ data, want string }{
		"replicas 2^31-1": {header + pool + strings.Replace(deployment("1"), "replicas: 2", "replicas: 2147483647", 1), "Deployment default/web: spec.replicas: Invalid value: 2147483647"},
		"replicas 10^7":   {header + pool + strings.Replace(deployment("1"), "replicas: 2", "replicas: 10000000", 1), "Deployment default/web: spec.replicas: Invalid value: 10000000"},
		"job parallelism": {header + pool + job, "Job default/batch: spec.parallelism: Invalid value: 2147483647"},
		"two workloads over the cap together": {header + pool + strings.Replace(deployment("1"), "replicas: 2", fmt.Sprintf("replicas: %d", MaxPods), 1) +
			strings.ReplaceAll(strings.Replace(deployment("1"), "replicas: 2", "replicas: 1", 1), "web", "api"), "Deployment default/api: spec.replicas: Invalid value: 1: the scenario would hold 100001 pods"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stderr := runSimulate(t, tc.data)
			wantBadInput(t, code, stderr, "s.yaml: "+tc.want, fmt.Sprintf("more than the %d", MaxPods))
		})
	}
}

// TestSilentlyDroppedObjects: flow-style objects on consecutive lines, a
// JSON stream with a stray }, or a document after `...` used to keep only
// the first object; an empty file used to simulate nothing and exit 0.
func TestSilentlyDroppedObjects(t *testing.T) {
	podFlow := func(name string) string {
		return "{apiVersion: v1, kind: Pod, metadata: {name: " + name + "}, spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1}}}]}}\n"
	}
	podJSON := func(name string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "` + name + `"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}` + "\n"
	}
	for name, tc := range map[string]struct{ data, want string }{
		"flow style without ---":      {podFlow("a") + podFlow("b"), "s.yaml: document 1: malformed"},
		"JSON stream, stray }":        {strings.TrimSuffix(podJSON("a"), "\n") + "}\n" + podJSON("b"), "s.yaml: document 2: malformed JSON"},
		"JSON stream, trailing comma": {strings.TrimSuffix(podJSON("a"), "}\n") + ",}\n" + podJSON("b"), "s.yaml: document 1: malformed JSON"},
		"a document after ...":        {"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: x}]}\n...\n" + podFlow("b"), "s.yaml: document 1: malformed YAML"},
		"two documents on --- lines":  {"--- " + podFlow("a") + "--- " + podFlow("b"), "s.yaml: document 1: malformed YAML: line 2: a second document"},
		"empty file":                  {"", "s.yaml: the file is empty"},
		"only comments":               {"# nothing\n---\n# still nothing\n", "s.yaml: the file holds no object"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stderr := runSimulate(t, tc.data)
			wantBadInput(t, code, stderr, tc.want)
		})
	}
}

// TestInvalidNodeAffinity: an unknown operator or a non-integer Gt used to
// exit 0 with the pod "unschedulable (invalid pod spec)".
func TestInvalidNodeAffinity(t *testing.T) {
	affinity := func(expr string) string {
		return strings.Replace(deployment("1"), "      containers:", "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions: ["+expr+"]\n      containers:", 1)
	}
	const at = "s.yaml: Deployment default/web: spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
	for name, tc := range map[string]struct{ expr, want string }{
		"operator Sometimes":   {"{key: a, operator: Sometimes, values: [x]}", at + "operator: Unsupported value: \"Sometimes\""},
		"Gt abc":               {"{key: a, operator: Gt, values: [abc]}", at + "values[0]: Invalid value: \"abc\": must be an integer"},
		"In without values":    {"{key: a, operator: In}", at + "values: Required value"},
		"Exists with values":   {"{key: a, operator: Exists, values: [x]}", at + "values: Forbidden"},
		"Lt with two values":   {"{key: a, operator: Lt, values: ['1', '2']}", at + "values: Required value"},
		"a key that is no key": {"{key: 'a b', operator: Exists}", at + "key: Invalid value"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stderr := runSimulate(t, header+pool+affinity(tc.expr))
			wantBadInput(t, code, stderr, tc.want)
		})
	}
}

// panicSolver crashes, as a bug in the engine would.
type panicSolver struct{}

func (panicSolver) Solve(context.Context, *state.Snapshot, []*state.Pod) (solution, error) {
	panic("index out of range [3] with length 3")
}

// TestCrashIsNotBadInput: a panic used to end the process with Go's exit
// status 2, which means bad input; it is an internal error, exit 3, with or
// without --timeout (which runs the work in a goroutine of its own).
func TestCrashIsNotBadInput(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	for _, args := range [][]string{{"-f", path}, {"-f", path, "--timeout", "1m"}} {
		var stdout, stderr bytes.Buffer
		c := command{engine: panicSolver{}, now: time.Now}
		if code := c.run(context.Background(), args, &stdout, &stderr); code != ExitInternal {
			t.Errorf("%v: exit %d, want %d", args, code, ExitInternal)
		}
		if msg := stderr.String(); !strings.Contains(msg, "tenon simulate: internal error: index out of range") || !strings.Contains(msg, "this is a bug in tenon") {
			t.Errorf("%v: stderr:\n%s", args, msg)
		}
	}
}

// TestWorkloadsOfOneNameAndTwoKinds: a Deployment and a Job may share a
// name, as in Kubernetes; their pods were both named web-0..., and the
// scenario was refused for a duplicate pod the user never wrote.
func TestWorkloadsOfOneNameAndTwoKinds(t *testing.T) {
	job := "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x}]\n"
	s, err := Parse(File{Name: "s.yaml", Data: []byte(header + pool + deployment("1") + job)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.Objects.Pods {
		names = append(names, p.Name)
	}
	if want := []string{"web-0", "web-1", "web-job-0"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("pods %v, want %v", names, want)
	}
}
