package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// FuzzParse feeds arbitrary scenario files to Parse (seeded with the
// embedded examples and the shapes issue 20 found misread) and checks the
// semantics, not only that nothing panics: a refusal is *manifest.Errors
// naming the file; an accepted file has every object accounted for, the
// pods counted from an independent reading of the documents (yaml v3 or a
// JSON stream) as the scenario holds them: one per Pod, replicas per
// Deployment, ReplicaSet and StatefulSet, min(parallelism, completions)
// per Job, the items of a List or of a top-level array; and as many
// NodePools as documents of that kind. `make test` runs it for a bounded
// time; `make fuzz` longer.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("examples", "*.yaml"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	pod := "{apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c, image: x}]}}\n"
	f.Add([]byte(header + pool + deployment("1")))
	f.Add([]byte(pod + pod))
	f.Add([]byte("--- " + pod + "--- " + pod))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}` + "\n" + pod))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- " + pod))
	f.Add([]byte("- " + pod))
	f.Add([]byte("[" + strings.TrimSpace(pod) + ", " + strings.TrimSpace(pod) + "]\n"))
	f.Add([]byte(header + pool + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 3\n  completions: 2\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(File{Name: "fuzz.yaml", Data: data})
		if err != nil {
			for _, e := range manifest.Flatten(err) {
				var me *manifest.Error
				if !errors.As(e, &me) || me.File != "fuzz.yaml" {
					t.Fatalf("Parse returned %T not naming the file: %v", e, e)
				}
			}
			return
		}
		docs, ok := independentDocuments(data)
		if !ok {
			return // the independent reading disagrees on syntax: nothing to compare
		}
		var want expectedObjects
		for _, d := range docs {
			want.addDocument(d)
		}
		if len(s.Objects.Pods) != want.pods || len(s.Objects.NodePools) != want.pools {
			t.Fatalf("the scenario holds %d pods and %d NodePools; the documents hold %d and %d:\n%s", len(s.Objects.Pods), len(s.Objects.NodePools), want.pods, want.pools, data)
		}
	})
}

// independentDocuments reads data's documents without engine/manifest: as
// a JSON stream when it starts with {, else with yaml v3.
func independentDocuments(data []byte) ([]any, bool) {
	var docs []any
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for {
			var d any
			if err := dec.Decode(&d); errors.Is(err, io.EOF) {
				return docs, true
			} else if err != nil {
				return nil, false
			}
			docs = append(docs, d)
		}
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var d any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return docs, true
		} else if err != nil {
			return nil, false
		}
		docs = append(docs, d)
	}
}

// expectedObjects counts what documents should become.
type expectedObjects struct{ pods, pools int }

// addDocument counts a whole document: an object, or a top-level array
// whose items are objects (engine/manifest reads such an array as a List's
// items, one level deep).
func (e *expectedObjects) addDocument(doc any) {
	items, ok := doc.([]any)
	if !ok {
		e.add(doc)
		return
	}
	for _, it := range items {
		e.add(it)
	}
}

func (e *expectedObjects) add(doc any) {
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	spec, _ := m["spec"].(map[string]any)
	switch m["kind"] {
	case "List":
		items, _ := m["items"].([]any)
		for _, it := range items {
			e.add(it)
		}
	case "Pod":
		e.pods++
	case "Deployment", "ReplicaSet", "StatefulSet":
		e.pods += count(spec["replicas"], 1)
	case "Job":
		n := count(spec["parallelism"], 1)
		// A null completions is unset, as Kubernetes decodes it.
		if c, set := spec["completions"]; set && c != nil {
			n = min(n, count(spec["completions"], 0))
		}
		e.pods += n
	case "NodePool":
		e.pools++
	}
}

// count reads a replica count as YAML or JSON gives it.
func count(v any, absent int) int {
	switch n := v.(type) {
	case nil:
		return absent
	case int:
		return n
	case float64:
		return int(n)
	}
	return absent
}
