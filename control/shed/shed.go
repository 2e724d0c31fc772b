package shed

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/goodput-lab/goodput/control/loadstate"
)

// Optional declares a feature whose removal is a predesigned, degraded
// product state: the response stays correct without it and carries Fallback
// instead. Only Optional values can be put into a [Plan].
type Optional struct {
	// Name identifies the feature, for example "recommendations".
	Name string
	// Fallback is what the response carries instead while the feature is
	// shed, for example "response without a recommendations block". It must
	// not be empty: a feature without a declared fallback is not optional.
	Fallback string
}

// Required declares work that the correctness contract needs, such as
// inventory reservation or a durable order commit. It is a different type
// from [Optional] (and cannot be converted to one), so it has no path into a
// plan's shed sets; a [Plan] lists Required work only so that
// [Plan.Validate] can refuse an Optional that reuses its name.
type Required struct {
	// Name identifies the work, for example "order-commit".
	Name string
	// Why says what breaks without it, for example "the order must be
	// durable before the customer sees a confirmation".
	Why string
}

// Plan declares which optional features are shed in each load state. It is
// a declaration; [Plan.Compile] turns it into a [Table] for lookups.
//
// Shedding is cumulative along the order of protection Normal ⊆ Pressured ⊆
// Recovering ⊆ Protected: whatever is shed in Pressured is also shed in
// Recovering and Protected, and whatever is shed in Recovering is also shed
// in Protected. Each state lists its whole set.
type Plan struct {
	// Required is the correctness contract: work that no state may shed.
	Required []Required
	// States maps a load state to the optional features shed in it. A state
	// without an entry sheds nothing.
	States map[loadstate.State][]Optional
}

// Sentinel errors of [Plan.Validate], wrapped with the offending name.
var (
	// ErrRequired: an optional feature reuses the name of required work.
	ErrRequired = errors.New("shed: required work cannot be shed")
	// ErrNotCumulative: a feature shed in a state is not shed in a more
	// protective one.
	ErrNotCumulative = errors.New("shed: shedding is not cumulative")
)

// MaxFeatures is the most distinct optional features a plan may shed.
const MaxFeatures = 64

// protection lists the load states from least to most protective.
var protection = [...]loadstate.State{loadstate.Normal, loadstate.Pressured, loadstate.Recovering, loadstate.Protected}

const numStates = len(protection)

// Validate reports the first problem with p: an unknown state; an optional
// feature without a name or a fallback, listed twice in one state, or
// declared with two fallbacks; required work without a name or declared
// twice; an optional feature named like required work ([ErrRequired]); a
// feature shed in a state but not in a more protective one
// ([ErrNotCumulative]); more than [MaxFeatures] features. Names are compared
// without regard to case.
func (p Plan) Validate() error {
	_, err := p.compile()
	return err
}

// Compile validates p (see [Plan.Validate]) and returns its lookup table.
func (p Plan) Compile() (Table, error) { return p.compile() }

