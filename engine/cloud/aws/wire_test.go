package aws

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// The wire tests run the real SDK clients (serialization, signing, retries)
// against wireServer on 127.0.0.1.

type wireEnv struct {
	w     *wireServer
	fake  *awsfake.Fake
	clock *fakeClock
	cs    *classes
	p     *Provider
}

func newWireEnv(t *testing.T) *wireEnv {
	t.Helper()
	f := awsfake.WorldWith(testCluster, testCatalog(t))
	clock := newClock()
	f.SetClock(clock.Now)
	cs := &classes{m: map[string]*v1.NodeClass{}}
	cs.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.Tags = v1.Tags{"team": "web"} }))
	w := newWireServer(t, f)
	return &wireEnv{w: w, fake: f, clock: clock, cs: cs, p: newWireProvider(t, w, cs, clock)}
}

// restart is a new provider with new SDK clients, as after an agent restart.
func (e *wireEnv) restart(t *testing.T) *Provider { return newWireProvider(t, e.w, e.cs, e.clock) }

func wantForm(t *testing.T, r awsfake.Request, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := r.Form.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", r.Op, k, got, v)
		}
	}
}

// formTagMap reads TagSpecification.N (of resourceType) as a map.
func formTagMap(r awsfake.Request, resourceType string) map[string]string {
	for _, ts := range awsfake.FormTagSpecifications(r.Form, "TagSpecification") {
		if string(ts.ResourceType) == resourceType {
			return tagMap(ts.Tags)
		}
	}
	return nil
}

func TestWireCreateFleet(t *testing.T) {
	e := newWireEnv(t)
	c := claim("general-wire", spotOrOnDemand, amd64, req(scheduling.LabelInstanceType, "In", "m5.large", "c5.large"))
	got, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	fleets := e.w.Requests("CreateFleet")
	if len(fleets) != 1 {
		t.Fatalf("CreateFleet requests = %d", len(fleets))
	}
	r := fleets[0]
	wantForm(t, r, map[string]string{
		"Version": "2016-11-15", "Type": "instant",
		"TargetCapacitySpecification.TotalTargetCapacity":             "1",
		"TargetCapacitySpecification.DefaultTargetCapacityType":       "spot",
		"SpotOptions.AllocationStrategy":                              "price-capacity-optimized",
		"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version": "$Latest",
		"LaunchTemplateConfigs.1.Overrides.1.SubnetId":                "subnet-c",
		"LaunchTemplateConfigs.1.Overrides.3.SubnetId":                "subnet-a2",
	})
	if r.Form.Has("OnDemandOptions.AllocationStrategy") || r.Form.Has("LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName") {
		t.Errorf("unexpected on-demand options or second template: %v", r.Form)
	}
	var overrides []string
	for i := 1; r.Form.Has("LaunchTemplateConfigs.1.Overrides." + itoa(i) + ".InstanceType"); i++ {
		overrides = append(overrides, r.Form.Get("LaunchTemplateConfigs.1.Overrides."+itoa(i)+".InstanceType"))
	}
	if len(overrides) != 6 || overrides[0] != got.Status.InstanceType {
		t.Errorf("overrides = %v, want 6 with the launched (cheapest) type first", overrides)
	}
	if tok := r.Form.Get("ClientToken"); !strings.HasPrefix(tok, "tenon-") {
		t.Errorf("ClientToken = %q", tok)
	}
	tags := formTagMap(r, "instance")
	for k, v := range map[string]string{TagCluster: testCluster, TagNodePool: "general", TagNodeClaim: "general-wire", "Name": "general-wire", "team": "web"} {
		if tags[k] != v {
			t.Errorf("instance tag %s = %q, want %q (all: %v)", k, tags[k], v, tags)
		}
	}
	if fleetTags := formTagMap(r, "fleet"); fleetTags[TagCluster] != testCluster {
		t.Errorf("fleet tags = %v", fleetTags)
	}
	// The launch template went over the wire too, tagged with the cluster.
	lts := e.w.Requests("CreateLaunchTemplate")
	if len(lts) != 1 || formTagMap(lts[0], "launch-template")[TagCluster] != testCluster ||
		lts[0].Form.Get("LaunchTemplateData.ImageId") != "ami-al2023-amd64" || lts[0].Form.Get("LaunchTemplateData.IamInstanceProfile.Name") != defaultProfile {
		t.Errorf("CreateLaunchTemplate = %+v", lts)
	}
	// Before launching, Create looked for the claim's instance by tags.
	desc := e.w.Requests("DescribeInstances")[0]
	wantFilters := map[string][]string{
		"tag:" + TagCluster: {testCluster}, "tag:" + TagNodeClaim: {"general-wire"}, "instance-state-name": {"pending", "running", "stopping", "stopped"},
	}
	for _, f := range awsfake.FormFilters(desc.Form) {
		if want, ok := wantFilters[*f.Name]; !ok || !slices.Equal(f.Values, want) {
			t.Errorf("DescribeInstances filter %s = %v", *f.Name, f.Values)
		}
		delete(wantFilters, *f.Name)
	}
	if len(wantFilters) > 0 {
		t.Errorf("DescribeInstances lacks filters %v", wantFilters)
	}
	// Prices came over the wire from the Pricing and EC2 APIs.
	if src := e.p.PriceSources(t.Context()); src.OnDemand != SourcePricingAPI || src.Spot != SourceSpotPriceHistory {
		t.Errorf("price sources = %+v", src)
	}
	gp := e.w.Requests("GetProducts")[0].JSON
	if gp["ServiceCode"] != "AmazonEC2" || !strings.Contains(jsonString(gp["Filters"]), `"Field":"regionCode","Type":"TERM_MATCH","Value":"us-east-1"`) {
		t.Errorf("GetProducts = %v", gp)
	}
	if got.Status.ProviderID == "" || got.Status.ImageID != "ami-al2023-amd64" || got.Status.CapacityType != "spot" {
		t.Errorf("status = %+v", got.Status)
	}
}

