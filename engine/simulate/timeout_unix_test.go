//go:build unix

package simulate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTimeoutCoversReading: --timeout used to bound the solve alone, so
// input that was slow to read (50 MB of YAML took 20-40 s under --timeout
// 2s) ran on. A FIFO nobody writes to stands for input that never ends.
func TestTimeoutCoversReading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "slow.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		c := command{engine: fakeSolver{}, now: time.Now}
		done <- c.run(context.Background(), []string{"-f", fifo, "--timeout", "200ms"}, &stdout, &stderr)
	}()
	select {
	case code := <-done:
		if code != ExitCheckFails || !strings.Contains(stderr.String(), "gave up after --timeout 200ms") {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitCheckFails, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Error("still reading 20s after a --timeout of 200ms")
	}
	// Let the reader go: it sees an empty file.
	if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		_ = w.Close()
	}
}
