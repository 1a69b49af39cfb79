package convert

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/tenonhq/terraform-provider-tenon/engine/internal/cli"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Exit codes of `tenon convert`.
const (
	ExitOK = cli.ExitOK
	// ExitUnmapped: --strict found a field that could not be mapped.
	ExitUnmapped = cli.ExitFailed
	ExitBadInput = cli.ExitBadInput
	// ExitInternal: a bug in tenon (a crash), never bad input.
	ExitInternal = cli.ExitInternal
)

// Command is the `tenon convert` subcommand:
//
//	tenon convert [-f FILE]... [FILE...] [-o hcl|yaml] [--import] [--cluster-name NAME]
//	              [--default-instance-profile NAME] [--node-repair] [--strict]
//
// It reads Karpenter YAML (FILE - or no file at all reads standard input),
// writes Tenon HCL or YAML to stdout, and lists what it could not map on
// stderr. Exit status: 0 converted (perhaps with fields not mapped), 1 with
// --strict when a field was not mapped, 2 bad input or usage, 3 internal
// error (a crash: a bug in tenon).
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, args, os.Stdin, stdout, stderr)
}

type options struct {
	files  cli.Files
	output cli.Choice
	hcl    HCLOptions
	conv   Options
	strict bool
}

var usage = []string{
	"Usage: tenon convert [-f FILE]... [FILE]... [-o hcl|yaml] [--import] [--cluster-name NAME] [--node-repair] [--strict]",
	"\nConverts Karpenter objects (karpenter.sh/v1alpha5 Provisioner, karpenter.sh/v1beta1 and v1",
	"NodePool, karpenter.k8s.aws/v1beta1 and v1 EC2NodeClass, karpenter.k8s.aws/v1alpha1",
	"AWSNodeTemplate) into Tenon's: tenon_* Terraform resources (-o hcl, the default) or tenon.dev",
	"YAML (-o yaml). Fields Tenon has no equivalent for are listed on stderr and in a comment at",
	"the top of the output. With no file, or -, it reads standard input.",
	"Exit status: 0 converted; 1 --strict and a field was not mapped; 2 bad input or usage (the",
	"file, object and field at fault are named); 3 internal error (a bug).",
}

// parseFlags parses and checks the flags; it has told the person what is
// wrong when it returns an error.
func parseFlags(args []string, cmd cli.Command) (*options, error) {
	o := &options{files: cli.Files{Stdin: true}, output: cli.Choice{Value: "hcl", Allowed: []string{"hcl", "yaml"}}}
	fs := cmd.FlagSet(usage...)
	fs.Var(&o.files, "f", "Karpenter YAML `file` to convert; repeat for several; - reads standard input")
	fs.Var(&o.output, "o", "output `format`: hcl (tenon_* resources) or yaml (tenon.dev objects)")
	fs.BoolVar(&o.hcl.Import, "import", false, "add an import block for every resource (HCL only), to adopt objects that already exist in the cluster")
	fs.StringVar(&o.conv.ClusterName, "cluster-name", "", "replace ${CLUSTER_NAME} and $CLUSTER_NAME in the input with this `name`")
	fs.StringVar(&o.conv.DefaultInstanceProfile, "default-instance-profile", "", "instance profile `name` for AWSNodeTemplates and inline providers without one (Karpenter v1alpha5's aws.defaultInstanceProfile)")
	fs.BoolVar(&o.conv.NodeRepair, "node-repair", false, "Karpenter ran with --feature-gates NodeRepair=true: turn node repair on (disruption.repair.enabled) in every converted NodePool")
	fs.BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when any input field cannot be mapped")
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return nil, err
	}
	o.files.Names = append(o.files.Names, positional...)
	if len(o.files.Names) == 0 {
		o.files.Names = []string{"-"}
	}
	if o.hcl.Import && o.output.Value != "hcl" {
		return nil, cmd.Errorf("--import adds Terraform import blocks and needs -o hcl")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := cli.Command{Name: "tenon convert", Stderr: stderr}
	opts, err := parseFlags(args, cmd)
	if err != nil {
		return cli.ParseExit(err)
	}
	return cmd.Run(ctx, 0, stdout, func(_ context.Context, stdout io.Writer, cmd cli.Command) int {
		return convertFiles(opts, stdin, stdout, cmd)
	})
}

// convertFiles reads the inputs, converts them and writes the output.
func convertFiles(opts *options, stdin io.Reader, stdout io.Writer, cmd cli.Command) int {
	inputs, err := manifest.ReadFiles(opts.files.Names, stdin)
	if err != nil {
		cmd.Report(err)
		return ExitBadInput
	}
	res, err := Convert(inputs, opts.conv)
	if err != nil {
		cmd.Report(err)
		cmd.Printf("nothing written; fix the input above and run again")
		return ExitBadInput
	}
	var out bytes.Buffer
	if opts.output.Value == "yaml" {
		err = WriteYAML(&out, res)
	} else {
		err = WriteHCL(&out, res, opts.hcl)
		res = withHCLFindings(res) // what the header of the HCL lists, for stderr
	}
	if err != nil {
		// The output goes to a buffer: only a value the writer cannot
		// render fails here, which is a bug, not the input's fault.
		cmd.Printf("internal error: rendering %s: %v; this is a bug in tenon, please report it with the input", opts.output.Value, err)
		return ExitInternal
	}
	report(cmd, res)
	if opts.strict && len(res.Unmapped) > 0 {
		cmd.Printf("--strict: %d field(s) not mapped; nothing written", len(res.Unmapped))
		return ExitUnmapped
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		cmd.Printf("writing output: %v", err)
		return cli.ExitFailed
	}
	return ExitOK
}

// report lists on stderr what the output does not carry.
func report(cmd cli.Command, res *Result) {
	for _, f := range res.Unmapped {
		cmd.Printf("not mapped: %s", f)
	}
	for _, f := range res.Ignored {
		cmd.Printf("ignored: %s", f)
	}
	for _, warning := range res.Warnings {
		cmd.Printf("warning: %s", manifest.Printable(warning))
	}
	cmd.Printf("converted %d object(s); %d field(s) not mapped, %d ignored", len(res.Objects), len(res.Unmapped), len(res.Ignored))
}
