package awsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// GetParameter returns an SSM parameter, or ParameterNotFound.
func (f *Fake) GetParameter(ctx context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	if err := f.begin(ctx, "GetParameter", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := aws.ToString(in.Name)
	v, ok := f.Parameters[name]
	if !ok {
		return nil, apiError("ParameterNotFound", "")
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(v), Type: ssmtypes.ParameterTypeString}}, nil
}

// GetProducts returns one Price List product (JSON, the format AWS uses) per
// entry of OnDemandPrices, for the region named by the regionCode filter.
// The request's other filters are recorded, not applied.
func (f *Fake) GetProducts(ctx context.Context, in *pricing.GetProductsInput, _ ...func(*pricing.Options)) (*pricing.GetProductsOutput, error) {
	if err := f.begin(ctx, "GetProducts", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	region := ""
	for _, flt := range in.Filters {
		if aws.ToString(flt.Field) == "regionCode" {
			region = aws.ToString(flt.Value)
		}
	}
	names := make([]string, 0, len(f.OnDemandPrices))
	for name := range f.OnDemandPrices {
		names = append(names, name)
	}
	slices.Sort(names)
	out := &pricing.GetProductsOutput{FormatVersion: aws.String("aws_v1")}
	for _, name := range names {
		doc, err := PriceListProduct(name, region, f.OnDemandPrices[name])
		if err != nil {
			return nil, err
		}
		out.PriceList = append(out.PriceList, doc)
	}
	return out, nil
}

// PriceListProduct renders one on-demand Linux product as the Price List API
// returns it (the shape of the GetProducts example in the API reference).
func PriceListProduct(instanceType, region string, usdPerHour float64) (string, error) {
	sku := fmt.Sprintf("SKU%X", len(instanceType)*7919+int(usdPerHour*1e6))
	doc := map[string]any{
		"product": map[string]any{
			"productFamily": "Compute Instance",
			"sku":           sku,
			"attributes": map[string]string{
				"instanceType": instanceType, "regionCode": region, "operatingSystem": "Linux",
				"tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
			},
		},
		"serviceCode": "AmazonEC2",
		"terms": map[string]any{
			"OnDemand": map[string]any{
				sku + ".JRTCKXETXF": map[string]any{
					"sku": sku, "offerTermCode": "JRTCKXETXF",
					"priceDimensions": map[string]any{
						sku + ".JRTCKXETXF.6YS6EN2CT7": map[string]any{
							"unit": "Hrs", "pricePerUnit": map[string]string{"USD": formatPrice(usdPerHour)},
						},
					},
				},
			},
		},
	}
	b, err := json.Marshal(doc)
	return string(b), err
}

// message is one queued SQS message.
type message struct {
	id, body, handle string
	inFlight         bool
}

// Enqueue adds a message body to the queue (as EventBridge would).
func (f *Fake) Enqueue(body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	f.queue = append(f.queue, &message{id: fmt.Sprintf("msg-%d", f.seq), body: body})
}

// QueueLength counts the messages not yet deleted, in flight or not.
func (f *Fake) QueueLength() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// Redeliver makes every in-flight message visible again, as when the
// visibility timeout of an undeleted message ends.
func (f *Fake) Redeliver() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.queue {
		m.inFlight = false
	}
}

// GetQueueUrl returns a URL for any queue name.
func (f *Fake) GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, _ ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) { //nolint:revive // the SDK's name
	if err := f.begin(ctx, "GetQueueUrl", in); err != nil {
		return nil, err
	}
	return &sqs.GetQueueUrlOutput{QueueUrl: aws.String("https://sqs.us-east-1.amazonaws.com/123456789012/" + aws.ToString(in.QueueName))}, nil
}

// ReceiveMessage returns up to MaxNumberOfMessages (default 1) visible
// messages, each with a fresh receipt handle, and hides them until deleted
// or redelivered. It does not wait when the queue is empty.
func (f *Fake) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	if err := f.begin(ctx, "ReceiveMessage", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	limit := int(max(in.MaxNumberOfMessages, 1))
	out := &sqs.ReceiveMessageOutput{}
	for _, m := range f.queue {
		if len(out.Messages) == limit {
			break
		}
		if m.inFlight {
			continue
		}
		f.seq++
		m.inFlight, m.handle = true, fmt.Sprintf("%s#%d", m.id, f.seq)
		out.Messages = append(out.Messages, sqstypes.Message{MessageId: aws.String(m.id), Body: aws.String(m.body), ReceiptHandle: aws.String(m.handle)})
	}
	return out, nil
}

// DeleteMessage removes the message with the receipt handle; a stale or
// unknown handle fails with ReceiptHandleIsInvalid.
func (f *Fake) DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	if err := f.begin(ctx, "DeleteMessage", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, m := range f.queue {
		if m.handle != "" && m.handle == aws.ToString(in.ReceiptHandle) {
			f.queue = slices.Delete(f.queue, i, i+1)
			return &sqs.DeleteMessageOutput{}, nil
		}
	}
	return nil, apiError("ReceiptHandleIsInvalid", "The input receipt handle is invalid.")
}
