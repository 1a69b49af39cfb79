package convert_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
)

// TestGuidesHCLParses parses every ```hcl block of the guides.
func TestGuidesHCLParses(t *testing.T) {
	for _, g := range guides {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		blocks := hclBlocks(string(data))
		if len(blocks) == 0 {
			t.Errorf("%s has no hcl blocks", g)
		}
		for i, b := range blocks {
			if _, diags := hclparse.NewParser().ParseHCL([]byte(b), filepath.Base(g)); diags.HasErrors() {
				t.Errorf("%s, hcl block %d does not parse: %v", g, i+1, diags)
			}
		}
	}
}

// converted matches a guide's marker and the hcl block after it:
//
//	<!-- tenon convert [--import] [--cluster-name=NAME] FILE... -->
//	```hcl
//	...
//	```
var converted = regexp.MustCompile("(?ms)^<!-- tenon convert ([^>]*?) -->\n```hcl\n(.*?)^```")

// TestGuideRecipesAreConverted checks that each marked hcl block of the
// guides is exactly what tenon convert writes for the last file of its
// marker (converted together with the files before it, which the block
// references), so the guides cannot drift from the converter. Every recipe
// input must be used by a marker.
func TestGuideRecipesAreConverted(t *testing.T) {
	used := map[string]bool{}
	for _, g := range guides {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range converted.FindAllStringSubmatch(string(data), -1) {
			var files []string
			opts, hclOpts := convert.Options{}, convert.HCLOptions{}
			for _, arg := range strings.Fields(m[1]) {
				switch {
				case arg == "--import":
					hclOpts.Import = true
				case strings.HasPrefix(arg, "--cluster-name="):
					opts.ClusterName = strings.TrimPrefix(arg, "--cluster-name=")
				default:
					files = append(files, arg)
					used[arg] = true
				}
			}
			var inputs []convert.Input
			for _, f := range files {
				src, err := os.ReadFile(filepath.Join("../..", f))
				if err != nil {
					t.Fatalf("%s: marker names %s: %v", g, f, err)
				}
				inputs = append(inputs, convert.Input{Name: f, Data: src})
			}
			res, err := convert.Convert(inputs, opts)
			if err != nil {
				t.Fatalf("%s: converting %s: %v", g, m[1], err)
			}
			var out bytes.Buffer
			if err := convert.WriteHCL(&out, res, hclOpts); err != nil {
				t.Fatal(err)
			}
			want := sectionsFrom(out.String(), files[len(files)-1])
			if m[2] != want {
				t.Errorf("%s: the block after <!-- tenon convert %s --> is not what tenon convert writes; it writes:\n%s", g, m[1], want)
			}
		}
	}
	recipes, _ := filepath.Glob("recipes/*.yaml")
	for _, r := range recipes {
		if !used["examples/convert/"+r] {
			t.Errorf("examples/convert/%s is in no guide's <!-- tenon convert --> marker", r)
		}
	}
}

// sectionsFrom returns the parts of tenon convert's HCL that come from
// file, each without its "# From" line, as the guides show them.
func sectionsFrom(hcl, file string) string {
	var keep []string
	for _, section := range strings.Split(hcl, "\n# From ")[1:] {
		source, body, _ := strings.Cut(section, "\n")
		if strings.HasPrefix(source, file+": ") {
			keep = append(keep, strings.TrimRight(body, "\n")+"\n")
		}
	}
	return strings.Join(keep, "\n")
}
