package simulate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

const header = `apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
  catalog: embedded
---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
`

const pool = `---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
`

// deployment returns a Deployment document with spec lines replaced.
func deployment(cpu string) string {
	return `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: {requests: {cpu: ` + cpu + `, memory: 1Gi}}
`
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		file string
		data string
		want []string
	}{
		{
			name: "unknown kind",
			data: header + pool + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
			want: []string{"w.yaml: ConfigMap c: kind: Unsupported value: \"ConfigMap\""},
		},
		{
			name: "malformed quantity",
			data: header + pool + deployment("lots"),
			want: []string{"w.yaml: Deployment default/web: spec.template.spec.containers[0].resources.requests.cpu: quantities must match the regular expression"},
		},
		{
			name: "a Deployment whose template has no containers",
			data: header + pool + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: []}\n",
			want: []string{"w.yaml: Deployment default/web: spec.template.spec.containers: Required value"},
		},
		{
			name: "a zone not in the region",
			data: strings.Replace(header, "us-east-1b", "us-west-2a", 1) + pool,
			want: []string{"w.yaml: Scenario s: spec.zones[1]: Invalid value: \"us-west-2a\": zone is not in region us-east-1"},
		},
		{
			name: "an invalid NodePool",
			data: header + strings.Replace(pool, "operator: In", "operator: Maybe", 1),
			want: []string{"w.yaml: NodePool default: spec.template.spec.requirements[0].operator"},
		},
		{
			name: "an unknown field",
			data: header + pool + strings.Replace(deployment("1"), "replicas: 2", "replicaz: 2", 1),
			want: []string{"w.yaml: Deployment default/web: spec.replicaz: unknown field"},
		},
		{
			name: "a field in the wrong case",
			data: header + pool + strings.Replace(deployment("1"), "replicas: 2", "Replicas: 2", 1),
			want: []string{"w.yaml: Deployment default/web: spec.Replicas: unknown field"},
		},
		{
			name: "a wrong type",
			data: header + pool + strings.Replace(deployment("1"), "replicas: 2", "replicas: two", 1),
			want: []string{"w.yaml: Deployment default/web: spec.replicas: "},
		},
		{
			name: "a wrong apiVersion",
			data: header + pool + strings.Replace(deployment("1"), "apps/v1", "apps/v1beta1", 1),
			want: []string{"w.yaml: Deployment default/web: apiVersion: Unsupported value: \"apps/v1beta1\""},
		},
		{
			name: "a selector that does not match the template",
			data: header + pool + strings.Replace(deployment("1"), "selector: {matchLabels: {app: web}}", "selector: {matchLabels: {app: api}}", 1),
			want: []string{"w.yaml: Deployment default/web: spec.template.metadata.labels: Invalid value"},
		},
		{
			name: "a negative request",
			data: header + pool + deployment("-1"),
			want: []string{"w.yaml: Deployment default/web: spec.template.spec.containers[0].resources.requests.cpu: Invalid value: \"-1\""},
		},
		{
			name: "a topology spread without a key",
			data: header + pool + strings.Replace(deployment("1"), "      containers:", "      topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]\n      containers:", 1),
			want: []string{"w.yaml: Deployment default/web: spec.template.spec.topologySpreadConstraints[0].topologyKey: Required value"},
		},
		{
			name: "two Deployments with one name",
			data: header + pool + deployment("1") + deployment("2"),
			want: []string{"w.yaml: Deployment default/web: metadata.name: Duplicate value"},
		},
		{
			name: "a duplicate key",
			data: header + pool + strings.Replace(deployment("1"), "replicas: 2", "replicas: 2\n  replicas: 3", 1),
			want: []string{"w.yaml: document 4: malformed YAML: unmarshal errors:\n  line 29: key \"replicas\" already set in map"},
		},
		{
			name: "a NodePool naming a NodeClass that does not exist",
			data: header + strings.Replace(pool, "nodeClassRef: {name: default}", "nodeClassRef: {name: nope}", 1),
			want: []string{"w.yaml: NodePool default: spec.template.spec.nodeClassRef.name: NodeClass \"nope\" not found"},
		},
		{
			name: "a document without a kind",
			data: header + pool + "---\napiVersion: v1\nmetadata: {name: x}\n",
			want: []string{"w.yaml: document 4: kind: Required value"},
		},
		{
			name: "a second Scenario header",
			data: header + pool + "---\n" + strings.SplitN(header, "---", 2)[0],
			want: []string{"w.yaml: Scenario s: a second Scenario header"},
		},
		{
			name: "a malformed quantity in JSON",
			file: "w.json",
			data: `[{"apiVersion":"tenon.dev/v1","kind":"NodeClass","metadata":{"name":"default"},"spec":{"kwok":{}}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"1Gx"}}}]}}]`,
			want: []string{"w.json: Pod default/p: spec.containers[0].resources.requests.memory: quantities must match"},
		},
		{
			name: "a YAML syntax error, with its line in the file",
			data: header + pool + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: [}\n",
			want: []string{"w.yaml: document 4: malformed YAML: line 25: did not find expected node content"},
		},
		{
			name: "malformed JSON, with its line",
			file: "w.json",
			data: "# comment\n{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\" \"metadata\": {}}\n",
			want: []string{"w.json: document 1: malformed JSON: line 3: invalid character"},
		},
		{
			name: "an invalid Provisioner",
			data: header + "---\napiVersion: tenon.dev/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {providerRef: {name: default}, weight: 0}\n",
			want: []string{"w.yaml: Provisioner p: spec.weight"},
		},
		{
			name: "an unnamed item of a JSON array, by its place",
			file: "w.json",
			data: `[{"apiVersion":"tenon.dev/v1","kind":"NodeClass","metadata":{"name":"default"},"spec":{"kwok":{}}},
{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c"}]}}]`,
			want: []string{"w.json: Pod (document 1, item 2): metadata.name: Required value"},
		},
		{
			name: "a namespace on a cluster-scoped kind",
			data: header + strings.Replace(pool, "metadata: {name: default}", "metadata: {name: default, namespace: team}", 1),
			want: []string{`w.yaml: NodePool team/default: metadata.namespace: Forbidden: NodePool objects are cluster-scoped; remove the namespace "team"`},
		},
		{
			name: "a Scenario header of another version",
			data: strings.Replace(header, "tenon.dev/v1alpha1", "tenon.dev/v1", 1) + pool,
			want: []string{`w.yaml: Scenario s: apiVersion: Unsupported value: "tenon.dev/v1": Scenario is tenon.dev/v1alpha1`},
		},
		{
			name: "a kind of another group",
			data: header + pool + "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
			want: []string{"w.yaml: Widget w: apiVersion: only tenon.dev, core, apps, batch and policy kinds are accepted in a scenario (Scenario (tenon.dev/v1alpha1), NodePool (tenon.dev/v1),", "Widget.example.com is not one: remove it"},
		},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.file
			if name == "" {
				name = "w.yaml"
			}
			// Parse: the error names file, object and field.
			s, err := Parse(File{Name: name, Data: []byte(tt.data)})
			if err == nil {
				_, err = s.Snapshot()
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\ndoes not contain:\n%s", err, w)
				}
			}
			var inErr *manifest.Error
			if !errors.As(err, &inErr) {
				t.Errorf("error %T is not a *manifest.Error", err)
			}

			// The CLI: exit 2 and the same message.
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+filepath.Ext(name))
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			c := command{engine: fakeSolver{}, now: time.Now}
			if code := c.run(context.Background(), []string{"-f", path}, &stdout, &stderr); code != ExitBadInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitBadInput, stderr.String())
			}
			if !strings.Contains(stderr.String(), filepath.Base(path)) {
				t.Errorf("stderr does not name the file:\n%s", stderr.String())
			}
		})
	}
}
