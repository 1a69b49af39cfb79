// Package badinput generates the bad-input corpus: files a careless or
// hostile user might give `tenon simulate`, `tenon convert` and the
// provider's tenon_simulation (truncated and bomb YAML, bad quantities, huge
// counts, odd names, unknown fields, several objects in one document, bad
// operators, control characters meant to break out of generated text). Each
// case says what a right answer is: exit 2 naming the file, the object and
// the field, or a result that accounts for every object. The tests that run
// it (TestBadInputCorpus in the repository's root, TestSimulationBadInput
// in provider/) generate it at test time; `go run ./hack/badinput/write -out DIR`
// writes it to disk with an index, to try by hand.
package badinput

import (
	"fmt"
	"strings"
)

// Tool says which commands a case is for.
type Tool string

const (
	// Scenario files are for `tenon simulate` and tenon_simulation's
	// manifests.
	Scenario Tool = "scenario"
	// Karpenter files are for `tenon convert`.
	Karpenter Tool = "karpenter"
)

// Outcome is what a right answer to a case is.
type Outcome string

const (
	// Refused is exit 2 with an error naming the file and, when Want is set,
	// the object and the field (Want holds them as the error writes them).
	Refused Outcome = "refused"
	// Accepted is exit 0 and every object accounted for: Objects pods
	// simulated, or Objects objects converted.
	Accepted Outcome = "accepted"
	// Either is for a truncation, which may leave valid input; refused as above, or
	// accepted with a result that parses.
	Either Outcome = "either"
)

// Case is one file of the corpus.
type Case struct {
	// Name is the file's path in the corpus: category/NNN-what.yaml.
	Name     string
	Category string
	Tool     Tool
	Data     []byte
	Outcome  Outcome
	// Want is the object and field the error must name (Refused), such as
	// "Deployment default/web: spec.replicas"; empty when the file holds no
	// object to name (malformed YAML names the file and the document).
	Want string
	// Objects is how many pods (Scenario) or objects (Karpenter) an
	// accepted file yields.
	Objects int
}

// Cases returns the corpus, the same every time.
func Cases() []Case {
	var g gen
	g.truncated()
	g.bombs()
	g.quantities()
	g.counts()
	g.names()
	g.unknownFields()
	g.documents()
	g.operators()
	g.injection()
	return g.cases
}

// Categories lists the categories in the order Cases generates them.
func Categories() []string {
	return []string{"truncated", "bombs", "quantities", "counts", "names", "unknown-fields", "documents", "operators", "injection"}
}

type gen struct {
	cases []Case
	n     map[string]int
}

// add records a case; what becomes part of its file name.
func (g *gen) add(category, what string, tool Tool, data string, outcome Outcome, want string, objects int) {
	if g.n == nil {
		g.n = map[string]int{}
	}
	g.n[category]++
	name := fmt.Sprintf("%s/%03d-%s-%s.yaml", category, g.n[category], tool, slug(what))
	g.cases = append(g.cases, Case{Name: name, Category: category, Tool: tool, Data: []byte(data), Outcome: outcome, Want: want, Objects: objects})
}

func (g *gen) refused(category, what string, tool Tool, data, want string) {
	g.add(category, what, tool, data, Refused, want, 0)
}

func (g *gen) accepted(category, what string, tool Tool, data string, objects int) {
	g.add(category, what, tool, data, Accepted, "", objects)
}

// slug makes what a file name part: lower-case letters, digits and dashes.
func slug(what string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(what) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			sb.WriteRune(r)
			dash = false
		} else if !dash && sb.Len() > 0 {
			sb.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimSuffix(sb.String(), "-")
	if len(s) > 40 {
		s = strings.TrimSuffix(s[:40], "-")
	}
	return s
}
