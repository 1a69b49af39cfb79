package controlplane

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that a process (or an in-process agent) can
// write while a test reads it, for the logs a failed test prints.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
