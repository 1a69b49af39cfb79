package aws

import (
	"math"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/smithy-go"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func offeringsOfType(t *testing.T, types []*catalog.InstanceType, name string) map[string]catalog.Offering {
	t.Helper()
	for _, it := range types {
		if it.Name == name {
			out := map[string]catalog.Offering{}
			for _, o := range it.Offerings {
				out[o.Zone+"/"+o.CapacityType] = o
			}
			return out
		}
	}
	return nil
}

func TestInstanceTypesAndLivePrices(t *testing.T) {
	e := newEnv(t)
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 7 {
		t.Errorf("types = %d, want the world's 7", len(types))
	}
	m5 := offeringsOfType(t, types, "m5.large")
	if len(m5) != 6 {
		t.Fatalf("m5.large offerings = %v, want 3 zones x 2 capacity types", m5)
	}
	if got := m5["us-east-1a/on-demand"].PricePerHour; got != e.fake.OnDemandPrices["m5.large"] {
		t.Errorf("on-demand price = %v, want the Pricing API's %v", got, e.fake.OnDemandPrices["m5.large"])
	}
	if got, want := m5["us-east-1c/spot"].PricePerHour, e.fake.OnDemandPrices["m5.large"]*0.3-0.002; math.Abs(got-want) > 1e-6 {
		t.Errorf("spot price in c = %v, want the history's %v", got, want)
	}
	if g4 := offeringsOfType(t, types, "g4dn.xlarge"); len(g4) != 4 {
		t.Errorf("g4dn.xlarge offerings = %v, want zones a and b only", g4)
	}
	for _, it := range types {
		if got := it.Requirements.Get(scheduling.LabelTopologyRegion); !got.Has("us-east-1") {
			t.Errorf("%s region requirement = %v", it.Name, got)
		}
	}
	if src := e.p.PriceSources(t.Context()); src.OnDemand != SourcePricingAPI || src.Spot != SourceSpotPriceHistory || src.Types != 7 {
		t.Errorf("price sources = %+v", src)
	}
	// The Pricing API was asked for the region's Linux shared on-demand
	// prices.
	in := e.fake.Calls("GetProducts")[0].Input.(*pricing.GetProductsInput)
	filters := map[string]string{}
	for _, f := range in.Filters {
		filters[aws.ToString(f.Field)] = aws.ToString(f.Value)
	}
	if aws.ToString(in.ServiceCode) != "AmazonEC2" || filters["regionCode"] != "us-east-1" || filters["operatingSystem"] != "Linux" || filters["tenancy"] != "Shared" {
		t.Errorf("GetProducts = %s %v", aws.ToString(in.ServiceCode), filters)
	}
	// A NodeClass with subnets in one zone offers that zone only, and one
	// without arm64 AMIs no arm64 types.
	e.classes.put(nodeClass("default", func(s *v1AWS) {
		s.SubnetSelectorTerms = subnetIDs("subnet-b")
		s.AMISelectorTerms = amiIDs("ami-custom-new")
	}))
	types, err = e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		if it.Name == "m6g.large" {
			t.Error("arm64 type offered without an arm64 AMI")
		}
		for _, o := range it.Offerings {
			if o.Zone != "us-east-1b" {
				t.Errorf("%s offered in %s without a subnet there", it.Name, o.Zone)
			}
		}
	}
}

func TestPricesFallBackToTheEmbeddedCatalog(t *testing.T) {
	e := newEnv(t)
	unreachable := &smithy.OperationError{ServiceID: "Pricing", OperationName: "GetProducts", Err: errDial}
	e.fake.NextError("GetProducts", unreachable)
	e.fake.NextError("DescribeSpotPriceHistory", &smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeSpotPriceHistory", Err: errDial})
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := catalog.New()
	embedded, _ := cat.Get("m5.large")
	var embOD, embSpot float64
	for _, o := range embedded.Offerings {
		if o.CapacityType == "on-demand" {
			embOD = o.PricePerHour
		} else {
			embSpot = o.PricePerHour
		}
	}
	m5 := offeringsOfType(t, types, "m5.large")
	if m5["us-east-1a/on-demand"].PricePerHour != embOD || math.Abs(m5["us-east-1a/spot"].PricePerHour-embSpot) > 1e-9 {
		t.Errorf("prices = %v, want the embedded %v / %v", m5, embOD, embSpot)
	}
	if src := e.p.PriceSources(t.Context()); src.OnDemand != SourceEmbedded || src.Spot != SourceEmbedded {
		t.Errorf("price sources = %+v, want embedded", src)
	}
	// Refresh tries the live sources again.
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if src := e.p.PriceSources(t.Context()); src.OnDemand != SourcePricingAPI {
		t.Errorf("after Refresh: %+v", src)
	}
}

func TestEmbeddedEstimateForRegionsWithoutPrices(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Region = "eu-west-1" })
	e.fake.NextError("GetProducts", &smithy.OperationError{ServiceID: "Pricing", OperationName: "GetProducts", Err: errDial})
	pv := e.p.priceView(t.Context())
	if pv.sources.OnDemand != SourceEmbeddedEstimate || pv.onDemand["m5.large"] <= 0 {
		t.Errorf("sources %+v, m5.large %v; want the us-east-1 estimate", pv.sources, pv.onDemand["m5.large"])
	}
}

func TestParseProduct(t *testing.T) {
	// The shape of the GetProducts example in the Price List API reference.
	doc := `{"product":{"productFamily":"Compute Instance","attributes":{"instanceType":"m5.large","regionCode":"us-east-1","operatingSystem":"Linux"},"sku":"ABC"},
"serviceCode":"AmazonEC2","terms":{"OnDemand":{"ABC.JRTCKXETXF":{"priceDimensions":{"ABC.JRTCKXETXF.6YS6EN2CT7":{"unit":"Hrs","endRange":"Inf","pricePerUnit":{"USD":"0.0960000000"}}},"sku":"ABC"}}},"version":"20261101","publicationDate":"2026-11-01T00:00:00Z"}`
	name, price, err := parseProduct(doc)
	if err != nil || name != "m5.large" || price != 0.096 {
		t.Errorf("parseProduct = %q, %v, %v", name, price, err)
	}
	if _, _, err := parseProduct("{"); err == nil {
		t.Error("parseProduct of broken JSON succeeded")
	}
}
