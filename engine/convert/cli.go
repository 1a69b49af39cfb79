package convert

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes of `tenon convert`.
const (
	ExitOK       = 0
	ExitUnmapped = 1
	ExitBadInput = 2
)

// Command is the `tenon convert` subcommand:
//
//	tenon convert [-f FILE]... [FILE...] [-o hcl|yaml] [--import] [--cluster-name NAME]
//	              [--default-instance-profile NAME] [--strict]
//
// It reads Karpenter YAML (FILE - or no file at all reads standard input),
// writes Tenon HCL or YAML to stdout, and lists what it could not map on
// stderr. Exit status: 0 converted (perhaps with fields not mapped), 1 with
// --strict when a field was not mapped, 2 bad input or usage.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, args, os.Stdin, stdout, stderr)
}

type options struct {
	files  []string
	output string
	hcl    HCLOptions
	conv   Options
	strict bool
}

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(v string) error {
	if v == "" {
		return errors.New("must name a file, or - for standard input")
	}
	*f = append(*f, v)
	return nil
}

// outputFormat is the -o flag.
type outputFormat string

func (o *outputFormat) String() string { return string(*o) }

func (o *outputFormat) Set(v string) error {
	if v != "hcl" && v != "yaml" {
		return errors.New("must be hcl or yaml")
	}
	*o = outputFormat(v)
	return nil
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("tenon convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files fileList
	output := outputFormat("hcl")
	o := &options{}
	fs.Var(&files, "f", "Karpenter YAML `file` to convert; repeat for several; - reads standard input")
	fs.Var(&output, "o", "output `format`: hcl (tenon_* resources) or yaml (tenon.dev objects)")
	fs.BoolVar(&o.hcl.Import, "import", false, "add an import block for every resource (HCL only), to adopt objects that already exist in the cluster")
	fs.StringVar(&o.conv.ClusterName, "cluster-name", "", "replace ${CLUSTER_NAME} and $CLUSTER_NAME in the input with this `name`")
	fs.StringVar(&o.conv.DefaultInstanceProfile, "default-instance-profile", "", "instance profile `name` for AWSNodeTemplates and inline providers without one (Karpenter v1alpha5's aws.defaultInstanceProfile)")
	fs.BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when any input field cannot be mapped")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: tenon convert [-f FILE]... [FILE]... [-o hcl|yaml] [--import] [--cluster-name NAME] [--strict]")
		fmt.Fprintln(w, "\nConverts Karpenter objects (karpenter.sh/v1alpha5 Provisioner, karpenter.sh/v1beta1 and v1")
		fmt.Fprintln(w, "NodePool, karpenter.k8s.aws/v1beta1 and v1 EC2NodeClass, karpenter.k8s.aws/v1alpha1")
		fmt.Fprintln(w, "AWSNodeTemplate) into Tenon's: tenon_* Terraform resources (-o hcl, the default) or tenon.dev")
		fmt.Fprintln(w, "YAML (-o yaml). Fields Tenon has no equivalent for are listed on stderr and in a comment at")
		fmt.Fprintln(w, "the top of the output. With no file, or -, it reads standard input.")
		fmt.Fprintln(w, "Exit status: 0 converted, 1 --strict and a field was not mapped, 2 bad input or usage.")
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
	// Flags may follow file names: parse, take the positional file, repeat.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	o.files = append([]string(files), positional...)
	o.output = string(output)
	if o.hcl.Import && o.output != "hcl" {
		err := errors.New("--import adds Terraform import blocks and needs -o hcl")
		fmt.Fprintf(stderr, "tenon convert: %v\n", err)
		return nil, err
	}
	return o, nil
}

func run(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitBadInput
	}
	inputs, err := readInputs(opts.files, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "tenon convert: %v\n", err)
		return ExitBadInput
	}
	res, err := Convert(inputs, opts.conv)
	if err != nil {
		for _, e := range asErrors(err) {
			fmt.Fprintf(stderr, "tenon convert: %v\n", e)
		}
		fmt.Fprintln(stderr, "tenon convert: nothing written; fix the input above and run again")
		return ExitBadInput
	}
	var out bytes.Buffer
	if opts.output == "yaml" {
		err = WriteYAML(&out, res)
	} else {
		err = WriteHCL(&out, res, opts.hcl)
		res = withHCLFindings(res) // what the header of the HCL lists, for stderr
	}
	if err != nil {
		fmt.Fprintf(stderr, "tenon convert: writing %s: %v\n", opts.output, err)
		return ExitBadInput
	}
	report(stderr, res)
	if opts.strict && len(res.Unmapped) > 0 {
		fmt.Fprintf(stderr, "tenon convert: --strict: %d field(s) not mapped; nothing written\n", len(res.Unmapped))
		return ExitUnmapped
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "tenon convert: writing output: %v\n", err)
		return ExitBadInput
	}
	return ExitOK
}

// report lists on stderr what the output does not carry.
func report(w io.Writer, res *Result) {
	for _, f := range res.Unmapped {
		fmt.Fprintf(w, "tenon convert: not mapped: %s\n", f)
	}
	for _, f := range res.Ignored {
		fmt.Fprintf(w, "tenon convert: ignored: %s\n", f)
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "tenon convert: warning: %s\n", warning)
	}
	fmt.Fprintf(w, "tenon convert: converted %d object(s); %d field(s) not mapped, %d ignored\n", len(res.Objects), len(res.Unmapped), len(res.Ignored))
}

// readInputs reads the named files; none, or -, is standard input.
func readInputs(files []string, stdin io.Reader) ([]Input, error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	inputs := make([]Input, 0, len(files))
	readStdin := false
	for _, f := range files {
		if f == "-" {
			if readStdin {
				return nil, errors.New("standard input (-) named twice")
			}
			readStdin = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("reading standard input: %w", err)
			}
			inputs = append(inputs, Input{Name: "<stdin>", Data: data})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		inputs = append(inputs, Input{Name: f, Data: data})
	}
	return inputs, nil
}
