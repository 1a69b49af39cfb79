package awsfake

import (
	"context"
	"crypto/md5" //nolint:gosec // SQS's body checksum is MD5
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go"
)

// Server speaks the AWS wire protocols to the real SDK clients on
// 127.0.0.1: EC2's query protocol (form-encoded requests, XML responses),
// IAM's AWS query protocol (the same, told apart by Version 2010-05-08, with
// <ErrorResponse> errors), SQS's JSON 1.0 and SSM's and Pricing's JSON 1.1. It records every request
// and keeps its state in a Fake, converting the request fields the AWS
// provider sends into SDK inputs and the Fake's outputs into response bodies
// shaped like the API reference's examples. Requests must be SigV4-signed
// with the access key AKIDEXAMPLE (Config does that). It serves the
// operations of engine/cloud/aws's narrow interfaces.
type Server struct {
	srv  *httptest.Server
	fake *Fake

	mu       sync.Mutex
	requests []Request
	fail     map[string][]int // operation -> HTTP statuses to answer before handling it
	lose     map[string]int   // operation -> answers to lose (handled, then 500)
}

// Request is one recorded request.
type Request struct {
	// Op is the operation, such as CreateFleet or ReceiveMessage.
	Op string
	// At is when the server received it.
	At time.Time
	// Form holds an EC2 or IAM request's parameters (Action, Filter.1.Name,
	// InstanceProfileName, ...).
	Form url.Values
	// JSON holds an SQS, SSM or Pricing request's body.
	JSON map[string]any
}

// NewServer starts a Server backed by f on 127.0.0.1; Close stops it.
func NewServer(f *Fake) *Server {
	w := &Server{fake: f, fail: map[string][]int{}, lose: map[string]int{}}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	return w
}

// Close stops the server.
func (w *Server) Close() { w.srv.Close() }

// URL is the server's base URL, for BaseEndpoint or AWS_ENDPOINT_URL.
func (w *Server) URL() string { return w.srv.URL }

// Config is an AWS config for the server: static credentials (AKIDEXAMPLE),
// region us-east-1, BaseEndpoint on the server, and the standard retryer (4
// attempts) with a linear 20 ms backoff and no client-side rate limit.
func (w *Server) Config() aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""),
		BaseEndpoint: aws.String(w.srv.URL),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 4
				o.RateLimiter = ratelimit.None
				o.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
					return time.Duration(attempt) * 20 * time.Millisecond, nil
				})
			})
		},
	}
}

// FailNext answers the next calls of op with these HTTP statuses, without
// handling them (503 is EC2's throttling, RequestLimitExceeded; 500 is
// InternalError).
func (w *Server) FailNext(op string, statuses ...int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fail[op] = append(w.fail[op], statuses...)
}

// LoseNext handles the next call of op and then answers 500, as when a
// response is lost on its way back.
func (w *Server) LoseNext(op string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lose[op]++
}

// Requests returns the requests received for op, in order.
func (w *Server) Requests(op string) []Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Request
	for _, r := range w.requests {
		if r.Op == op {
			out = append(out, r)
		}
	}
	return out
}

func (w *Server) serve(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") {
		http.Error(rw, "unsigned request", http.StatusForbidden)
		return
	}
	req := Request{At: time.Now()}
	target := r.Header.Get("X-Amz-Target")
	if target != "" {
		_, req.Op, _ = strings.Cut(target, ".")
		if err := json.Unmarshal(body, &req.JSON); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
	} else {
		if req.Form, err = url.ParseQuery(string(body)); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		req.Op = req.Form.Get("Action")
	}
	w.mu.Lock()
	w.requests = append(w.requests, req)
	var status int
	if q := w.fail[req.Op]; len(q) > 0 {
		status, w.fail[req.Op] = q[0], q[1:]
	}
	lose := w.lose[req.Op] > 0
	if lose {
		w.lose[req.Op]--
	}
	w.mu.Unlock()
	proto := protoEC2
	switch {
	case target != "":
		proto = protoJSON
	case req.Form.Get("Version") == iamVersion:
		proto = protoIAM
	}
	if status != 0 {
		writeFault(rw, proto, status)
		return
	}
	ctx := context.Background()
	var out string
	switch proto {
	case protoJSON:
		out, err = w.jsonOp(ctx, req)
	case protoIAM:
		out, err = w.iamOp(ctx, req.Op, req.Form)
	default:
		out, err = w.ec2Op(ctx, req.Op, req.Form)
	}
	if lose {
		writeFault(rw, proto, http.StatusInternalServerError)
		return
	}
	if err != nil {
		writeAPIError(rw, proto, err)
		return
	}
	if target != "" {
		rw.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	} else {
		rw.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	}
	_, _ = io.WriteString(rw, out)
}

