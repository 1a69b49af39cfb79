package awsfake

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// iamVersion is the API version IAM's query requests carry; the server
// tells IAM requests from EC2's by it.
const iamVersion = "2010-05-08"

// FormIAMTags reads an IAM query request's prefix.member.N.Key and .Value.
func FormIAMTags(form url.Values, prefix string) []iamtypes.Tag {
	var out []iamtypes.Tag
	for i := 1; form.Has(prefix + ".member." + strconv.Itoa(i) + ".Key"); i++ {
		p := prefix + ".member." + strconv.Itoa(i)
		out = append(out, iamtypes.Tag{Key: aws.String(form.Get(p + ".Key")), Value: aws.String(form.Get(p + ".Value"))})
	}
	return out
}

// iamResponse renders an IAM query response (the shape of the IAM API
// reference's examples): <OpResponse><OpResult>...</OpResult><ResponseMetadata>.
func iamResponse(op string, result ...string) string {
	body := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<` + op + `Response xmlns="https://iam.amazonaws.com/doc/2010-05-08/">`
	if len(result) > 0 {
		body += x(op+"Result", result...)
	}
	return body + x("ResponseMetadata", x("RequestId", "7a62c49f-347e-4fc4-9331-6e8eEXAMPLE")) + `</` + op + `Response>`
}

func xiamTime(t *time.Time) string { return aws.ToTime(t).UTC().Format(time.RFC3339) }

func xinstanceProfile(p *iamtypes.InstanceProfile) string {
	var roles, tags []string
	for _, r := range p.Roles {
		roles = append(roles, x("member", x("Path", esc(aws.ToString(r.Path))), x("Arn", esc(aws.ToString(r.Arn))),
			x("RoleName", esc(aws.ToString(r.RoleName))), x("CreateDate", xiamTime(r.CreateDate)), x("RoleId", esc(aws.ToString(r.RoleId)))))
	}
	for _, t := range p.Tags {
		tags = append(tags, x("member", x("Key", esc(aws.ToString(t.Key))), x("Value", esc(aws.ToString(t.Value)))))
	}
	return x("InstanceProfile",
		x("InstanceProfileId", esc(aws.ToString(p.InstanceProfileId))), x("Roles", roles...),
		x("InstanceProfileName", esc(aws.ToString(p.InstanceProfileName))), x("Path", esc(aws.ToString(p.Path))),
		x("Arn", esc(aws.ToString(p.Arn))), x("CreateDate", xiamTime(p.CreateDate)), x("Tags", tags...))
}

// iamOp serves one IAM query request from the fake.
func (w *Server) iamOp(ctx context.Context, op string, form url.Values) (string, error) {
	f := w.fake
	name := aws.String(form.Get("InstanceProfileName"))
	switch op {
	case "GetInstanceProfile":
		out, err := f.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: name})
		if err != nil {
			return "", err
		}
		return iamResponse(op, xinstanceProfile(out.InstanceProfile)), nil
	case "CreateInstanceProfile":
		in := &iam.CreateInstanceProfileInput{InstanceProfileName: name, Tags: FormIAMTags(form, "Tags")}
		if form.Has("Path") {
			in.Path = aws.String(form.Get("Path"))
		}
		out, err := f.CreateInstanceProfile(ctx, in)
		if err != nil {
			return "", err
		}
		return iamResponse(op, xinstanceProfile(out.InstanceProfile)), nil
	case "AddRoleToInstanceProfile":
		_, err := f.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String(form.Get("RoleName"))})
		return iamResponse(op), err
	case "RemoveRoleFromInstanceProfile":
		_, err := f.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String(form.Get("RoleName"))})
		return iamResponse(op), err
	case "DeleteInstanceProfile":
		_, err := f.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name})
		return iamResponse(op), err
	}
	return "", fmt.Errorf("the fake IAM server does not serve %s (%s)", op, strings.Join([]string{"GetInstanceProfile", "CreateInstanceProfile", "AddRoleToInstanceProfile", "RemoveRoleFromInstanceProfile", "DeleteInstanceProfile"}, ", "))
}
