package awsfake

import (
	"context"
	"crypto/md5" //nolint:gosec // SQS's body checksum is MD5
	"encoding/hex"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go"
)

// The JSON protocols: SSM's and Pricing's JSON 1.1, SQS's JSON 1.0. The
// operation is the X-Amz-Target header's, the input the request's body.

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// jsonOp serves one SSM, Pricing or SQS request from the fake.
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
