// Package loadgen is the live lab's open-loop load generator: it sends a scenario's
// offered load (rate schedule with its ramps and bursts, the classes' own schedules,
// arrivals, class shares, keys, deadlines) to a real service over HTTP and counts what
// became of every logical request; closed-loop users (load.users) send beside it, each
// thinking between an answer and its next request.
//
// A [Plan] is the schedule: the intended send time, class, key and absolute deadline of
// every logical request, drawn lazily from seeded streams by the replay's own rule, so a
// live run offers the load shape a replay offers (see [Plan] for how the two relate). It
// reads no clock: the same seed gives the same requests. [ScenarioPlan] makes one from a
// scenario, [ConstantPlan] one from a rate and a length.
//
// An [Attacker] runs a plan in real time ([New], then [Attacker.Run]). It is open loop:
// each logical request is sent at its intended time whatever the service answers, and its
// latency is measured from that time, so a stalled service cannot hide its stall
// (coordinated omission). At most MaxInFlight requests are in flight; a request whose
// time comes while every worker is busy is sent late when one frees up (the lateness is
// in its latency), or counted Unsent if its deadline passes first: never skipped
// silently. How late the generator itself sent is in [Result.Lateness].
//
// Each logical request carries Goodput-Deadline (and Goodput-Timeout), Idempotency-Key
// and Goodput-Attempt, written by control/deadline and control/identity. The generator
// is the scenario's entry (edge): it retries as the class's entry says (timeout, retries,
// triggers, backoff), every attempt with the same key and deadline and the next attempt
// number. Its [Result] counts per class offered, sent, unsent, goodput (a 2xx before the
// deadline), late (a 2xx after it), rejected (a final 429 or 503, by status and
// Goodput-Reject-Reason), failed (by cause) and attempts, with latency percentiles from
// merged HdrHistograms and a series of one row per second. Memory is O(in flight), not
// O(requests). By default each worker keeps one keep-alive HTTP/1.1 connection and
// writes and reads it itself, which costs less CPU per request than net/http's client
// ([Options.Client] selects that instead); [Curve] is the overload curve of a series of
// attacks at increasing rates, as `goodput attack --rates` writes it.
package loadgen