func (p Plan) compile() (Table, error) {
	var t Table
	required := make(map[string]string, len(p.Required))
	for i, r := range p.Required {
		key := strings.ToLower(strings.TrimSpace(r.Name))
		if key == "" {
			return Table{}, fmt.Errorf("shed: Required[%d] has no name", i)
		}
		if _, dup := required[key]; dup {
			return Table{}, fmt.Errorf("shed: required work %q is declared twice", r.Name)
		}
		required[key] = r.Name
	}
	unknown := false
	var first loadstate.State
	for s := range p.States {
		if s > loadstate.Recovering && (!unknown || s < first) {
			unknown, first = true, s
		}
	}
	if unknown {
		return Table{}, fmt.Errorf("shed: unknown load state %v", first)
	}
	ids := map[string]Feature{}
	for _, s := range protection {
		var set Set
		for _, o := range p.States[s] {
			key := strings.ToLower(strings.TrimSpace(o.Name))
			if key == "" {
				return Table{}, fmt.Errorf("shed: an optional feature shed in %v has no name", s)
			}
			if name, ok := required[key]; ok {
				return Table{}, fmt.Errorf("%w: %q is declared required and is listed as optional in %v", ErrRequired, name, s)
			}
			if strings.TrimSpace(o.Fallback) == "" {
				return Table{}, fmt.Errorf("shed: optional feature %q has no fallback; declare what the response carries instead", o.Name)
			}
			id, seen := ids[key]
			if !seen {
				if len(t.features) == MaxFeatures {
					return Table{}, fmt.Errorf("shed: more than %d optional features", MaxFeatures)
				}
				id = Feature(len(t.features))
				ids[key] = id
				t.features = append(t.features, o)
			} else if t.features[id] != o {
				return Table{}, fmt.Errorf("shed: optional feature %q is declared as %+v and as %+v", o.Name, t.features[id], o)
			}
			if set.Has(id) {
				return Table{}, fmt.Errorf("shed: optional feature %q is listed twice in %v", o.Name, s)
			}
			set |= 1 << id
		}
		t.sets[s] = set
	}
	for i := 1; i < numStates; i++ {
		lower, higher := protection[i-1], protection[i]
		if missing := t.sets[lower] &^ t.sets[higher]; missing != 0 {
			f := Feature(bits.TrailingZeros64(uint64(missing)))
			return Table{}, fmt.Errorf("%w: %q is shed in %v but not in %v (want Normal ⊆ Pressured ⊆ Recovering ⊆ Protected)",
				ErrNotCumulative, t.features[f].Name, lower, higher)
		}
	}
	return t, nil
}

// Feature is the number of an optional feature in a compiled [Table].
// Features are numbered in shed order: by the least protective state that
// sheds them, then by their position in that state's list.
type Feature uint8

// Set is a set of features, one bit per [Feature].
type Set uint64

// Has reports whether f is in s.
func (s Set) Has(f Feature) bool { return f < MaxFeatures && s&(1<<f) != 0 }

// Len returns the number of features in s.
func (s Set) Len() int { return bits.OnesCount64(uint64(s)) }

// Table is a compiled [Plan]: for each load state, the set of optional
// features shed in it. Look features up by name once, with
// [Table.Feature], then ask [Table.Shed] or [Table.Set] per request; both are
// allocation-free. The zero Table sheds nothing. A Table is immutable and
// safe for concurrent use.
type Table struct {
	features []Optional // by Feature
	sets     [loadstate.Recovering + 1]Set
}

// Set returns the features shed in state s. A state beyond Recovering is
// treated as Protected, the most protective.
func (t Table) Set(s loadstate.State) Set {
	if s > loadstate.Recovering {
		s = loadstate.Protected
	}
	return t.sets[s]
}

// Shed reports whether feature f is shed in state s.
func (t Table) Shed(s loadstate.State, f Feature) bool { return t.Set(s).Has(f) }

// Feature returns the feature named name (compared without regard to case).
// The second result is false when the plan never sheds a feature of that
// name.
func (t Table) Feature(name string) (Feature, bool) {
	name = strings.TrimSpace(name)
	for i, o := range t.features {
		if strings.EqualFold(strings.TrimSpace(o.Name), name) {
			return Feature(i), true
		}
	}
	return 0, false
}

// Optional returns the declaration of feature f.
func (t Table) Optional(f Feature) (Optional, bool) {
	if int(f) >= len(t.features) {
		return Optional{}, false
	}
	return t.features[f], true
}

// Len returns the number of features the table knows.
func (t Table) Len() int { return len(t.features) }

// Names returns the names of the features in s, in shed order, for traces
// and logs.
func (t Table) Names(s Set) []string {
	names := make([]string, 0, s.Len())
	for i, o := range t.features {
		if s.Has(Feature(i)) {
			names = append(names, o.Name)
		}
	}
	return names
}
