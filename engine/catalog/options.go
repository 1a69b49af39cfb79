package catalog

// DefaultRegion is the region New uses without WithRegion.
const DefaultRegion = "us-east-1"

// Option configures New.
type Option func(*options)

type options struct {
	region string
	zones  []string
}

// WithRegion selects the region whose prices the catalog offers, e.g.
// "us-gov-west-1". Default: us-east-1.
func WithRegion(region string) Option {
	return func(o *options) { o.region = region }
}

// WithZones sets the availability zones offerings are made in; each must be
// in the region (e.g. "us-east-1d", or a local zone "us-east-1-bos-1a").
// Default: the region's a, b and c zones.
func WithZones(zones ...string) Option {
	return func(o *options) { o.zones = append([]string{}, zones...) }
}
