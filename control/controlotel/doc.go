// Package controlotel traces goodput's overload controls with
// OpenTelemetry. It implements [controlhttp.ServerObserver] and
// [controlhttp.ClientObserver], so OpenTelemetry stays out of the control
// packages: a service that does not trace does not link it.
//
// Make one [Observer] with [New] and set it as [controlhttp.ServerConfig]'s
// and every [controlhttp.ClientConfig]'s Observer.
//
// # Spans
//
// Server: when a request arrives whose context already holds a recording
// span (e.g. one started by otelhttp around the [controlhttp.Handler]), the
// Observer adds its attributes to that span and leaves ending it to its
// owner. Otherwise it starts a server span named "goodput.serve" at arrival
// and ends it when the request has been answered.
//
// Client: each attempt of a [controlhttp.Transport], made or not, is a
// client span named "goodput.attempt", a child of the span in the request's
// context (the served request's span when the call is made for it), with
// the attempt's start and end instants. It is recorded after the attempt,
// so it is not in the context of the outgoing request: an otelhttp
// transport under the Transport starts its own span beside it.
//
// Spans of failed results have status Error.
//
// # Attributes
//
// Both kinds of span:
//
//	goodput.identity            logical identity (Idempotency-Key); absent without one
//	goodput.attempt             attempt number of the logical request (int)
//	goodput.deadline            absolute deadline, RFC 3339 UTC with ms; absent without one
//
// Server spans:
//
//	goodput.admission.class     continuation, lookup, standard or sheddable
//	goodput.admission.result    admitted or refused
//	goodput.refusal.reason      why refused (limit, reserved, deadline, class-closed,
//	                            expired, malformed-deadline, malformed-identity)
//	goodput.load.state          load state the request was decided under (Normal, Pressured, ...)
//	goodput.policy.generation   its policy generation (int)
//	goodput.shed.features       optional features shed for the request (string slice)
//	goodput.shed.asked          features its handler asked about (string slice)
//	goodput.result              goodput, late, failed, client-error, hijacked, refused, expired or rejected
//	http.response.status_code   the answer's status (int)
//
// Client spans:
//
//	goodput.dependency          ClientConfig.Dependency; absent when empty
//	goodput.call.attempt        attempt number within the call (int)
//	goodput.call.timeout_ms     the call's timeout in ms (int); absent without one
//	goodput.call.refused        why the call was not made (breaker-open, ...)
//	goodput.retry.token         granted, or suppressed:reason; absent when no retry was considered
//	goodput.breaker.state       the breaker state after the attempt (Closed, Open, HalfOpen); Closed without a breaker
//	goodput.result              success, failed or refused (not made)
//	http.response.status_code   the answer's status (int)
package controlotel
