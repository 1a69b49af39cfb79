package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/internal/cli"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

var explainUsage = []string{
	"Usage: tenon explain pod NAMESPACE/NAME [--kubeconfig FILE] [--context NAME] [-o text|json]",
	"       tenon explain node NAME [--kubeconfig FILE] [--context NAME] [-o text|json]",
	"\nAnswers one question about a running cluster, read-only, with the engine the agent runs on",
	"the Snapshot the agent builds: why a pod is pending and which node it will get; why a node is",
	"kept, or that consolidation would remove or replace it, and why. It reads what `tenon simulate",
	"--kubeconfig` reads (the ClusterRole `tenon manifests --read-only-role` prints); without",
	"--kubeconfig it follows kubectl ($KUBECONFIG, then ~/.kube/config).",
	"Exit status: 0 answered; 1 the cluster could not be read, the engine failed or --timeout passed;",
	"2 bad usage, or no such pod or node.",
}

// Explanation is the answer of `tenon explain`, as -o json prints it.
type Explanation struct {
	// Kind is "pod" or "node"; Name the pod's "namespace/name" or the node's name.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Cluster is the kubeconfig context read; Now when (RFC 3339).
	Cluster string `json:"cluster"`
	Now     string `json:"now"`
	// Verdict is, for a pod: bound, waiting-for-scheduler, existing-node, new-node or
	// unschedulable; for a node: kept, remove, replace or unmanaged.
	Verdict string `json:"verdict"`
	// Reason says why, in the engine's words.
	Reason string `json:"reason"`
	// Node is where a pending pod goes (existing-node, new-node).
	Node *ReportNode `json:"node,omitempty"`
	// Command is the consolidation command that takes the node (remove, replace).
	Command *consolidation.Command `json:"command,omitempty"`
}

// Pod and node verdicts of an Explanation.
const (
	VerdictBound         = "bound"
	VerdictWaiting       = "waiting-for-scheduler"
	VerdictExistingNode  = "existing-node"
	VerdictNewNode       = "new-node"
	VerdictUnschedulable = "unschedulable"
	VerdictKept          = "kept"
	VerdictRemove        = "remove"
	VerdictReplace       = "replace"
	VerdictUnmanaged     = "unmanaged"
)

// notFoundError is a pod or node the cluster does not have: bad input.
type notFoundError struct{ error }

// ExplainCommand is `tenon explain`, reading the cluster through read (engine/agent.ReadCluster).
func ExplainCommand(read ClusterReader) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		c := command{engine: packingSolver{}, now: time.Now, cluster: read}
		return c.explain(ctx, args, stdout, stderr)
	}
}

func (c *command) explain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := cli.Command{Name: "tenon explain", Stderr: stderr}
	var live liveFlags
	output := cli.Choice{Value: "text", Allowed: []string{"text", "json"}}
	var timeout time.Duration
	fs := cmd.FlagSet(explainUsage...)
	live.register(fs)
	fs.Var(&output, "o", "output `format`: text or json")
	fs.DurationVar(&timeout, "timeout", 0, "give up after this `duration` (such as 30s), reading included; 0 means no limit")
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return cli.ParseExit(err)
	}
	kind, name, err := explainTarget(positional)
	if err != nil {
		cmd.Printf("%v", err)
		return ExitBadInput
	}
	if timeout < 0 {
		cmd.Printf("invalid value %v for flag -timeout: must not be negative", timeout)
		return ExitBadInput
	}
	return cmd.Run(ctx, timeout, stdout, func(ctx context.Context, stdout io.Writer, cmd cli.Command) int {
		s, lc, err := c.loadLive(ctx, live.options(), "")
		if err != nil {
			cmd.Report(err)
			return loadExit(ctx, err, true)
		}
		e := &Explanation{Kind: kind, Name: name, Cluster: lc.Cluster, Now: lc.Now.Format(time.RFC3339)}
		if kind == "pod" {
			err = c.explainPod(ctx, s, lc, e)
		} else {
			err = c.explainNode(ctx, s, lc, e)
		}
		if err != nil {
			cmd.Report(err)
			var nf notFoundError
			if errors.As(err, &nf) {
				return ExitBadInput
			}
			return ExitCheckFails
		}
		for _, w := range c.warnings {
			cmd.Printf("note: %s", w)
		}
		return writeExplanation(stdout, cmd, e, output.Value)
	})
}