func TestWireGetDeleteAndInterruptions(t *testing.T) {
	e := newWireEnv(t)
	c, err := e.p.Create(t.Context(), claim("life", onDemandOnly))
	if err != nil {
		t.Fatal(err)
	}
	_, id, _ := ParseProviderID(c.Status.ProviderID)
	got, err := e.p.Get(t.Context(), c.Status.ProviderID)
	if err != nil || got.Name != "life" || got.Status.InstanceType != c.Status.InstanceType || got.Status.CapacityType != "on-demand" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	descs := e.w.Requests("DescribeInstances")
	wantForm(t, descs[len(descs)-1], map[string]string{"InstanceId.1": id, "Filter.1.Name": "tag:" + TagCluster, "Filter.1.Value.1": testCluster})

	// An interruption for the instance, through SQS's JSON protocol.
	e.fake.Enqueue(spotEvent(id))
	src := e.p.InterruptionSource()
	evs, err := src.Receive(t.Context())
	if err != nil || len(evs) != 1 || evs[0].Kind != cloud.SpotInterruption || evs[0].ProviderID != c.Status.ProviderID {
		t.Fatalf("Receive = %+v, %v", evs, err)
	}
	rec := e.w.Requests("ReceiveMessage")[0].JSON
	if rec["QueueUrl"] != "https://sqs.us-east-1.amazonaws.com/123456789012/tenon-prod" || rec["MaxNumberOfMessages"] != float64(10) || rec["WaitTimeSeconds"] != float64(20) {
		t.Errorf("ReceiveMessage = %v", rec)
	}
	if len(e.w.Requests("DeleteMessage")) != 0 {
		t.Fatal("a message was deleted before Done")
	}
	if err := src.Done(t.Context(), evs[0]); err != nil {
		t.Fatal(err)
	}
	del := e.w.Requests("DeleteMessage")
	if len(del) != 1 || del[0].JSON["ReceiptHandle"] != evs[0].Handle || del[0].JSON["QueueUrl"] != rec["QueueUrl"] {
		t.Errorf("DeleteMessage = %+v", del)
	}

	if err := e.p.Delete(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	wantForm(t, e.w.Requests("TerminateInstances")[0], map[string]string{"InstanceId.1": id})
	if err := e.p.Delete(t.Context(), c); !cloud.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}
	// An unknown instance is NotFound through EC2's XML error.
	if _, err := e.p.Get(t.Context(), "aws:///us-east-1a/i-0000000000000dead"); !cloud.IsNotFound(err) {
		t.Errorf("Get of an unknown instance = %v, want NotFound", err)
	}
}

