package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cliPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`

const cliPoolUnmapped = cliPool + "      resources: {requests: {cpu: \"1\"}}\n"

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCommandExitCodes runs the command as `tenon convert` does and checks
// exit codes, stdout and stderr.
func TestCommandExitCodes(t *testing.T) {
	good := writeFile(t, "good.yaml", cliPool)
	unmapped := writeFile(t, "unmapped.yaml", cliPoolUnmapped)
	bad := writeFile(t, "bad.yaml", "apiVersion: karpenter.sh/v1\nkind: Widget\nmetadata: {name: w}\n")
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantOut    []string
		wantNotOut []string
		wantErr    []string
		emptyOut   bool
	}{
		{name: "hcl by default", args: []string{"-f", good}, wantCode: ExitOK,
			wantOut: []string{`resource "tenon_nodepool" "pool"`, `"tenon.dev/capacity-type"`}, wantNotOut: []string{"import {"},
			wantErr: []string{"converted 1 object(s); 0 field(s) not mapped"}},
		{name: "yaml", args: []string{"-f", good, "-o", "yaml"}, wantCode: ExitOK, wantOut: []string{"apiVersion: tenon.dev/v1", "kind: NodePool"}},
		{name: "import blocks", args: []string{good, "--import"}, wantCode: ExitOK, wantOut: []string{"import {", "to = tenon_nodepool.pool", `id = "pool"`}},
		{name: "standard input with -", args: []string{"-f", "-"}, stdin: cliPool, wantCode: ExitOK, wantOut: []string{"From <stdin>: NodePool pool"}},
		{name: "standard input without files", stdin: cliPool, wantCode: ExitOK, wantOut: []string{`resource "tenon_nodepool" "pool"`}},
		{name: "unmapped fields warn and exit 0", args: []string{"-f", unmapped}, wantCode: ExitOK,
			wantOut: []string{"# NOT MAPPED (1)", "spec.template.spec.resources"}, wantErr: []string{"not mapped: " + unmapped + ": NodePool pool: spec.template.spec.resources"}},
		{name: "strict fails on unmapped fields", args: []string{"-f", unmapped, "--strict"}, wantCode: ExitUnmapped, emptyOut: true,
			wantErr: []string{"spec.template.spec.resources", "--strict: 1 field(s) not mapped; nothing written"}},
		{name: "strict passes a clean file", args: []string{"--strict", good}, wantCode: ExitOK, wantOut: []string{"tenon_nodepool"}},
		{name: "bad input", args: []string{"-f", good, "-f", bad}, wantCode: ExitBadInput, emptyOut: true,
			wantErr: []string{bad + `: Widget w: kind: Unsupported value: "Widget"`, "nothing written"}},
		{name: "missing file", args: []string{"-f", filepath.Join(t.TempDir(), "nope.yaml")}, wantCode: ExitBadInput, emptyOut: true, wantErr: []string{"nope.yaml"}},
		{name: "import needs hcl", args: []string{"-f", good, "-o", "yaml", "--import"}, wantCode: ExitBadInput, emptyOut: true, wantErr: []string{"--import", "-o hcl"}},
		{name: "unknown output format", args: []string{"-f", good, "-o", "json"}, wantCode: ExitBadInput, emptyOut: true, wantErr: []string{"must be hcl or yaml"}},
		{name: "unknown flag", args: []string{"--frobnicate"}, wantCode: ExitBadInput, emptyOut: true, wantErr: []string{"frobnicate"}},
		{name: "stdin twice", args: []string{"-", "-f", "-"}, wantCode: ExitBadInput, emptyOut: true, wantErr: []string{"named twice"}},
		{name: "help", args: []string{"-h"}, wantCode: ExitOK, emptyOut: true, wantErr: []string{"Usage: tenon convert", "Exit status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if tt.emptyOut && stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			for _, s := range tt.wantOut {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.wantNotOut {
				if strings.Contains(stdout.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

// TestCommandReportsObjectMetadataForHCL: the tenon_* resources have no
// attribute for the object's own labels, so -o hcl reports them and -o yaml
// keeps them.
func TestCommandReportsObjectMetadataForHCL(t *testing.T) {
	in := writeFile(t, "in.yaml", strings.Replace(cliPool, "metadata: {name: pool}", "metadata: {name: pool, labels: {team: a}}", 1))
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--strict", in}, nil, &stdout, &stderr); code != ExitUnmapped {
		t.Errorf("-o hcl --strict exit code %d, want %d; stderr:\n%s", code, ExitUnmapped, stderr.String())
	}
	if !strings.Contains(stderr.String(), "metadata.labels[team]") {
		t.Errorf("stderr does not report metadata.labels[team]:\n%s", stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"--strict", "-o", "yaml", in}, nil, &stdout, &stderr); code != ExitOK {
		t.Errorf("-o yaml --strict exit code %d, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "team: a") {
		t.Errorf("YAML lost the object label:\n%s", stdout.String())
	}
}
