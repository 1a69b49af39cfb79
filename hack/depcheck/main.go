// Command depcheck enforces the dependency rules of DESIGN §3 with
// `go list -deps`: the engine's decision packages stay pure, nothing in the
// engine imports the provider, and each outside system is reached from one
// place only. `make verify` runs it; it exits 1 on any violation.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	pkgs, err := listPackages("./...")
	if err != nil {
		fmt.Fprintf(os.Stderr, "depcheck: %v\n", err)
		os.Exit(2)
	}
	violations := Check(pkgs, Rules())
	for _, v := range violations {
		fmt.Fprintln(os.Stderr, v)
	}
	if len(violations) > 0 {
		fmt.Fprintf(os.Stderr, "depcheck: %d dependency rule violation(s); see DESIGN.md §3\n", len(violations))
		os.Exit(1)
	}
	fmt.Printf("depcheck: %d packages follow the dependency rules\n", len(pkgs))
}

// listPackages runs `go list -deps`-style listing of the module's own packages
// (without tests: test-only imports such as the CRD validation harness are
// not part of what ships).
func listPackages(patterns ...string) ([]Package, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Imports,Deps,Error"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var pkgs []Package
	for {
		var p struct {
			Package
			Error *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p.Package)
	}
	return pkgs, nil
}