// explainTarget reads `pod NAMESPACE/NAME` or `node NAME`.
func explainTarget(args []string) (string, string, error) {
	const want = "say what to explain: tenon explain pod NAMESPACE/NAME, or tenon explain node NAME"
	switch {
	case len(args) == 0:
		return "", "", errors.New(want)
	case args[0] != "pod" && args[0] != "node":
		return "", "", fmt.Errorf("unknown kind %q: %s", args[0], want)
	case len(args) == 1 && args[0] == "pod":
		return "", "", errors.New("explain pod needs the pod as NAMESPACE/NAME, such as default/web-0")
	case len(args) == 1:
		return "", "", errors.New("explain node needs the node's NAME (kubectl get nodes lists them)")
	case len(args) > 2:
		return "", "", fmt.Errorf("unexpected argument %q: explain one %s at a time", args[2], args[0])
	}
	if args[0] == "pod" {
		ns, n, ok := strings.Cut(args[1], "/")
		if !ok || ns == "" || n == "" || strings.Contains(n, "/") {
			return "", "", fmt.Errorf("explain pod %q: want NAMESPACE/NAME, such as default/web-0", args[1])
		}
	}
	return args[0], args[1], nil
}

// explainPod answers where pending pod e.Name goes, from the packing the agent would run now.
func (c *command) explainPod(ctx context.Context, s *Scenario, lc *LiveCluster, e *Explanation) error {
	if slices.Contains(lc.Waiting, e.Name) {
		e.Verdict = VerdictWaiting
		e.Reason = "not bound yet, and kube-scheduler has not marked it unschedulable: it may still fit an existing node; the agent acts on a pod once kube-scheduler reports it unschedulable"
		return nil
	}
	i := slices.IndexFunc(s.Objects.Pods, func(p *corev1.Pod) bool { return p.Namespace+"/"+p.Name == e.Name })
	if i < 0 {
		return notFoundError{fmt.Errorf("pod %s: not in cluster %q, or finished or being deleted (the agent reads bound and pending pods); kubectl get pod -n %s", e.Name, lc.Cluster, strings.Replace(e.Name, "/", " ", 1))}
	}
	if node := s.Objects.Pods[i].Spec.NodeName; node != "" {
		e.Verdict = VerdictBound
		e.Reason = fmt.Sprintf("bound to node %s: it is placed, so the agent has nothing to launch for it (tenon explain node %s says whether that node stays)", node, node)
		return nil
	}
	rep, _, err := c.simulate(ctx, s, &options{repeat: 1})
	if err != nil {
		return err
	}
	for _, n := range rep.Nodes {
		if !slices.Contains(n.Pods, e.Name) {
			continue
		}
		e.Node = &n
		switch {
		case n.InFlight:
			e.Verdict = VerdictExistingNode
			e.Reason = fmt.Sprintf("it fits on node %s of pool %s (%s in %s), launching now: it is bound there once the node is ready", n.Name, n.NodePool, n.InstanceType, n.Zone)
		case n.Existing:
			e.Verdict = VerdictExistingNode
			e.Reason = fmt.Sprintf("it fits on existing node %s%s: no node is launched for it; kube-scheduler should bind it there", n.Name, describeNode(n))
		default:
			e.Verdict = VerdictNewNode
			e.Reason = fmt.Sprintf("the agent launches a %s %s node in %s for it, $%.4f/h from pool %s (the cheapest of %d options), with %d pending pod(s) in all",
				n.CapacityType, n.InstanceType, n.Zone, n.PricePerHour, n.NodePool, max(n.Options, 1), len(n.Pods))
		}
		return nil
	}
	for _, u := range rep.Unschedulable {
		if u.Pod == e.Name {
			e.Verdict, e.Reason = VerdictUnschedulable, u.Reason
			return nil
		}
	}
	return fmt.Errorf("pod %s: the engine neither placed it nor gave a reason; this is a bug in tenon, please report it with tenon simulate --kubeconfig --save", e.Name)
}

