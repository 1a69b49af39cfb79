package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// FuzzConvert feeds arbitrary YAML to Convert (seeded with the examples):
// it must never panic, and whatever it accepts must be written as HCL that
// parses and as YAML. go test runs the seeds; go test -fuzz FuzzConvert
// explores.
func FuzzConvert(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	recipes, _ := filepath.Glob(filepath.Join(examplesDir, "recipes", "*.yaml"))
	for _, p := range append(paths, recipes...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {nodeClassRef: {name: [1]}}}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: NodePool}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Convert([]Input{{Name: "fuzz.yaml", Data: data}}, Options{ClusterName: "c"})
		if err != nil {
			for _, e := range manifest.Flatten(err) {
				var me *manifest.Error
				if !errors.As(e, &me) {
					t.Fatalf("Convert returned %T, want *manifest.Errors: %v", e, e)
				}
			}
			return
		}
		var hcl, yml bytes.Buffer
		if err := WriteHCL(&hcl, res, HCLOptions{Import: true}); err != nil {
			t.Fatal(err)
		}
		if _, diags := hclparse.NewParser().ParseHCL(hcl.Bytes(), "fuzz.tf"); diags.HasErrors() {
			t.Fatalf("HCL does not parse: %v\n%s", diags, hcl.Bytes())
		}
		if err := WriteYAML(&yml, res); err != nil {
			t.Fatal(err)
		}
	})
}
