package agent

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// Command is `tenon agent`: it parses the flags (a bad flag exits 2 with a
// message naming it), then runs the agent until SIGINT or SIGTERM (exit 0)
// or a failure (exit 1).
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return CommandWith(ctx, args, stdout, stderr, nil)
}

// CommandWith is Command for programs that embed the agent: customize, when set, changes the
// options after the flags are parsed (the end-to-end tests set Options.WrapCloud with it).
func CommandWith(ctx context.Context, args []string, _, stderr io.Writer, customize func(*Options)) int {
	opts, err := ParseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "tenon agent: %v\n", err)
		return 2
	}
	if customize != nil {
		customize(&opts)
	}
	log := NewLogger(stderr, opts.LogLevel, opts.LogFormat)
	klog.SetLogger(log)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg, err := RestConfig(opts.Kubeconfig)
	if err != nil {
		log.Error(err, "cannot reach the cluster")
		fmt.Fprintf(stderr, "tenon agent: %v\n", err)
		return 1
	}
	if err := Run(ctx, cfg, opts, log); err != nil {
		log.Error(err, "the agent stopped")
		fmt.Fprintf(stderr, "tenon agent: %v\n", err)
		return 1
	}
	return 0
}

// NewLogger returns a structured logger writing JSON or text lines to w at
// level (debug, info, warn or error) or above.
func NewLogger(w io.Writer, level, format string) logr.Logger {
	var lvl slog.Level
	switch level {
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return logr.FromSlogHandler(h)
}
