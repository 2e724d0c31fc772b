package trials

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// File is the name of a sweep's summary in its output directory.
const File = "trials.json"

// Summary is the result of a sweep (trials.json): every trial's figures, and for every arm
// the spread of each figure across the trials and, trial by trial, its difference from the
// first arm. Identical runs give identical summaries, whichever order or shards they ran
// in: runs are kept in seed order and the spreads are computed from them.
type Summary struct {
	Scenario string `json:"scenario"`
	// Digest identifies the scenario's inputs (less its seed and trials), so that shards
	// of different scenarios are not merged.
	Digest string `json:"scenario_digest"`
	// ModelVersion is the version of the model that replayed the trials
	// ([packet.Packet.ModelVersion]; 0 in summaries written before it was recorded), so
	// that shards replayed by different models are not merged.
	ModelVersion int `json:"model_version,omitempty"`
	// Set lists the scenario's inputs changed for the sweep (goodput replay --set), as
	// PATH=VALUE; the digest is of the changed scenario.
	Set []string `json:"set,omitempty"`
	// FirstSeed and Trials define the sweep: seeds FirstSeed … FirstSeed+Trials-1.
	FirstSeed uint64 `json:"first_seed"`
	Trials    int    `json:"trials"`
	// Shard is set on the summary of one shard of a sweep, nil on a whole one.
	Shard *Shard `json:"shard,omitempty"`
	// Figures describe the keys of Runs[].Arms[].Figures, in table order.
	Figures []Figure `json:"figures"`
	// Runs are the trials run, in seed order.
	Runs []Trial `json:"runs"`
	// Spread is, for each arm, each figure's spread across the runs.
	Spread []ArmSpread `json:"spread"`
	// Deltas are, for each arm after the first, the spread of its difference from the first
	// arm in the same trial (common random numbers: the same offered load and draws).
	Deltas []Delta `json:"deltas"`

	source string // the file it was read from, for Merge's messages
}

// Trial is one trial: every arm of the scenario replayed with one seed.
type Trial struct {
	Seed uint64   `json:"seed"`
	Arms []ArmRun `json:"arms"`
}

// ArmRun is one arm's figures in one trial. A figure that could not be measured is null.
type ArmRun struct {
	Name string `json:"name"`
	// Set is the inputs the arm changes from the file's (its scenario's set:), as
	// PATH=VALUE ([packet.Arm.Set]); absent for an arm that changes none.
	Set              []string            `json:"set,omitempty"`
	Figures          map[string]*float64 `json:"figures"`
	Objectives       []ObjectiveRun      `json:"objectives"`
	InvariantsFailed []string            `json:"invariants_failed,omitempty"`
	// Alerts are what the scenario's alert rules did, in its order; absent without any.
	Alerts []AlertRun `json:"alerts,omitempty"`
}

// ObjectiveRun is one objective's result in one trial; Metric and Unit are the packet's
// ([packet.Objective]).
type ObjectiveRun struct {
	Name   string `json:"name"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	// Statistic says what Value is ([packet.Objective.Statistic]).
	Statistic string  `json:"statistic,omitempty"`
	Pass      bool    `json:"pass"`
	Value     float64 `json:"value"`
	NoData    bool    `json:"no_data,omitempty"`
	// Censored: Value is a lower bound ([packet.Objective.Censored]).
	Censored bool `json:"censored,omitempty"`
}

// Stats is the spread of one figure across trials. N counts the trials that measured it and
// Missing those that did not; the other fields are over the N values (all 0 when N is 0).
// Median is the middle value (the mean of the two middle ones for an even N); SD is the
// sample standard deviation (0 for one value).
type Stats struct {
	Key     string  `json:"key"`
	N       int     `json:"n"`
	Missing int     `json:"missing"`
	Min     float64 `json:"min"`
	Median  float64 `json:"median"`
	Max     float64 `json:"max"`
	Mean    float64 `json:"mean"`
	SD      float64 `json:"sd"`
}

// ArmSpread is one arm's figures across the trials.
type ArmSpread struct {
	Arm string `json:"arm"`
	// Set is the arm's set ([ArmRun.Set]), the same in every trial.
	Set        []string          `json:"set,omitempty"`
	Figures    []Stats           `json:"figures"`
	Objectives []ObjectiveSpread `json:"objectives"`
	// InvariantFailures counts the trials in which any invariant of the arm failed.
	InvariantFailures int `json:"invariant_failures"`
	// Alerts spread each alert rule's first firing across the trials; absent without any.
	Alerts []AlertSpread `json:"alerts,omitempty"`
}

// ObjectiveSpread counts the trials an objective passed in, and spreads its value over the
// trials that measured it (Value.Missing counts those that did not: no data, or a
// censored value). Censored counts the trials whose value is only a lower bound (a
// return to Normal that had not come by the end); Bound is the least of those bounds.
type ObjectiveSpread struct {
	Name   string `json:"name"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	// Statistic says what Value is ([packet.Objective.Statistic]).
	Statistic string  `json:"statistic,omitempty"`
	Passed    int     `json:"passed"`
	Of        int     `json:"of"`
	Value     Stats   `json:"value"`
	Censored  int     `json:"censored,omitempty"`
	Bound     float64 `json:"bound,omitempty"`
}

