package controlotel

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/identity"
)

// TracerName is the instrumentation name of the Observer's tracer.
const TracerName = "github.com/goodput-lab/goodput/control/controlotel"

// Span names.
const (
	ServeSpan   = "goodput.serve"
	AttemptSpan = "goodput.attempt"
)

// Attribute keys, described in the package documentation.
const (
	KeyIdentity         = attribute.Key("goodput.identity")
	KeyAttempt          = attribute.Key("goodput.attempt")
	KeyDeadline         = attribute.Key("goodput.deadline")
	KeyAdmissionClass   = attribute.Key("goodput.admission.class")
	KeyAdmissionResult  = attribute.Key("goodput.admission.result")
	KeyRefusalReason    = attribute.Key("goodput.refusal.reason")
	KeyLoadState        = attribute.Key("goodput.load.state")
	KeyPolicyGeneration = attribute.Key("goodput.policy.generation")
	KeyShedFeatures     = attribute.Key("goodput.shed.features")
	KeyShedAsked        = attribute.Key("goodput.shed.asked")
	KeyResult           = attribute.Key("goodput.result")
	KeyDependency       = attribute.Key("goodput.dependency")
	KeyCallAttempt      = attribute.Key("goodput.call.attempt")
	KeyCallTimeout      = attribute.Key("goodput.call.timeout_ms")
	KeyCallRefused      = attribute.Key("goodput.call.refused")
	KeyRetryToken       = attribute.Key("goodput.retry.token")
	KeyBreakerState     = attribute.Key("goodput.breaker.state")
	KeyStatusCode       = attribute.Key("http.response.status_code")
)

// DeadlineLayout formats goodput.deadline: RFC 3339 with milliseconds.
const DeadlineLayout = "2006-01-02T15:04:05.000Z07:00"

// Observer traces a [controlhttp.Handler] and its [controlhttp.Transport]s.
// It is safe for concurrent use.
type Observer struct {
	tracer trace.Tracer
}

// New returns an Observer whose spans go to tp's tracer [TracerName].
func New(tp trace.TracerProvider) *Observer {
	return &Observer{tracer: tp.Tracer(TracerName)}
}

var (
	_ controlhttp.ServerObserver = (*Observer)(nil)
	_ controlhttp.ClientObserver = (*Observer)(nil)
)

// ownedKey marks in a context the span the Observer started and must end.
type ownedKey struct{}

// Begin implements [controlhttp.ServerObserver]: it starts a server span
// unless r's context already holds a recording one.
func (o *Observer) Begin(r *http.Request) context.Context {
	ctx := r.Context()
	if trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	ctx, span := o.tracer.Start(ctx, ServeSpan, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
	return context.WithValue(ctx, ownedKey{}, span)
}

// Served implements [controlhttp.ServerObserver]: it sets the request's
// attributes on the span in ctx and ends it if Begin started it.
func (o *Observer) Served(ctx context.Context, s controlhttp.Served) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 14)
	attrs = appendIdentity(attrs, s.Identity, s.Deadline)
	admitted := "admitted"
	if !s.Admitted {
		admitted = "refused"
	}
	attrs = append(attrs,
		KeyAdmissionClass.String(s.Class.String()),
		KeyAdmissionResult.String(admitted),
		KeyLoadState.String(s.State.String()),
		KeyPolicyGeneration.Int64(int64(s.Generation)),
		KeyResult.String(s.Result),
	)
	if s.Reason != "" {
		attrs = append(attrs, KeyRefusalReason.String(s.Reason))
	}
	if s.Shed != 0 {
		attrs = append(attrs, KeyShedFeatures.StringSlice(s.Features.Names(s.Shed)))
	}
	if s.Asked != 0 {
		attrs = append(attrs, KeyShedAsked.StringSlice(s.Features.Names(s.Asked)))
	}
	if s.Status != 0 {
		attrs = append(attrs, KeyStatusCode.Int(s.Status))
	}
	span.SetAttributes(attrs...)
	if s.Result == controlhttp.ResultFailed {
		span.SetStatus(codes.Error, s.Result)
	}
	if owned, _ := ctx.Value(ownedKey{}).(trace.Span); owned == span {
		span.End(trace.WithTimestamp(s.Answered))
	}
}

// Attempted implements [controlhttp.ClientObserver]: it records the
// attempt as a client span, a child of the span in ctx.
func (o *Observer) Attempted(ctx context.Context, a controlhttp.Attempt) {
	attrs := make([]attribute.KeyValue, 0, 12)
	var dl time.Time
	if a.Timeout > 0 {
		dl = a.Start.Add(a.Timeout)
		attrs = append(attrs, KeyCallTimeout.Int64(a.Timeout.Milliseconds()))
	}
	attrs = appendIdentity(attrs, a.Identity, dl)
	attrs = append(attrs, KeyCallAttempt.Int(a.N), KeyBreakerState.String(a.Breaker.String()))
	if a.Dependency != "" {
		attrs = append(attrs, KeyDependency.String(a.Dependency))
	}
	result := "success"
	switch {
	case !a.Made:
		result = "refused"
		attrs = append(attrs, KeyCallRefused.String(a.Refused))
	case a.Failed:
		result = "failed"
	}
	attrs = append(attrs, KeyResult.String(result))
	if a.Retry != "" {
		attrs = append(attrs, KeyRetryToken.String(a.Retry))
	}
	if a.Status != 0 {
		attrs = append(attrs, KeyStatusCode.Int(a.Status))
	}
	_, span := o.tracer.Start(ctx, AttemptSpan, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(a.Start), trace.WithAttributes(attrs...))
	if a.Failed || !a.Made {
		desc := result
		if a.Err != nil {
			desc = a.Err.Error()
		}
		span.SetStatus(codes.Error, desc)
	}
	span.End(trace.WithTimestamp(a.End))
}

// appendIdentity appends the attributes both kinds of span carry.
func appendIdentity(attrs []attribute.KeyValue, id identity.Request, dl time.Time) []attribute.KeyValue {
	if id.Key != "" {
		attrs = append(attrs, KeyIdentity.String(string(id.Key)))
	}
	if id.Attempt > 0 {
		attrs = append(attrs, KeyAttempt.Int(id.Attempt))
	}
	if !dl.IsZero() {
		attrs = append(attrs, KeyDeadline.String(dl.UTC().Format(DeadlineLayout)))
	}
	return attrs
}
