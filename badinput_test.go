package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/badinput"
)

// corpusTally counts one category's cases.
type corpusTally struct{ tried, clearError, correctResult, wrong int }

// TestBadInputCorpus runs every case of the bad-input corpus (hack/badinput)
// through `tenon simulate -o json` (scenario files) or `tenon convert`
// (Karpenter files): each must exit 2 with the file and, where the case
// names them, the object and field in the error, or exit 0 with every
// object accounted for; never crash (exit 3), hang or drop an object. With
// -v it logs the table of the closing note.
func TestBadInputCorpus(t *testing.T) {
	dir := t.TempDir()
	tally := map[string]*corpusTally{}
	for _, c := range badinput.Cases() {
		path := filepath.Join(dir, filepath.FromSlash(c.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, c.Data, 0o600); err != nil {
			t.Fatal(err)
		}
		n := tally[c.Category]
		if n == nil {
			n = &corpusTally{}
			tally[c.Category] = n
		}
		n.tried++
		switch result := runCorpusCase(t, c, path); result {
		case "clear error":
			n.clearError++
		case "correct result":
			n.correctResult++
		default:
			n.wrong++
			t.Errorf("%s (%s, want %s %s): %s", c.Name, c.Tool, c.Outcome, c.Want, result)
		}
	}
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "category\ttried\tclear error\tcorrect result\twrong\t")
	var total corpusTally
	for _, cat := range badinput.Categories() {
		n := tally[cat]
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t\n", cat, n.tried, n.clearError, n.correctResult, n.wrong)
		total.tried += n.tried
		total.clearError += n.clearError
		total.correctResult += n.correctResult
		total.wrong += n.wrong
	}
	fmt.Fprintf(w, "total\t%d\t%d\t%d\t%d\t\n", total.tried, total.clearError, total.correctResult, total.wrong)
	_ = w.Flush()
	t.Logf("bad-input corpus (tenon simulate and tenon convert):\n%s", sb.String())
	if total.tried < 300 {
		t.Errorf("the corpus has %d cases; it should have at least 300", total.tried)
	}
}

// runCorpusCase runs one case and says how it went: "clear error",
// "correct result", or what is wrong.
func runCorpusCase(t *testing.T, c badinput.Case, path string) string {
	t.Helper()
	args := []string{"convert", path}
	if c.Tool == badinput.Scenario {
		args = []string{"simulate", "-o", "json", "-f", path}
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), args, &stdout, &stderr) }()
	// A hang is a run past a budget linear in the input's size: a minute,
	// and 30 s a megabyte (the 13 MB of 100001 Pods take 20 s to decode,
	// minutes under -race on a loaded machine).
	budget := time.Minute + time.Duration(len(c.Data)>>20)*30*time.Second
	var code int
	select {
	case code = <-done:
	case <-time.After(budget):
		return fmt.Sprintf("still running after %v (a hang)", budget)
	}
	switch {
	case code == 2 && c.Outcome == badinput.Accepted:
		return "refused valid input: " + firstLine(stderr.String())
	case code == 2 && !strings.Contains(stderr.String(), path):
		return "the error does not name the file: " + firstLine(stderr.String())
	case code == 2 && !strings.Contains(stderr.String(), c.Want):
		return "the error does not name the object and field: " + firstLine(stderr.String())
	case code == 2:
		return "clear error"
	case code == 0 && c.Outcome == badinput.Refused:
		return "accepted bad input: " + firstLine(stderr.String())
	case code == 0 && c.Tool == badinput.Scenario:
		return checkSimulateResult(c, stdout.Bytes())
	case code == 0:
		return checkConvertResult(c, stdout.Bytes(), stderr.String())
	}
	return fmt.Sprintf("exit %d: %s", code, firstLine(stderr.String()))
}

// checkSimulateResult checks that the report accounts for every pod: each
// placed on a node or listed as unschedulable, as many as the case holds.
func checkSimulateResult(c badinput.Case, out []byte) string {
	var report simulate.Report
	if err := json.Unmarshal(out, &report); err != nil {
		return "the JSON report does not parse: " + err.Error()
	}
	var pods []string
	for _, n := range report.Nodes {
		pods = append(pods, n.Pods...)
	}
	for _, u := range report.Unschedulable {
		pods = append(pods, u.Pod)
	}
	slices.Sort(pods)
	if len(slices.Compact(pods)) != len(pods) || len(pods) != report.Summary.Pods {
		return fmt.Sprintf("the report places or lists %d pods (%d distinct) of %d", len(pods), len(slices.Compact(pods)), report.Summary.Pods)
	}
	if c.Outcome == badinput.Accepted && len(pods) != c.Objects {
		return fmt.Sprintf("%d pods simulated, the file holds %d", len(pods), c.Objects)
	}
	return "correct result"
}

var convertedRE = regexp.MustCompile(`converted (\d+) object\(s\)`)

// checkConvertResult checks the HCL: it parses, holds one resource block
// per object converted and nothing else (no data, provider or locals block
// smuggled in), starts with comment lines only, and converts as many
// objects as the case holds.
func checkConvertResult(c badinput.Case, out []byte, stderr string) string {
	m := convertedRE.FindStringSubmatch(stderr)
	if m == nil {
		return "no `converted N object(s)` line: " + firstLine(stderr)
	}
	converted, _ := strconv.Atoi(m[1])
	if c.Outcome == badinput.Accepted && converted != c.Objects {
		return fmt.Sprintf("%d objects converted, the file holds %d", converted, c.Objects)
	}
	file, diags := hclsyntax.ParseConfig(out, "out.tf", hcl.InitialPos)
	if diags.HasErrors() {
		return "the HCL does not parse: " + diags.Error()
	}
	body := file.Body.(*hclsyntax.Body)
	resources := 0
	for _, b := range body.Blocks {
		if b.Type != "resource" || len(b.Labels) != 2 || !strings.HasPrefix(b.Labels[0], "tenon_") {
			return fmt.Sprintf("the HCL holds a %s block %q", b.Type, b.Labels)
		}
		resources++
	}
	if len(body.Attributes) > 0 || resources != converted {
		return fmt.Sprintf("the HCL holds %d resource blocks and %d attributes for %d objects", resources, len(body.Attributes), converted)
	}
	header, _, _ := strings.Cut(string(out), "\nresource ")
	for _, line := range strings.Split(header, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			return fmt.Sprintf("a header line is not a comment: %q", line)
		}
	}
	return "correct result"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = line[:300] + "..."
	}
	return line
}