func TestWireThrottlingRetriesWithoutDuplicateLaunch(t *testing.T) {
	e := newWireEnv(t)
	e.w.FailNext("CreateFleet", 503, 503) // RequestLimitExceeded twice
	if _, err := e.p.Create(t.Context(), claim("throttled", spotOrOnDemand)); err != nil {
		t.Fatalf("Create through throttling: %v", err)
	}
	fleets := e.w.Requests("CreateFleet")
	if len(fleets) != 3 {
		t.Fatalf("CreateFleet requests = %d, want 3 (two throttled, one served)", len(fleets))
	}
	for i, r := range fleets[1:] {
		if r.Form.Get("ClientToken") != fleets[0].Form.Get("ClientToken") {
			t.Errorf("retry %d changed the client token", i+1)
		}
		if gap := r.At.Sub(fleets[i].At); gap < time.Duration(i+1)*20*time.Millisecond {
			t.Errorf("retry %d came %v after the previous request; want the backoff of %v", i+1, gap, time.Duration(i+1)*20*time.Millisecond)
		}
	}
	if n := e.fake.Launched(); n != 1 {
		t.Errorf("launched %d instances, want 1", n)
	}
}

func TestWireLostResponsesNeverLaunchTwice(t *testing.T) {
	e := newWireEnv(t)
	// Every attempt is handled but answered 500: EC2 launched, the SDK
	// retried with the same token, and the agent finally saw an error.
	for range 4 {
		e.w.LoseNext("CreateFleet")
	}
	c := claim("lost", spotOrOnDemand)
	if _, err := e.p.Create(t.Context(), c); err == nil {
		t.Fatal("Create succeeded though every response was lost")
	}
	if n := len(e.w.Requests("CreateFleet")); n != 4 {
		t.Fatalf("CreateFleet requests = %d, want 4 (the SDK's attempts)", n)
	}
	if n := e.fake.Launched(); n != 1 {
		t.Fatalf("launched %d instances through retries, want 1 (same client token)", n)
	}
	// After a restart, retrying the claim adopts the instance.
	p2 := e.restart(t)
	got, err := p2.Create(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if e.fake.Launched() != 1 || len(e.w.Requests("CreateFleet")) != 4 || got.Status.ProviderID == "" {
		t.Fatalf("after restart: launched %d, status %+v", e.fake.Launched(), got.Status)
	}
}

func TestWireOrphanCollectorTerminatesLostLaunches(t *testing.T) {
	e := newWireEnv(t)
	for range 4 {
		e.w.LoseNext("CreateFleet")
	}
	if _, err := e.p.Create(t.Context(), claim("gone", spotOrOnDemand)); err == nil {
		t.Fatal("Create succeeded though every response was lost")
	}
	// The agent restarts and the claim is gone (it was deleted while the
	// agent was down): nothing tracks the instance.
	p2 := e.restart(t)
	known := func(string) bool { return false }
	if got, err := p2.CollectOrphans(t.Context(), known, 10*time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("CollectOrphans within grace = %v, %v", got, err)
	}
	e.clock.Step(11 * time.Minute)
	got, err := p2.CollectOrphans(t.Context(), known, 10*time.Minute)
	if err != nil || len(got) != 1 {
		t.Fatalf("CollectOrphans = %v, %v; want the lost instance", got, err)
	}
	wantForm(t, e.w.Requests("TerminateInstances")[0], map[string]string{"InstanceId.1": got[0]})
	if list, err := p2.List(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("List after collection = %v, %v; want nothing left", list, err)
	}
}

func TestWireICEFallsBackToTheNextOffering(t *testing.T) {
	e := newWireEnv(t)
	only := req(scheduling.LabelInstanceType, "In", "m5.large")
	ice := awsfake.Offering{InstanceType: "m5.large", Zone: "us-east-1c", CapacityType: "spot"}
	e.fake.InsufficientCapacity(ice, true)
	got, err := e.p.Create(t.Context(), claim("ice", spotOrOnDemand, only))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Zone != "us-east-1b" {
		t.Errorf("launched in %s, want us-east-1b (the next cheapest)", got.Status.Zone)
	}
	if !e.p.isUnavailable(cloud.Offering{InstanceType: "m5.large", Zone: "us-east-1c", CapacityType: "spot"}) {
		t.Error("the offering reported in the fleet's errorSet is not marked unavailable")
	}
	// With every spot offering out, the claim falls back to on-demand.
	for _, z := range []string{"us-east-1a", "us-east-1b"} {
		e.fake.InsufficientCapacity(awsfake.Offering{InstanceType: "m5.large", Zone: z, CapacityType: "spot"}, true)
	}
	got, err = e.p.Create(t.Context(), claim("ice2", spotOrOnDemand, only))
	if err != nil {
		t.Fatal(err)
	}
	fleets := e.w.Requests("CreateFleet")
	last := fleets[len(fleets)-1]
	wantForm(t, last, map[string]string{"TargetCapacitySpecification.DefaultTargetCapacityType": "on-demand", "OnDemandOptions.AllocationStrategy": "lowest-price"})
	if got.Status.CapacityType != "on-demand" {
		t.Errorf("capacity type = %s", got.Status.CapacityType)
	}
}

func TestWirePricingUnreachableFallsBack(t *testing.T) {
	e := newWireEnv(t)
	e.w.FailNext("GetProducts", 500, 500, 500, 500)
	if src := e.p.PriceSources(t.Context()); src.OnDemand != SourceEmbedded || src.Spot != SourceSpotPriceHistory {
		t.Errorf("price sources = %+v, want embedded on-demand and live spot", src)
	}
	if n := len(e.w.Requests("GetProducts")); n != 4 {
		t.Errorf("GetProducts attempts = %d, want 4 (retried, then fell back)", n)
	}
}

func TestWireNewFromDefaultConfig(t *testing.T) {
	// The agent builds the provider from the SDK's default configuration;
	// AWS_ENDPOINT_URL points every client, Pricing included, at the server.
	f := awsfake.WorldWith(testCluster, testCatalog(t))
	w := newWireServer(t, f)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": w.URL(), "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
		"AWS_SECRET_ACCESS_KEY": "secret", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
	} {
		t.Setenv(k, v)
	}
	cs := &classes{m: map[string]*v1.NodeClass{}}
	cs.put(nodeClass("default"))
	p, err := NewFromDefaultConfig(t.Context(), Options{
		ClusterName: testCluster, NodeClass: cs.lookup, ClusterEndpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com", ClusterCA: "Q0E=",
		KubernetesVersion: awsfake.KubernetesVersion, RefreshInterval: -1, Catalog: testCatalog(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Create(t.Context(), claim("env", spotOrOnDemand)); err != nil {
		t.Fatal(err)
	}
	if len(w.Requests("CreateFleet")) != 1 || len(w.Requests("GetProducts")) != 1 || p.Region() != "us-east-1" {
		t.Errorf("requests: %d CreateFleet, %d GetProducts; region %s", len(w.Requests("CreateFleet")), len(w.Requests("GetProducts")), p.Region())
	}
}

func TestWireAMISelectorTerms(t *testing.T) {
	e := newWireEnv(t)
	e.cs.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) {
		s.AMIFamily = v1.AMIFamilyCustom
		s.AMISelectorTerms = []v1.AMISelectorTerm{{Tags: v1.SelectorTags{"team": "platform"}, Name: "custom-*"}}
	}))
	status, err := e.p.NodeClassStatus(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	var amis []string
	for _, a := range status.AMIs {
		amis = append(amis, a.ID)
	}
	if !slices.Equal(amis, []string{"ami-custom-new", "ami-custom-arm"}) {
		t.Errorf("AMIs = %v, want the newest per architecture", amis)
	}
	r := e.w.Requests("DescribeImages")[0]
	wantForm(t, r, map[string]string{"Owner.1": "self", "Owner.2": "amazon"})
	got := map[string]string{}
	for _, f := range awsfake.FormFilters(r.Form) {
		got[*f.Name] = strings.Join(f.Values, ",")
	}
	if got["state"] != "available" || got["tag:team"] != "platform" || got["name"] != "custom-*" {
		t.Errorf("DescribeImages filters = %v", got)
	}
}
