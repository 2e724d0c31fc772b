// Package demo is the live lab's reference service: a checkout built on
// control/controlhttp as the README's "Controls in a Go service" wires it, run
// by `goodput demo`, with the stub dependencies it calls (`goodput demo
// dependency`), each behind a fault proxy in the lab.
//
// # Routes
//
// Each scenario class is served by the route its http: request maps to
// ([RouteOf]), and the route gives the admission class:
//
//	POST /checkout             new_checkout          standard      risk /score, payment /authorise, commit
//	POST /checkout/{id}/pay    payment_continuation  continuation  payment /capture, commit
//	POST /checkout/pay         payment_continuation  continuation  (the id from the body or Idempotency-Key)
//	GET  /orders/{id}          status_lookup         lookup        the order from the database
//	GET  /metrics              Prometheus text: controlhttp.Metrics, orders, refusals, database errors
//
// A request's identity is its Idempotency-Key (as the load generator sends it),
// else the body's {"id": …}; the continuation's path id comes first. A commit
// answers 201 with the order, 200 with the order committed before when the
// database refused a duplicate, and 503 (reason [ReasonDatabase]) when the
// database failed: the answer is written only after the commit has returned, so
// no acknowledged order is missing from the database. A failed dependency is 502,
// or 504 when it timed out (reason [ReasonDependency]); a commit abandoned because
// the caller left or its deadline passed, under an arm that cancels, is 504 (reason
// [ReasonAbandoned]).
//
// # Arms
//
// [FromScenario] builds a [Config] from an arm. An arm that declares no control
// is the baseline: fixed per-call timeouts, the dependencies' own (layered)
// retries, and work that goes on after the caller has left (its calls run under
// context.WithoutCancel with their own timeouts). An arm that declares controls
// runs behind controlhttp.Handler (deadline, identity, admission) and calls
// through controlhttp.NewTransport (its retry budget, a breaker per dependency).
//
// # Orders
//
// [Open] opens the database: a SQLite file (modernc.org/sqlite, pure Go, WAL) or
// PostgreSQL (a postgres:// URL, through pgx). The orders table's primary key is
// the logical identity, so the database refuses a duplicate commit; the refusal
// is a row of the refusals table, and [Store.Audit] counts both by queries.
// [Stub] counts payment authorisations by order and operation, so duplicate
// authorisations are counted too, whatever key each carried (GET /_stub/stats).
package demo
