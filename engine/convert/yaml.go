package convert

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// header is the comment block at the top of the output: what was not
// mapped, what was ignored, and warnings, so that a reader of the file
// alone sees what the conversion left behind.
func header(res *Result) []string {
	lines := []string{"Converted from Karpenter by `tenon convert`."}
	if len(res.Unmapped) == 0 {
		lines = append(lines, "Every input field was mapped.")
	} else {
		lines = append(lines, "", fmt.Sprintf("NOT MAPPED (%d): these input fields have no Tenon equivalent and are not in this file:", len(res.Unmapped)))
		for _, f := range res.Unmapped {
			lines = append(lines, "  "+f.String())
		}
	}
	if len(res.Ignored) > 0 {
		lines = append(lines, "", fmt.Sprintf("Ignored (%d): status, server and Helm metadata, and settings moved elsewhere:", len(res.Ignored)))
		for _, f := range res.Ignored {
			lines = append(lines, "  "+f.String())
		}
	}
	if len(res.Warnings) > 0 {
		lines = append(lines, "", "Warnings:")
		for _, w := range res.Warnings {
			lines = append(lines, "  "+w)
		}
	}
	return lines
}

// writeComment writes lines as `#` comment lines. Each line is made
// manifest.Printable: a line break or control character copied from the
// input (a key, a file name) must not end the comment and start live HCL or
// a new YAML document.
func writeComment(w io.Writer, lines []string) error {
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(strings.TrimRight("# "+manifest.Printable(l), " "))
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteYAML writes the objects as tenon.dev YAML documents, keys in sorted
// order (so the output is stable), after the header comment.
func WriteYAML(w io.Writer, res *Result) error {
	if err := writeComment(w, header(res)); err != nil {
		return err
	}
	for _, obj := range res.Objects {
		data, err := MarshalYAML(obj.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", obj.Source, err)
		}
		if _, err := fmt.Fprintf(w, "---\n# From %s\n%s", manifest.Printable(obj.Source), data); err != nil {
			return err
		}
	}
	return nil
}

// MarshalYAML renders one object as YAML without status, which belongs to
// the agent.
func MarshalYAML(obj any) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	return out, nil
}
