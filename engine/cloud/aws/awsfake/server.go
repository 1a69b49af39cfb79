package awsfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
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
