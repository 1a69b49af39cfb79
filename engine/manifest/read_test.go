package manifest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(path, []byte("kind: A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files, err := ReadFiles([]string{path, "-"}, strings.NewReader("kind: B\n"))
	if err != nil || len(files) != 2 || files[0].Name != path || files[1].Name != Stdin || string(files[1].Data) != "kind: B\n" {
		t.Fatalf("ReadFiles = %+v, %v", files, err)
	}
	missing := filepath.Join(dir, "none.yaml")
	for _, tc := range []struct {
		names []string
		stdin io.Reader
		want  string
	}{
		{[]string{missing}, nil, missing + ": no such file or directory"},
		{[]string{"-", "-"}, strings.NewReader(""), "<stdin>: standard input (-) named twice; name it once"},
		{[]string{"-"}, nil, "-: no such file or directory"},
	} {
		_, err := ReadFiles(tc.names, tc.stdin)
		var me *Error
		if !errors.As(err, &me) || err.Error() != tc.want {
			t.Errorf("ReadFiles(%q) = %v, want the *Error %q", tc.names, err, tc.want)
		}
	}
}
