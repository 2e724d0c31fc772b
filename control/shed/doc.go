// Package shed declares which optional features a service stops doing in
// each load state, and answers, per request and without allocating, whether
// a feature is shed now.
//
// Feature shedding is a predesigned product state, not the deletion of
// arbitrary calls during an incident. In the Northstar case study the team
// disables recommendations, rich receipt rendering, synchronous analytics and
// an optional fraud enrichment whose approved fallback is conservative; it
// never sheds inventory reservation, payment idempotency, durable order
// commit or the mandatory risk checks. This package makes that distinction
// part of the types: only an [Optional] (which must declare its Fallback, what
// the response carries instead) can be put into a [Plan]; [Required] is a
// different type with no path into a plan's shed sets, and [Plan.Validate]
// also refuses an Optional that reuses a required name ([ErrRequired]).
//
// # Which method to call
//
//   - Declare a [Plan]: the correctness contract and,
//     for each [loadstate.State], the optional features shed in it.
//     Shedding must be cumulative: Normal ⊆ Pressured ⊆ Recovering ⊆
//     Protected ([ErrNotCumulative]).
//   - [Plan.Compile] validates it and returns a [Table].
//   - At start-up, look each feature up once with [Table.Feature].
//   - Per request, ask [Table.Shed] with the current load state, or take the
//     whole [Set] with [Table.Set] and test it with [Set.Has]; neither
//     allocates.
//
// The zero Plan (and the zero [Table]) sheds nothing in any state. The
// Northstar checkout's plan lives with its scenario (package scenario,
// NorthstarShedPlan).
//
// # A short program
//
//	tbl, err := shed.Plan{
//		Required: []shed.Required{{Name: "order-commit", Why: "the order must be durable"}},
//		States: map[loadstate.State][]shed.Optional{
//			loadstate.Protected: {{Name: "recommendations", Fallback: "no recommendations block"}},
//		},
//	}.Compile()
//	if err != nil {
//		return err
//	}
//	recs, _ := tbl.Feature("recommendations")
//	// per request, with the state from the load-state machine:
//	if !tbl.Shed(state, recs) {
//		resp.Recommendations = recommend(ctx, cart)
//	}
//
// A [Table] is immutable and safe for concurrent use.
package shed
