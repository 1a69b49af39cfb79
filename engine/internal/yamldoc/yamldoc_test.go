package yamldoc

import (
	"errors"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    []string
		errDoc  int
		errLine string
	}{
		{name: "one document", in: "a: 1\n", want: []string{`{"a":1}`}},
		{
			name: "separators with comments, empty and comment-only documents skipped",
			in:   "# header\n---\na: 1\n--- # second\n# only a comment\n---\nb: [x]\n---\n",
			want: []string{`{"a":1}`, `{"b":["x"]}`},
		},
		{name: "--- inside a value is not a separator", in: "a: |\n  ---x\n", want: []string{`{"a":"---x\n"}`}},
		{
			name: "a bad document names its line in the file and counts only non-empty documents",
			in:   "---\n# nothing\n---\na: 1\n---\nb: 1\nb: 2\n", errDoc: 2, errLine: "line 7",
		},
		{name: "duplicate keys are errors", in: "a: 1\na: 2\n", errDoc: 1, errLine: "line 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split([]byte(tc.in))
			if tc.errDoc > 0 {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want a *SyntaxError", err)
				}
				if se.Doc != tc.errDoc || !strings.Contains(se.Msg, tc.errLine) {
					t.Fatalf("err = document %d %q, want document %d mentioning %q", se.Doc, se.Msg, tc.errDoc, tc.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d documents %q, want %q", len(got), got, tc.want)
			}
			for i := range got {
				if string(got[i]) != tc.want[i] {
					t.Errorf("document %d = %s, want %s", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}