// proto is a request's protocol: EC2 query, JSON (SSM, Pricing, SQS), or
// the AWS query protocol of IAM, whose errors are wrapped differently.
type proto int

const (
	protoEC2 proto = iota
	protoJSON
	protoIAM
)

func writeFault(rw http.ResponseWriter, p proto, status int) {
	code, msg := "InternalError", "We encountered an internal error. Please try again."
	if status == http.StatusServiceUnavailable {
		code, msg = "RequestLimitExceeded", "Request limit exceeded."
	}
	writeError(rw, p, status, code, msg)
}

func writeAPIError(rw http.ResponseWriter, p proto, err error) {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		status := http.StatusBadRequest
		if p == protoIAM && apiErr.ErrorCode() == "NoSuchEntity" {
			status = http.StatusNotFound
		} else if p == protoIAM && (apiErr.ErrorCode() == "EntityAlreadyExists" || apiErr.ErrorCode() == "DeleteConflict") {
			status = http.StatusConflict
		}
		writeError(rw, p, status, apiErr.ErrorCode(), apiErr.ErrorMessage())
		return
	}
	writeError(rw, p, http.StatusBadRequest, "InvalidParameterValue", err.Error())
}

func writeError(rw http.ResponseWriter, p proto, status int, code, msg string) {
	if p == protoIAM {
		rw.Header().Set("Content-Type", "text/xml")
		rw.WriteHeader(status)
		fmt.Fprintf(rw, `<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>4a2b6f0c-example</RequestId></ErrorResponse>`, code, html.EscapeString(msg))
		return
	}
	if p == protoJSON {
		rw.Header().Set("Content-Type", "application/x-amz-json-1.1")
		rw.WriteHeader(status)
		_ = json.NewEncoder(rw).Encode(map[string]string{"__type": code, "message": msg})
		return
	}
	rw.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	rw.WriteHeader(status)
	fmt.Fprintf(rw, `<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>ea966190-f9aa-478e-9ede-example</RequestID></Response>`, code, html.EscapeString(msg))
}

// --- EC2 query protocol ---

// FormList reads an EC2 query list: prefix.1, prefix.2, ...
func FormList(form url.Values, prefix string) []string {
	var out []string
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i)); i++ {
		out = append(out, form.Get(prefix+"."+strconv.Itoa(i)))
	}
	return out
}

// FormFilters reads an EC2 request's Filter.N.Name and Filter.N.Value.M.
func FormFilters(form url.Values) []ec2types.Filter {
	var out []ec2types.Filter
	for i := 1; form.Has("Filter." + strconv.Itoa(i) + ".Name"); i++ {
		p := "Filter." + strconv.Itoa(i)
		out = append(out, ec2types.Filter{Name: aws.String(form.Get(p + ".Name")), Values: FormList(form, p+".Value")})
	}
	return out
}

func formTags(form url.Values, prefix string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i) + ".Key"); i++ {
		p := prefix + "." + strconv.Itoa(i)
		out = append(out, ec2types.Tag{Key: aws.String(form.Get(p + ".Key")), Value: aws.String(form.Get(p + ".Value"))})
	}
	return out
}

