package packing

// DefaultMaxOptions caps how many instance-type options a claim lists when
// no minValues needs more.
const DefaultMaxOptions = 60

// Option configures Solve.
type Option func(*options)

type options struct {
	maxOptions int
	podValues  bool
}

func newOptions(opts []Option) options {
	o := options{maxOptions: DefaultMaxOptions, podValues: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxOptions < 1 {
		o.maxOptions = 1
	}
	return o
}

// WithMaxOptions caps the options listed per claim (default
// DefaultMaxOptions); minValues may still require more.
func WithMaxOptions(n int) Option {
	return func(o *options) { o.maxOptions = n }
}
