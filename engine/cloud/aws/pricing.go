package aws

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Price sources, as PriceSources and the logs report them.
const (
	// SourcePricingAPI is the Price List API (pricing:GetProducts).
	SourcePricingAPI = "pricing-api"
	// SourceSpotPriceHistory is ec2:DescribeSpotPriceHistory.
	SourceSpotPriceHistory = "spot-price-history"
	// SourceEmbedded is the embedded catalog's prices for the region.
	SourceEmbedded = "embedded"
	// SourceEmbeddedEstimate is the embedded catalog's us-east-1 prices,
	// used as an estimate for a region the catalog has no prices for.
	SourceEmbeddedEstimate = "embedded-us-east-1-estimate"
)

// PriceSources says where the prices in use came from.
type PriceSources struct {
	// OnDemand and Spot are one of the Source* constants.
	OnDemand, Spot string
	// Types counts the instance types with an on-demand price.
	Types int
	// At is when the prices were loaded.
	At time.Time
}

// priceView holds the prices of the region.
type priceView struct {
	sources  PriceSources
	onDemand map[string]float64            // by type
	spot     map[string]map[string]float64 // by type, then zone (live)
	spotEst  map[string]float64            // by type, when spot is not live
}

// spotPrice is the live spot price of a type in a zone, or the estimate.
func (v *priceView) spotPrice(name, zone string) (float64, bool) {
	if byZone, ok := v.spot[name]; ok {
		p, ok := byZone[zone]
		return p, ok && p > 0
	}
	p, ok := v.spotEst[name]
	return p, ok && p > 0
}

// PriceSources loads prices if needed and says where they came from.
func (p *Provider) PriceSources(ctx context.Context) PriceSources {
	return p.priceView(ctx).sources
}

// priceView returns the cached prices, loading them when missing. It never
// fails: when the Pricing API or the spot price history cannot be reached
// (isolated VPCs have no route to them) it falls back to the embedded
// catalog, and says so in the logs and in PriceSources.
func (p *Provider) priceView(ctx context.Context) *priceView {
	p.mu.Lock()
	pv := p.prices
	p.mu.Unlock()
	if pv != nil {
		return pv
	}
	p.loadMu.Lock()
	defer p.loadMu.Unlock()
	p.mu.Lock()
	pv = p.prices
	p.mu.Unlock()
	if pv != nil {
		return pv
	}
	return p.loadPriceView(ctx)
}

// loadPriceView loads and caches the prices.
func (p *Provider) loadPriceView(ctx context.Context) *priceView {
	pv := &priceView{sources: PriceSources{At: p.now()}}
	embedded, embeddedSource := p.embeddedPrices()
	od, err := p.onDemandPrices(ctx)
	if err != nil || len(od) == 0 {
		p.log.Warn("on-demand prices unavailable from the Pricing API; using the embedded catalog", "error", err, "priceSource", embeddedSource)
		pv.onDemand, pv.sources.OnDemand = map[string]float64{}, embeddedSource
		for name, pr := range embedded {
			pv.onDemand[name] = pr.onDemand
		}
	} else {
		pv.onDemand, pv.sources.OnDemand = od, SourcePricingAPI
	}
	spot, err := p.spotPrices(ctx)
	if err != nil {
		p.log.Warn("spot prices unavailable from the spot price history; using the embedded estimates", "error", err, "priceSource", embeddedSource)
		pv.spotEst, pv.sources.Spot = map[string]float64{}, embeddedSource
		for name, pr := range embedded {
			// Scale the embedded spot/on-demand ratio to the on-demand
			// price in use, so estimates follow the region's prices.
			if pr.spot > 0 && pr.onDemand > 0 && pv.onDemand[name] > 0 {
				pv.spotEst[name] = pv.onDemand[name] * pr.spot / pr.onDemand
			}
		}
	} else {
		pv.spot, pv.sources.Spot = spot, SourceSpotPriceHistory
	}
	pv.sources.Types = len(pv.onDemand)
	p.log.Info("loaded prices", "onDemandSource", pv.sources.OnDemand, "spotSource", pv.sources.Spot, "types", pv.sources.Types)
	p.mu.Lock()
	p.prices = pv
	p.mu.Unlock()
	return pv
}