// Delta is the trial-by-trial difference Arm − Versus of each figure.
type Delta struct {
	Arm     string       `json:"arm"`
	Versus  string       `json:"versus"`
	Figures []DeltaStats `json:"figures"`
}

// DeltaStats is the spread of one figure's difference, with how many trials it was better or
// worse in (by the figure's Better; both 0 for a figure with no better direction) and in how
// many it was the same (for every figure),
// and the 95% confidence interval of the mean difference (Student's t with N−1 degrees of
// freedom: the trials as independent draws of the incident; both 0 when N < 2).
type DeltaStats struct {
	Stats
	Better   int     `json:"better"`
	Worse    int     `json:"worse"`
	Same     int     `json:"same"`
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
}

// Complete reports whether the summary holds every trial of its sweep.
func (s *Summary) Complete() bool { return len(s.Runs) == s.Trials }

// Arms returns the arms' names in order.
func (s *Summary) Arms() []string {
	names := make([]string, len(s.Spread))
	for i, a := range s.Spread {
		names[i] = a.Arm
	}
	return names
}

// newSummary builds a summary from its definition and runs: it sorts the runs by seed,
// checks them against the sweep and computes the spreads and deltas.
func newSummary(scenario, digest string, set []string, first uint64, trials int, shard *Shard, runs []Trial) (*Summary, error) {
	if shard != nil && shard.Whole() {
		shard = nil // 0/1 is the whole sweep
	}
	s := &Summary{Scenario: scenario, Digest: digest, Set: set, FirstSeed: first, Trials: trials, Shard: shard, Figures: Figures(), Runs: runs}
	slices.SortFunc(s.Runs, func(a, b Trial) int { return cmp.Compare(a.Seed, b.Seed) })
	if err := s.check(); err != nil {
		return nil, err
	}
	s.compute()
	return s, nil
}