// explainNode answers whether consolidation keeps node e.Name, from the plan the agent would
// make now.
func (c *command) explainNode(ctx context.Context, s *Scenario, lc *LiveCluster, e *Explanation) error {
	i := slices.IndexFunc(s.Objects.Nodes, func(n *corev1.Node) bool { return n.Name == e.Name })
	if i < 0 {
		return notFoundError{fmt.Errorf("node %s: not in cluster %q (kubectl get nodes lists them)", e.Name, lc.Cluster)}
	}
	pool, managed := s.Objects.Nodes[i].Labels[scheduling.LabelNodePool]
	if !managed {
		e.Verdict = VerdictUnmanaged
		e.Reason = fmt.Sprintf("Tenon did not launch it (no %s label): consolidation never removes it, though pods may be packed onto it", scheduling.LabelNodePool)
		return nil
	}
	if why := poolLeftOut(lc, pool); why != "" {
		e.Verdict = VerdictKept
		e.Reason = fmt.Sprintf("its pool %s is left out by the agent (%s): nothing consolidates its nodes until that is fixed", pool, why)
		return nil
	}
	rep, _, err := c.consolidate(ctx, s, &options{repeat: 1, maxRounds: 1})
	if err != nil {
		return err
	}
	for _, cmd := range rep.Commands {
		if !slices.Contains(cmd.Nodes, e.Name) {
			continue
		}
		e.Command = &cmd.Command
		e.Verdict = VerdictRemove
		if len(cmd.Replacements) > 0 {
			e.Verdict = VerdictReplace
		}
		e.Reason = fmt.Sprintf("%s: %s", cmd.Reason, cmd.Detail)
		return nil
	}
	e.Verdict = VerdictKept
	e.Reason = "consolidation has nothing to say about it"
	for _, k := range rep.Kept {
		if k.Node == e.Name {
			e.Reason = k.Reason
		}
	}
	return nil
}

// describeNode is " of pool P (type in zone)", or " (not launched by Tenon)".
func describeNode(n ReportNode) string {
	if n.NodePool == "" {
		return " (not launched by Tenon)"
	}
	return fmt.Sprintf(" of pool %s (%s in %s)", n.NodePool, n.InstanceType, n.Zone)
}

// poolLeftOut says why the agent leaves pool out, or "".
func poolLeftOut(lc *LiveCluster, pool string) string {
	for key, why := range lc.LeftOut {
		if _, name, _ := strings.Cut(key, "/"); name == pool {
			return why
		}
	}
	return ""
}

// writeExplanation prints the answer.
func writeExplanation(w io.Writer, cmd cli.Command, e *Explanation, format string) int {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(e); err != nil {
			cmd.Printf("writing JSON: %v", err)
			return ExitCheckFails
		}
		return ExitOK
	}
	fmt.Fprintf(w, "%s %s in cluster %q at %s: %s.\n", strings.ToUpper(e.Kind[:1])+e.Kind[1:], e.Name, e.Cluster, e.Now, e.Verdict)
	fmt.Fprintf(w, "Why: %s\n", e.Reason)
	if c := e.Command; c != nil {
		for _, r := range c.Replacements {
			fmt.Fprintf(w, "Replacement: %s %s in %s, $%.4f/h, pool %s\n", r.CapacityType, r.InstanceType, r.Zone, r.PricePerHour, r.NodePool)
		}
		for _, m := range c.Moves {
			to := m.To
			if to == "" {
				to = "(pending)"
			}
			fmt.Fprintf(w, "Moves: %s to %s\n", m.Pod, to)
		}
	}
	return ExitOK
}
