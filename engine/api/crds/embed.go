// Package crds embeds the generated CustomResourceDefinitions of the tenon.dev API, so the agent
// and the tenon_agent resource install exactly the schemas this build validates against.
// The YAML files are written by `make generate` (controller-gen, then internal/crdpatch for what
// markers cannot say); do not edit them.
package crds

//go:generate go run ./internal/crdpatch

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed *.yaml
var files embed.FS

// FS holds the CRD files, named <group>_<plural>.yaml, such as tenon.dev_nodepools.yaml.
var FS fs.FS = files

// Names returns the file names of the CRDs, sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(fmt.Sprintf("reading embedded CRDs: %v", err)) // embedded at build time; cannot fail
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Get returns one CRD file by name, such as tenon.dev_nodepools.yaml.
func Get(name string) ([]byte, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading CRD %s: %w", name, err)
	}
	return data, nil
}

// All returns every CRD file, in the order of Names.
func All() [][]byte {
	names := Names()
	all := make([][]byte, 0, len(names))
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			panic(fmt.Sprintf("reading embedded CRD %s: %v", n, err))
		}
		all = append(all, data)
	}
	return all
}
