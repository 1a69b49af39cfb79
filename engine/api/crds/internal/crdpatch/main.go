// Command crdpatch adds to the generated CRDs the few schema constraints kubebuilder markers
// cannot express, as Karpenter's hack/validation scripts do: controller-gen has no marker for
// the values of a map[string]string, and a CEL rule over values of unbounded length costs more
// than the API server allows. `make generate` runs it (go generate) right after controller-gen.
//
// It inserts lines into the YAML text rather than re-encoding it, so the files keep
// controller-gen's layout, and it skips keys already present, so running it twice changes
// nothing.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// patch adds keys (in order) to the mappings found at path. A path element "*" walks every item
// of a sequence.
type patch struct {
	file string
	path []string
	add  []keyValue
}

type keyValue struct{ key, value string }

// labelValue is the syntax of a label value (k8s.io/apimachinery's IsValidLabelValue), the same
// expression the Go validation uses.
const labelValue = `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`

var patches = append([]patch{{
	file: "tenon.dev_nodepools.yaml",
	path: []string{"spec", "versions", "*", "schema", "openAPIV3Schema", "properties", "spec", "properties",
		"template", "properties", "metadata", "properties", "labels", "additionalProperties"},
	add: []keyValue{{"maxLength", "63"}, {"pattern", labelValue}},
}}, append(append(kubeletMapValues(), overlayCapacity()...), bufferResources()...)...)

// bufferResources bounds a NodePool buffer's resources map (a ResourceList, which takes no
// maxProperties marker), so its CEL rule over quantities stays within the API server's cost
// budget.
func bufferResources() []patch {
	resources := []string{"spec", "versions", "*", "schema", "openAPIV3Schema", "properties", "spec", "properties",
		"buffer", "properties", "resources"}
	return []patch{
		{file: "tenon.dev_nodepools.yaml", path: resources, add: []keyValue{{"maxProperties", "16"}}},
		{file: "tenon.dev_nodepools.yaml", path: append(slices.Clone(resources), "additionalProperties"), add: []keyValue{{"maxLength", "64"}}},
	}
}

// overlayCapacity bounds a NodeOverlay's capacity map (a ResourceList, which takes no
// maxProperties marker), so its CEL rules over keys and quantities stay within the API server's
// cost budget.
func overlayCapacity() []patch {
	capacity := []string{"spec", "versions", "*", "schema", "openAPIV3Schema", "properties", "spec", "properties", "capacity"}
	return []patch{
		{file: "tenon.dev_nodeoverlays.yaml", path: capacity, add: []keyValue{{"maxProperties", "32"}}},
		{file: "tenon.dev_nodeoverlays.yaml", path: append(slices.Clone(capacity), "additionalProperties"), add: []keyValue{{"maxLength", "64"}}},
	}
}

// kubeletMapValues bounds the values of the kubelet's maps, so their CEL rules (quantities,
// percentages, durations) stay within the API server's cost budget. The kubelet settings are one
// Go type, a NodeClass's aws.kubelet and a Provisioner's kubeletConfiguration.
func kubeletMapValues() []patch {
	kubelets := []struct {
		file string
		path []string
	}{
		{"tenon.dev_nodeclasses.yaml", []string{"aws", "properties", "kubelet"}},
		{"tenon.dev_provisioners.yaml", []string{"kubeletConfiguration"}},
	}
	var ps []patch
	for _, k := range kubelets {
		for _, m := range []string{"systemReserved", "kubeReserved", "evictionHard", "evictionSoft", "evictionSoftGracePeriod"} {
			ps = append(ps, patch{
				file: k.file,
				path: slices.Concat([]string{"spec", "versions", "*", "schema", "openAPIV3Schema", "properties", "spec", "properties"},
					k.path, []string{"properties", m, "additionalProperties"}),
				add: []keyValue{{"maxLength", "64"}},
			})
		}
	}
	return ps
}

func main() {
	log.SetFlags(0)
	for _, p := range patches {
		if err := apply(p); err != nil {
			log.Fatalf("crdpatch: %s: %v", p.file, err)
		}
	}
}

func apply(p patch) error {
	text, err := os.ReadFile(p.file)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return err
	}
	targets := walk(&doc, p.path)
	if len(targets) == 0 {
		return fmt.Errorf("nothing found at %s", strings.Join(p.path, "."))
	}
	var ins []insertion
	for _, m := range targets {
		more, err := insertions(m, p.add)
		if err != nil {
			return fmt.Errorf("at %s: %w", strings.Join(p.path, "."), err)
		}
		ins = append(ins, more...)
	}
	out := insert(text, ins)
	if bytes.Equal(out, text) {
		return nil
	}
	return os.WriteFile(p.file, out, 0o644)
}

// walk returns the nodes at path below n.
func walk(n *yaml.Node, path []string) []*yaml.Node {
	if n.Kind == yaml.DocumentNode {
		return walk(n.Content[0], path)
	}
	if len(path) == 0 {
		return []*yaml.Node{n}
	}
	var found []*yaml.Node
	switch {
	case path[0] == "*" && n.Kind == yaml.SequenceNode:
		for _, item := range n.Content {
			found = append(found, walk(item, path[1:])...)
		}
	case n.Kind == yaml.MappingNode:
		if v := lookup(n, path[0]); v != nil {
			found = walk(v, path[1:])
		}
	}
	return found
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// insertion is a line of text to put before line (1-based) of the file.
type insertion struct {
	line int
	text string
}

// insertions places each missing key before the first existing key that sorts after it, as
// controller-gen sorts keys.
func insertions(m *yaml.Node, add []keyValue) ([]insertion, error) {
	if m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		return nil, fmt.Errorf("want a non-empty mapping")
	}
	var ins []insertion
	for _, kv := range add {
		if lookup(m, kv.key) != nil {
			continue
		}
		var before *yaml.Node
		for i := 0; i < len(m.Content); i += 2 {
			if m.Content[i].Value > kv.key {
				before = m.Content[i]
				break
			}
		}
		if before == nil {
			return nil, fmt.Errorf("no key sorts after %q to insert it before", kv.key)
		}
		value, err := scalar(kv.value)
		if err != nil {
			return nil, err
		}
		indent := strings.Repeat(" ", before.Column-1)
		ins = append(ins, insertion{line: before.Line, text: indent + kv.key + ": " + value + "\n"})
	}
	return ins, nil
}

// scalar renders a value as YAML would, quoting it only when needed.
func scalar(v string) (string, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(v), &n); err == nil && len(n.Content) == 1 && n.Content[0].Value == v && n.Content[0].Tag == "!!int" {
		return v, nil // an integer stays an integer
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

func insert(text []byte, ins []insertion) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].line < ins[j].line })
	var b strings.Builder
	next := 0
	for i, line := range lines {
		for next < len(ins) && ins[next].line == i+1 {
			b.WriteString(ins[next].text)
			next++
		}
		b.WriteString(line)
	}
	return []byte(b.String())
}