// FormTagSpecifications reads prefix.N.ResourceType and prefix.N.Tag.M.
func FormTagSpecifications(form url.Values, prefix string) []ec2types.TagSpecification {
	var out []ec2types.TagSpecification
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i) + ".ResourceType"); i++ {
		p := prefix + "." + strconv.Itoa(i)
		out = append(out, ec2types.TagSpecification{ResourceType: ec2types.ResourceType(form.Get(p + ".ResourceType")), Tags: formTags(form, p+".Tag")})
	}
	return out
}

// x renders <tag>content</tag>; text content is escaped by t.
func x(tag string, content ...string) string {
	return "<" + tag + ">" + strings.Join(content, "") + "</" + tag + ">"
}

func esc(s string) string { return html.EscapeString(s) }

func xtags(tags []ec2types.Tag) string {
	var items []string
	for _, tg := range tags {
		items = append(items, x("item", x("key", esc(aws.ToString(tg.Key))), x("value", esc(aws.ToString(tg.Value)))))
	}
	return x("tagSet", items...)
}

func response(op string, content ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<` + op + `Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` +
		x("requestId", "59dbff89-35bd-4eac-99ed-be587EXAMPLE") + strings.Join(content, "") + `</` + op + `Response>`
}

func (w *Server) ec2Op(ctx context.Context, op string, form url.Values) (string, error) {
	f := w.fake
	switch op {
	case "DescribeSubnets":
		out, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: FormList(form, "SubnetId"), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var items []string
		for _, s := range out.Subnets {
			items = append(items, x("item", x("subnetId", aws.ToString(s.SubnetId)), x("state", "available"), x("vpcId", aws.ToString(s.VpcId)),
				x("cidrBlock", "10.0.1.0/24"), x("availableIpAddressCount", strconv.Itoa(int(aws.ToInt32(s.AvailableIpAddressCount)))),
				x("availabilityZone", aws.ToString(s.AvailabilityZone)), x("availabilityZoneId", aws.ToString(s.AvailabilityZoneId)), xtags(s.Tags)))
		}
		return response(op, x("subnetSet", items...)), nil
	case "DescribeSecurityGroups":
		out, err := f.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: FormList(form, "GroupId"), GroupNames: FormList(form, "GroupName"), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var items []string
		for _, g := range out.SecurityGroups {
			items = append(items, x("item", x("ownerId", "123456789012"), x("groupId", aws.ToString(g.GroupId)), x("groupName", esc(aws.ToString(g.GroupName))),
				x("groupDescription", "nodes"), x("vpcId", aws.ToString(g.VpcId)), xtags(g.Tags)))
		}
		return response(op, x("securityGroupInfo", items...)), nil
	case "DescribeImages":
		out, err := f.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: FormList(form, "ImageId"), Owners: FormList(form, "Owner"), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var items []string
		for _, im := range out.Images {
			items = append(items, x("item", x("imageId", aws.ToString(im.ImageId)), x("imageLocation", "123456789012/"+esc(aws.ToString(im.Name))),
				x("imageState", string(im.State)), x("imageOwnerId", aws.ToString(im.OwnerId)), x("creationDate", aws.ToString(im.CreationDate)),
				x("isPublic", "false"), x("architecture", string(im.Architecture)), x("imageType", "machine"), x("name", esc(aws.ToString(im.Name))),
				x("rootDeviceType", "ebs"), x("virtualizationType", "hvm"), xtags(im.Tags)))
		}
		return response(op, x("imagesSet", items...)), nil
	case "DescribeInstanceTypes":
		var names []ec2types.InstanceType
		for _, n := range FormList(form, "InstanceType") {
			names = append(names, ec2types.InstanceType(n))
		}
		out, err := f.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: names})
		if err != nil {
			return "", err
		}
		var items []string
		for _, it := range out.InstanceTypes {
			items = append(items, x("item", x("instanceType", string(it.InstanceType)), x("currentGeneration", "true")))
		}
		return response(op, x("instanceTypeSet", items...)), nil
	case "DescribeInstanceTypeOfferings":
		out, err := f.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationType(form.Get("LocationType")), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var items []string
		for _, o := range out.InstanceTypeOfferings {
			items = append(items, x("item", x("instanceType", string(o.InstanceType)), x("locationType", string(o.LocationType)), x("location", aws.ToString(o.Location))))
		}
		return response(op, x("instanceTypeOfferingSet", items...)), nil
	case "DescribeSpotPriceHistory":
		out, err := f.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: FormList(form, "ProductDescription")})
		if err != nil {
			return "", err
		}
		var items []string
		for _, sp := range out.SpotPriceHistory {
			items = append(items, x("item", x("instanceType", string(sp.InstanceType)), x("productDescription", "Linux/UNIX"), x("spotPrice", aws.ToString(sp.SpotPrice)),
				x("timestamp", aws.ToTime(sp.Timestamp).UTC().Format(time.RFC3339)), x("availabilityZone", aws.ToString(sp.AvailabilityZone))))
		}
		return response(op, x("spotPriceHistorySet", items...)), nil
	case "DescribeLaunchTemplates":
		out, err := f.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: FormList(form, "LaunchTemplateName"), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var items []string
		for _, lt := range out.LaunchTemplates {
			items = append(items, x("item", xtemplate(lt)))
		}
		return response(op, x("launchTemplates", items...)), nil
	case "CreateLaunchTemplate":
		out, err := f.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
			LaunchTemplateName: aws.String(form.Get("LaunchTemplateName")),
			LaunchTemplateData: &ec2types.RequestLaunchTemplateData{
				ImageId: aws.String(form.Get("LaunchTemplateData.ImageId")), SecurityGroupIds: FormList(form, "LaunchTemplateData.SecurityGroupId"),
				UserData: aws.String(form.Get("LaunchTemplateData.UserData")),
			},
			TagSpecifications: FormTagSpecifications(form, "TagSpecification"),
		})
		if err != nil {
			return "", err
		}
		return response(op, x("launchTemplate", xtemplate(*out.LaunchTemplate))), nil
	case "DeleteLaunchTemplate":
		out, err := f.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String(form.Get("LaunchTemplateName"))})
		if err != nil {
			return "", err
		}
		return response(op, x("launchTemplate", xtemplate(*out.LaunchTemplate))), nil
	case "CreateFleet":
		return w.createFleet(ctx, form)
	case "DescribeInstances":
		out, err := f.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: FormList(form, "InstanceId"), Filters: FormFilters(form)})
		if err != nil {
			return "", err
		}
		var reservations []string
		for _, res := range out.Reservations {
			var insts []string
			for _, in := range res.Instances {
				insts = append(insts, xinstance(in))
			}
			reservations = append(reservations, x("item", x("reservationId", "r-1234567890abcdef0"), x("ownerId", "123456789012"), x("groupSet"), x("instancesSet", insts...)))
		}
		return response(op, x("reservationSet", reservations...)), nil
	case "TerminateInstances":
		out, err := f.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: FormList(form, "InstanceId")})
		if err != nil {
			return "", err
		}
		var items []string
		for _, c := range out.TerminatingInstances {
			items = append(items, x("item", x("instanceId", aws.ToString(c.InstanceId)), x("currentState", xstate(c.CurrentState)), x("previousState", xstate(c.PreviousState))))
		}
		return response(op, x("instancesSet", items...)), nil
	case "CreateTags":
		if _, err := f.CreateTags(ctx, &ec2.CreateTagsInput{Resources: FormList(form, "ResourceId"), Tags: formTags(form, "Tag")}); err != nil {
			return "", err
		}
		return response(op, x("return", "true")), nil
	}
	return "", &smithy.GenericAPIError{Code: "InvalidAction", Message: "The action " + op + " is not valid for this web service."}
}

func (w *Server) createFleet(ctx context.Context, form url.Values) (string, error) {
	in := &ec2.CreateFleetInput{
		ClientToken: aws.String(form.Get("ClientToken")),
		Type:        ec2types.FleetType(form.Get("Type")),
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(form.Get("TargetCapacitySpecification.DefaultTargetCapacityType")),
		},
		TagSpecifications: FormTagSpecifications(form, "TagSpecification"),
	}
	for i := 1; form.Has("LaunchTemplateConfigs." + strconv.Itoa(i) + ".LaunchTemplateSpecification.LaunchTemplateName"); i++ {
		p := "LaunchTemplateConfigs." + strconv.Itoa(i)
		cfg := ec2types.FleetLaunchTemplateConfigRequest{LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{
			LaunchTemplateName: aws.String(form.Get(p + ".LaunchTemplateSpecification.LaunchTemplateName")), Version: aws.String(form.Get(p + ".LaunchTemplateSpecification.Version")),
		}}
		for j := 1; form.Has(p + ".Overrides." + strconv.Itoa(j) + ".InstanceType"); j++ {
			q := p + ".Overrides." + strconv.Itoa(j)
			cfg.Overrides = append(cfg.Overrides, ec2types.FleetLaunchTemplateOverridesRequest{
				InstanceType: ec2types.InstanceType(form.Get(q + ".InstanceType")), SubnetId: aws.String(form.Get(q + ".SubnetId")), AvailabilityZone: aws.String(form.Get(q + ".AvailabilityZone")),
			})
		}
		in.LaunchTemplateConfigs = append(in.LaunchTemplateConfigs, cfg)
	}
	out, err := w.fake.CreateFleet(ctx, in)
	if err != nil {
		return "", err
	}
	xlto := func(lto *ec2types.LaunchTemplateAndOverridesResponse) string {
		return x("launchTemplateAndOverrides",
			x("launchTemplateSpecification", x("launchTemplateName", esc(aws.ToString(lto.LaunchTemplateSpecification.LaunchTemplateName))), x("version", esc(aws.ToString(lto.LaunchTemplateSpecification.Version)))),
			x("overrides", x("instanceType", string(lto.Overrides.InstanceType)), x("subnetId", aws.ToString(lto.Overrides.SubnetId)), x("availabilityZone", aws.ToString(lto.Overrides.AvailabilityZone))))
	}
	var errs, insts []string
	for _, e := range out.Errors {
		errs = append(errs, x("item", xlto(e.LaunchTemplateAndOverrides), x("lifecycle", string(e.Lifecycle)), x("errorCode", aws.ToString(e.ErrorCode)), x("errorMessage", esc(aws.ToString(e.ErrorMessage)))))
	}
	for _, in := range out.Instances {
		var ids []string
		for _, id := range in.InstanceIds {
			ids = append(ids, x("item", id))
		}
		insts = append(insts, x("item", xlto(in.LaunchTemplateAndOverrides), x("lifecycle", string(in.Lifecycle)), x("instanceIds", ids...), x("instanceType", string(in.InstanceType)), x("platform", "linux")))
	}
	return response("CreateFleet", x("fleetId", aws.ToString(out.FleetId)), x("errorSet", errs...), x("fleetInstanceSet", insts...)), nil
}

func xtemplate(lt ec2types.LaunchTemplate) string {
	return x("launchTemplateId", aws.ToString(lt.LaunchTemplateId)) + x("launchTemplateName", esc(aws.ToString(lt.LaunchTemplateName))) +
		x("createTime", aws.ToTime(lt.CreateTime).UTC().Format(time.RFC3339)) + x("createdBy", "arn:aws:iam::123456789012:role/tenon") +
		x("defaultVersionNumber", "1") + x("latestVersionNumber", "1") + xtags(lt.Tags)
}

func xstate(s *ec2types.InstanceState) string {
	return x("code", strconv.Itoa(int(aws.ToInt32(s.Code)))) + x("name", string(s.Name))
}

func xinstance(in ec2types.Instance) string {
	var groups []string
	for _, g := range in.SecurityGroups {
		groups = append(groups, x("item", x("groupId", aws.ToString(g.GroupId)), x("groupName", "eks-node")))
	}
	lifecycle := ""
	if in.InstanceLifecycle != "" {
		lifecycle = x("instanceLifecycle", string(in.InstanceLifecycle))
	}
	return x("item", x("instanceId", aws.ToString(in.InstanceId)), x("imageId", aws.ToString(in.ImageId)), x("instanceState", xstate(in.State)),
		x("privateDnsName", aws.ToString(in.PrivateDnsName)), x("instanceType", string(in.InstanceType)),
		x("launchTime", aws.ToTime(in.LaunchTime).UTC().Format(time.RFC3339)), x("placement", x("availabilityZone", aws.ToString(in.Placement.AvailabilityZone)), x("tenancy", "default")),
		x("subnetId", aws.ToString(in.SubnetId)), x("vpcId", "vpc-1"), x("groupSet", groups...), lifecycle, xtags(in.Tags))
}

// --- JSON protocols (SSM, Pricing: 1.1; SQS: 1.0) ---

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func (w *Server) jsonOp(ctx context.Context, req Request) (string, error) {
	f := w.fake
	var v any
	switch req.Op {
	case "GetParameter":
		out, err := f.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(str(req.JSON, "Name"))})
		if err != nil {
			return "", err
		}
		v = map[string]any{"Parameter": map[string]any{
			"Name": aws.ToString(out.Parameter.Name), "Type": "String", "Value": aws.ToString(out.Parameter.Value), "Version": 1, "DataType": "aws:ec2:image",
			"ARN": "arn:aws:ssm:us-east-1::parameter" + aws.ToString(out.Parameter.Name), "LastModifiedDate": 1.7e9,
		}}
	case "GetProducts":
		in := &pricing.GetProductsInput{ServiceCode: aws.String(str(req.JSON, "ServiceCode"))}
		filters, _ := req.JSON["Filters"].([]any)
		for _, raw := range filters {
			m, _ := raw.(map[string]any)
			in.Filters = append(in.Filters, pricingFilter(str(m, "Field"), str(m, "Value")))
		}
		out, err := f.GetProducts(ctx, in)
		if err != nil {
			return "", err
		}
		v = map[string]any{"FormatVersion": "aws_v1", "PriceList": out.PriceList}
	case "GetQueueUrl":
		out, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(str(req.JSON, "QueueName"))})
		if err != nil {
			return "", err
		}
		v = map[string]any{"QueueUrl": aws.ToString(out.QueueUrl)}
	case "ReceiveMessage":
		n, _ := req.JSON["MaxNumberOfMessages"].(float64)
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(str(req.JSON, "QueueUrl")), MaxNumberOfMessages: int32(n)})
		if err != nil {
			return "", err
		}
		var msgs []map[string]any
		for _, m := range out.Messages {
			sum := md5.Sum([]byte(aws.ToString(m.Body))) //nolint:gosec // SQS's checksum
			msgs = append(msgs, map[string]any{"MessageId": aws.ToString(m.MessageId), "ReceiptHandle": aws.ToString(m.ReceiptHandle),
				"MD5OfBody": hex.EncodeToString(sum[:]), "Body": aws.ToString(m.Body)})
		}
		v = map[string]any{"Messages": msgs}
	case "DeleteMessage":
		if _, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(str(req.JSON, "QueueUrl")), ReceiptHandle: aws.String(str(req.JSON, "ReceiptHandle"))}); err != nil {
			return "", err
		}
		v = map[string]any{}
	default:
		return "", &smithy.GenericAPIError{Code: "UnknownOperationException", Message: req.Op}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func pricingFilter(field, value string) pricingtypes.Filter {
	return pricingtypes.Filter{Field: aws.String(field), Value: aws.String(value), Type: pricingtypes.FilterTypeTermMatch}
}