// check validates the runs: seeds inside the sweep and in the shard, none twice, and the
// same arms, figures and objectives in every run.
func (s *Summary) check() error {
	if s.Trials < 1 {
		return fmt.Errorf("trials: %d trials; expected 1 or more", s.Trials)
	}
	if s.FirstSeed+uint64(s.Trials-1) < s.FirstSeed {
		return fmt.Errorf("trials: seeds %d and %d trials run past the largest seed", s.FirstSeed, s.Trials)
	}
	if s.Shard != nil {
		if err := s.Shard.Validate(); err != nil {
			return err
		}
	}
	for i, r := range s.Runs {
		if r.Seed < s.FirstSeed || r.Seed-s.FirstSeed >= uint64(s.Trials) {
			return fmt.Errorf("trials: run of seed %d is outside the sweep (seeds %d to %d)", r.Seed, s.FirstSeed, s.FirstSeed+uint64(s.Trials-1))
		}
		if s.Shard != nil && !s.Shard.Whole() && int((r.Seed-s.FirstSeed)%uint64(s.Shard.Count)) != s.Shard.Index {
			return fmt.Errorf("trials: run of seed %d does not belong to shard %s", r.Seed, s.Shard)
		}
		if i > 0 && s.Runs[i-1].Seed == r.Seed {
			return fmt.Errorf("trials: seed %d was run twice", r.Seed)
		}
		if len(r.Arms) == 0 {
			return fmt.Errorf("trials: run of seed %d has no arms", r.Seed)
		}
		first := s.Runs[0]
		if len(r.Arms) != len(first.Arms) {
			return fmt.Errorf("trials: run of seed %d has %d arms, run of seed %d has %d", r.Seed, len(r.Arms), first.Seed, len(first.Arms))
		}
		for j, a := range r.Arms {
			if a.Name != first.Arms[j].Name {
				return fmt.Errorf("trials: run of seed %d: arm %d is %q, in the run of seed %d it is %q", r.Seed, j+1, a.Name, first.Seed, first.Arms[j].Name)
			}
			for _, k := range slices.Sorted(maps.Keys(a.Figures)) {
				if _, ok := figureIndex[k]; !ok {
					return fmt.Errorf("trials: run of seed %d, arm %s: unknown figure %q", r.Seed, a.Name, k)
				}
				if v := a.Figures[k]; v != nil && !(math.Abs(*v) <= maxValue) {
					return fmt.Errorf("trials: run of seed %d, arm %s: figure %s is %g; expected a finite value of at most %g", r.Seed, a.Name, k, *v, maxValue)
				}
			}
			// The objectives are the scenario's, evaluated on every arm: the same list in
			// every arm of every run.
			want := r.Arms[0].Objectives
			if len(a.Objectives) != len(want) {
				return fmt.Errorf("trials: run of seed %d, arm %s: %d objectives, %d in arm %s", r.Seed, a.Name, len(a.Objectives), len(want), r.Arms[0].Name)
			}
			for m, o := range a.Objectives {
				if o.Name != want[m].Name || o.Name != first.Arms[0].Objectives[m].Name {
					return fmt.Errorf("trials: run of seed %d, arm %s: objective %d is %q, not %q as in arm %s of the run of seed %d", r.Seed, a.Name, m+1, o.Name, first.Arms[0].Objectives[m].Name, first.Arms[0].Name, first.Seed)
				}
				if !(math.Abs(o.Value) <= maxValue) {
					return fmt.Errorf("trials: run of seed %d, arm %s: objective %q is %g; expected a finite value of at most %g", r.Seed, a.Name, o.Name, o.Value, maxValue)
				}
			}
			if err := s.checkAlerts(r, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxValue bounds the figures a summary holds: far above any count, rate or time a replay
// measures, and far enough below the largest float64 that sums, differences and rounding
// stay finite.
const maxValue = 1e15

// compute fills Spread and Deltas from Runs.
func (s *Summary) compute() {
	s.Spread, s.Deltas = []ArmSpread{}, []Delta{}
	if len(s.Runs) == 0 {
		return
	}
	arms := s.Runs[0].Arms
	vals := make([]*float64, len(s.Runs))
	for j, a := range arms {
		sp := ArmSpread{Arm: a.Name, Set: a.Set, Figures: make([]Stats, len(figures)), Objectives: []ObjectiveSpread{}, Alerts: s.alertSpreads(j)}
		for i, f := range figures {
			for r, run := range s.Runs {
				vals[r] = run.Arms[j].Figures[f.Key]
			}
			sp.Figures[i] = stats(f.Key, vals)
		}
		for m, o := range a.Objectives {
			ob := ObjectiveSpread{Name: o.Name, Metric: o.Metric, Unit: o.Unit, Statistic: o.Statistic, Of: len(s.Runs)}
			for r, run := range s.Runs {
				x := run.Arms[j].Objectives[m]
				if x.Pass {
					ob.Passed++
				}
				vals[r] = nil
				switch {
				case x.Censored:
					if ob.Censored == 0 || x.Value < ob.Bound {
						ob.Bound = x.Value
					}
					ob.Censored++
				case !x.NoData:
					vals[r] = &x.Value
				}
			}
			ob.Value = stats(o.Name, vals)
			sp.Objectives = append(sp.Objectives, ob)
		}
		for _, run := range s.Runs {
			if len(run.Arms[j].InvariantsFailed) > 0 {
				sp.InvariantFailures++
			}
		}
		s.Spread = append(s.Spread, sp)
	}
	for j := 1; j < len(arms); j++ {
		d := Delta{Arm: arms[j].Name, Versus: arms[0].Name, Figures: make([]DeltaStats, len(figures))}
		for i, f := range figures {
			var ds DeltaStats
			for r, run := range s.Runs {
				x, y := run.Arms[j].Figures[f.Key], run.Arms[0].Figures[f.Key]
				vals[r] = nil
				if x == nil || y == nil {
					continue
				}
				v := round(*x-*y, 6)
				vals[r] = &v
				switch {
				case v == 0:
					ds.Same++
				case (v > 0) == (f.Better > 0) && f.Better != 0:
					ds.Better++
				case f.Better != 0:
					ds.Worse++
				}
			}
			ds.Stats = stats(f.Key, vals)
			ds.CI95Low, ds.CI95High = meanCI95(ds.Stats)
			d.Figures[i] = ds
		}
		s.Deltas = append(s.Deltas, d)
	}
}

// SetByInputs reports whether figure i came out identical in every trial for every arm,
// measured in each of at least two trials. The seeds' draws did not move it, so it is set
// by the scenario's inputs (a fault timeline, a controller's holds and ramp), and the
// arms' difference in it is not a paired result: that it was better in every trial says
// nothing the inputs did not.
func (s *Summary) SetByInputs(i int) bool {
	if len(s.Runs) < 2 || len(s.Spread) == 0 {
		return false
	}
	for _, a := range s.Spread {
		if i < 0 || i >= len(a.Figures) {
			return false
		}
		if st := a.Figures[i]; st.N != len(s.Runs) || st.Min != st.Max {
			return false
		}
	}
	return true
}

// StatsOf is the spread of values derived from a summary's, one per trial (nil where the
// trial did not measure it), computed as the summary computes its own: for a page that
// combines figures trial by trial.
func StatsOf(key string, vals []*float64) Stats { return stats(key, vals) }

// stats summarises the values that are not nil, in the order given (so the mean's rounding
// is the same however the runs were sharded).
func stats(key string, vals []*float64) Stats {
	st := Stats{Key: key}
	xs := make([]float64, 0, len(vals))
	for _, v := range vals {
		if v == nil {
			st.Missing++
			continue
		}
		xs = append(xs, *v)
	}
	st.N = len(xs)
	if st.N == 0 {
		return st
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(st.N)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	slices.Sort(xs)
	st.Min, st.Max = xs[0], xs[st.N-1]
	if st.N%2 == 1 {
		st.Median = xs[st.N/2]
	} else {
		st.Median = (xs[st.N/2-1] + xs[st.N/2]) / 2
	}
	st.Mean = round(mean, 6)
	if st.N > 1 {
		st.SD = round(math.Sqrt(ss/float64(st.N-1)), 6)
	}
	st.Median = round(st.Median, 6)
	return st
}

// meanCI95 is the 95% confidence interval of the mean of st's values: mean ± t·sd/√n.
func meanCI95(st Stats) (lo, hi float64) {
	if st.N < 2 {
		return 0, 0
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(st.N - 1)}.Quantile(0.975)
	half := t * st.SD / math.Sqrt(float64(st.N))
	return round(st.Mean-half, 6), round(st.Mean+half, 6)
}

// Seeds describes the seeds of the summary's runs: "seeds 1–10", or the list for a shard.
func (s *Summary) Seeds() string {
	if len(s.Runs) == 0 {
		return "no seeds"
	}
	if s.Complete() {
		if s.Trials == 1 {
			return fmt.Sprintf("seed %d", s.FirstSeed)
		}
		return fmt.Sprintf("seeds %d–%d", s.FirstSeed, s.FirstSeed+uint64(s.Trials-1))
	}
	parts := make([]string, 0, len(s.Runs))
	for _, r := range s.Runs {
		parts = append(parts, fmt.Sprint(r.Seed))
	}
	if len(parts) > 8 {
		parts = append(parts[:7], "…", parts[len(parts)-1])
	}
	return "seeds " + strings.Join(parts, ", ")
}

// Figure returns the spread of the figure named key.
func (a ArmSpread) Figure(key string) (Stats, bool) {
	if i, ok := figureIndex[key]; ok && i < len(a.Figures) && a.Figures[i].Key == key {
		return a.Figures[i], true
	}
	return Stats{}, false
}

// Figure returns the spread of the difference in the figure named key.
func (d Delta) Figure(key string) (DeltaStats, bool) {
	if i, ok := figureIndex[key]; ok && i < len(d.Figures) && d.Figures[i].Key == key {
		return d.Figures[i], true
	}
	return DeltaStats{}, false
}
