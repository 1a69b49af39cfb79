package manifest

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// Stdin is the name "-" stands for in messages.
const Stdin = "<stdin>"

// ReadFiles reads the named files in order. When stdin is not nil, "-"
// names it (once at most); otherwise "-" is a file like any other. A file
// that cannot be read is an *Error naming it.
func ReadFiles(names []string, stdin io.Reader) ([]File, error) {
	files := make([]File, 0, len(names))
	readStdin := false
	for _, name := range names {
		if name == "-" && stdin != nil {
			if readStdin {
				return nil, &Error{File: Stdin, Detail: "standard input (-) named twice; name it once"}
			}
			readStdin = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, &Error{File: Stdin, Detail: err.Error()}
			}
			files = append(files, File{Name: Stdin, Data: data})
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &Error{File: name, Detail: err.Error()}
		}
		files = append(files, File{Name: name, Data: data})
	}
	return files, nil
}

// NoObjects is the error for a file that holds no object: empty, or only
// comments and `---` lines. A file given on purpose that adds nothing is
// most likely the wrong file, or one truncated to nothing; what says what
// the file should hold.
func NoObjects(f File, what string) *Error {
	detail := "the file holds no object (it is empty, or only comments)"
	if len(f.Data) == 0 {
		detail = "the file is empty"
	}
	return &Error{File: f.Name, Detail: detail + "; " + what}
}
