// Package trials runs one scenario over several seeds and summarises the spread: for every
// figure of every arm, its median and range across the trials, and for every arm after the
// first, its difference from the first arm trial by trial. One replay is one draw of the
// incident; a sweep says how much of a figure is the policy and how much is the draw. Both
// arms of a trial see the same offered load and random draws (common random numbers), so
// each trial's difference compares the policies on the same incident.
//
// [Run] runs a sweep with a function that replays one seed (the CLI passes the model's) and
// returns its [Summary], written as trials.json by [Summary.WriteJSON]. Only each trial's
// figures are kept, so a sweep's memory does not grow with the length of its trials.
//
// # Sharding
//
// A sweep splits into shards for a batch engine (a Kubernetes Indexed Job, a CI matrix):
// shard i of n runs every n-th trial from the i-th ([Shard.Seeds]). [Merge] joins the
// shards' summaries, read with [ReadFile], into the summary of the whole sweep, byte for
// byte what one unsharded run writes:
//
//	goodput replay s.scenario.yaml --trials 40 --shard 0/4 --out shard-0   # … to 3/4
//	goodput merge shard-0 shard-1 shard-2 shard-3 --out sweep
//
// A summary is identified by its scenario's [Digest], first seed and number of trials,
// and records the model version that replayed it; Merge refuses shards that differ in
// any of them, repeat a seed, or leave one out.
//
// A sweep over several inputs' values (goodput replay --vary, once per input) is a
// [Grid]: a summary per combination in a directory of its own, listed by the grid's
// manifest (vary.json), which goodput merge reads to merge a sharded grid combination by
// combination.
package trials
