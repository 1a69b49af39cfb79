// Command write writes the bad-input corpus (hack/badinput) to a folder,
// one file per case in a folder per category, and index.tsv listing each
// file's tool, expected outcome, the object and field its error must name,
// and the objects an accepted file yields:
//
//	go run ./hack/badinput/write -out /tmp/badinput
//	tenon simulate -f /tmp/badinput/counts/001-scenario-replicas-2147483647.yaml
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/hack/badinput"
)

func main() {
	out := flag.String("out", "", "the `folder` to write the corpus into (created)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/badinput/write -out DIR")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "badinput:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	var index strings.Builder
	index.WriteString("file\ttool\toutcome\twant\tobjects\n")
	cases := badinput.Cases()
	for _, c := range cases {
		path := filepath.Join(dir, filepath.FromSlash(c.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, c.Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&index, "%s\t%s\t%s\t%s\t%d\n", c.Name, c.Tool, c.Outcome, c.Want, c.Objects)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.tsv"), []byte(index.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %d files and index.tsv into %s\n", len(cases), dir)
	return nil
}
