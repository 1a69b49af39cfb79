package gitopstest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHServer serves a Server's repositories over SSH on 127.0.0.1: a Go SSH server that accepts
// one client key and runs git upload-pack or receive-pack for each session, as sshd does for a
// git user.
type SSHServer struct {
	// Base is ssh://git@127.0.0.1:PORT.
	Base string
	// KnownHosts is a known_hosts line for the server's host key.
	KnownHosts []byte
	// ClientKey is the PEM private key the server accepts.
	ClientKey []byte
}

// URL is the ssh:// URL of repository name.
func (s *SSHServer) URL(name string) string { return s.Base + "/" + name + ".git" }

// StartSSH starts an SSH server for s's repositories, stopped in t.Cleanup.
func (s *Server) StartSSH() *SSHServer {
	t := s.t
	t.Helper()
	hostSigner, _ := newKey(t)
	clientSigner, clientPEM := newKey(t)
	allowed := clientSigner.PublicKey().Marshal()
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if string(key.Marshal()) == string(allowed) {
				return &ssh.Permissions{}, nil
			}
			return nil, errors.New("unknown public key")
		},
	}
	cfg.AddHostKey(hostSigner)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening for SSH: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serveSSH(c, cfg)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	addr := l.Addr().String()
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostSigner.PublicKey())
	return &SSHServer{Base: "ssh://git@" + addr, KnownHosts: []byte(line + "\n"), ClientKey: clientPEM}
}

// NewSSHKey returns a fresh private key (PEM) and a known_hosts line for it at host, for tests
// that need a key the server does not accept or a host key it does not have.
func NewSSHKey(t testing.TB, host string) (privatePEM []byte, knownHostsLine []byte) {
	t.Helper()
	signer, pemBytes := newKey(t)
	return pemBytes, []byte(knownhosts.Line([]string{knownhosts.Normalize(host)}, signer.PublicKey()) + "\n")
}

func newKey(t testing.TB) (ssh.Signer, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return signer, pem.EncodeToMemory(block)
}

func (s *Server) serveSSH(c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close() //nolint:errcheck // closing a finished connection
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return // a refused key or host-key mismatch ends here, as the test wants
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go s.serveSession(ch, chReqs)
	}
}

// serveSession runs the one exec request of a git session: git-upload-pack '/repo.git' or
// git-receive-pack '/repo.git'.
func (s *Server) serveSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close() //nolint:errcheck // the session is over
	for req := range reqs {
		if req.Type != "exec" || len(req.Payload) < 4 {
			_ = req.Reply(req.Type == "env", nil)
			continue
		}
		n := binary.BigEndian.Uint32(req.Payload)
		command := string(req.Payload[4 : 4+n])
		service, repo, ok := strings.Cut(command, " ")
		repo = strings.Trim(repo, "'\"/")
		if !ok || (service != "git-upload-pack" && service != "git-receive-pack") || strings.Contains(repo, "..") {
			_ = req.Reply(false, nil)
			return
		}
		_ = req.Reply(true, nil)
		cmd := exec.Command(s.git, strings.TrimPrefix(service, "git-"), filepath.Join(s.Root, repo))
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		status := uint32(0)
		if err := runWithInput(cmd, ch); err != nil {
			status = 1
			fmt.Fprintf(ch.Stderr(), "%s: %v\n", service, err)
		}
		_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
		return
	}
}

// runWithInput runs cmd with in as its standard input, without waiting for in to end: a git
// client keeps the channel open until it sees the exit status.
func runWithInput(cmd *exec.Cmd, in io.Reader) error {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(stdin, in)
		_ = stdin.Close()
	}()
	return cmd.Wait()
}