type embeddedPrice struct{ onDemand, spot float64 }

// embeddedPrices returns the embedded catalog's prices for the region, or
// its us-east-1 prices as an estimate.
func (p *Provider) embeddedPrices() (map[string]embeddedPrice, string) {
	cat, source := p.specs, SourceEmbeddedEstimate
	if p.region == p.specs.Region() {
		source = SourceEmbedded
	} else if c, err := catalog.New(catalog.WithRegion(p.region)); err == nil {
		cat, source = c, SourceEmbedded
	}
	out := map[string]embeddedPrice{}
	for _, it := range cat.InstanceTypes() {
		var pr embeddedPrice
		for _, o := range it.Offerings {
			switch o.CapacityType {
			case scheduling.CapacityTypeOnDemand:
				pr.onDemand = o.PricePerHour
			case scheduling.CapacityTypeSpot:
				pr.spot = o.PricePerHour
			}
		}
		if pr.onDemand > 0 {
			out[it.Name] = pr
		}
	}
	return out, source
}

// onDemandPrices reads the region's Linux, shared-tenancy on-demand prices
// from the Price List API.
func (p *Provider) onDemandPrices(ctx context.Context) (map[string]float64, error) {
	match := func(field, value string) pricingtypes.Filter {
		return pricingtypes.Filter{Field: aws.String(field), Value: aws.String(value), Type: pricingtypes.FilterTypeTermMatch}
	}
	in := &pricing.GetProductsInput{
		ServiceCode: aws.String("AmazonEC2"),
		Filters: []pricingtypes.Filter{
			match("regionCode", p.region),
			match("operatingSystem", "Linux"),
			match("tenancy", "Shared"),
			match("preInstalledSw", "NA"),
			match("capacitystatus", "Used"),
			match("productFamily", "Compute Instance"),
		},
		FormatVersion: aws.String("aws_v1"),
	}
	out := map[string]float64{}
	pages := pricing.NewGetProductsPaginator(p.pricing, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("getting EC2 products from the Pricing API: %w", err)
		}
		for _, doc := range page.PriceList {
			name, price, err := parseProduct(doc)
			if err != nil {
				return nil, err
			}
			if name != "" && price > 0 {
				out[name] = price
			}
		}
	}
	return out, nil
}

// product is the part of a Price List product document the provider reads.
type product struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				Unit         string            `json:"unit"`
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// parseProduct returns a product's instance type and hourly USD price.
func parseProduct(doc string) (string, float64, error) {
	var pr product
	if err := json.Unmarshal([]byte(doc), &pr); err != nil {
		return "", 0, fmt.Errorf("decoding a Price List product: %w", err)
	}
	for _, term := range pr.Terms.OnDemand {
		for _, dim := range term.PriceDimensions {
			if dim.Unit != "Hrs" {
				continue
			}
			price, err := strconv.ParseFloat(dim.PricePerUnit["USD"], 64)
			if err != nil {
				return "", 0, fmt.Errorf("price of %s: %w", pr.Product.Attributes.InstanceType, err)
			}
			return pr.Product.Attributes.InstanceType, price, nil
		}
	}
	return pr.Product.Attributes.InstanceType, 0, nil
}

// spotPrices reads the current Linux spot price of every type and zone.
func (p *Provider) spotPrices(ctx context.Context) (map[string]map[string]float64, error) {
	in := &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"},
		StartTime:           aws.Time(p.now()),
	}
	out := map[string]map[string]float64{}
	latest := map[string]time.Time{}
	pages := ec2.NewDescribeSpotPriceHistoryPaginator(p.ec2, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing spot price history: %w", err)
		}
		for _, sp := range page.SpotPriceHistory {
			price, err := strconv.ParseFloat(aws.ToString(sp.SpotPrice), 64)
			if err != nil || price <= 0 {
				continue
			}
			name, zone := string(sp.InstanceType), aws.ToString(sp.AvailabilityZone)
			key, at := name+"/"+zone, aws.ToTime(sp.Timestamp)
			if prev, ok := latest[key]; ok && prev.After(at) {
				continue
			}
			latest[key] = at
			if out[name] == nil {
				out[name] = map[string]float64{}
			}
			out[name][zone] = price
		}
	}
	return out, nil
}
