package simulate

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"
)

// TestEngineWritesNothingToStdout guards `-o json`: anything the engine
// prints to the process's stdout lands in the middle of the JSON. It swaps
// os.Stdout for a pipe while the embedded examples run, so it must not run
// in parallel.
func TestEngineWritesNothingToStdout(t *testing.T) {
	requirePacking(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	captured := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(r)
		captured <- data
	}()
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	code := c.run(context.Background(), []string{"-o", "json"}, &stdout, &stderr)
	os.Stdout = saved
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if stray := <-captured; len(stray) > 0 {
		t.Errorf("the engine wrote to stdout, which corrupts -o json:\n%s", stray)
	}
	if code != ExitOK {
		t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
	}
}
