package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/yamlfile"
)

// Sets are inputs changed by path, as --set changes them (see [Override]): each key is a
// path into the scenario written with the file's keys, stepping into lists by name or
// index, and each value is written as in the file:
//
//	set:
//	  topology.dependencies.payment.timeout: 2s
//	  topology.dependencies.payment.service_time: {p50: 40ms, p99: 300ms}
//	  topology.services.checkout.instances: 40
//
// An arm's Set applies from the start; an action's at its instant. No path may lie inside
// another of the same Sets (they would depend on an order a mapping does not have).
type Sets map[string]any

// Overrides returns the sets as overrides, in the order of their paths.
func (s Sets) Overrides() []Override {
	paths := make([]string, 0, len(s))
	for p := range s {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	out := make([]Override, len(paths))
	for i, p := range paths {
		out[i] = Override{Path: p, Value: setText(s[p])}
	}
	return out
}

// Strings returns the sets as PATH=VALUE, in the order of their paths: how packets and
// reports show them.
func (s Sets) Strings() []string {
	var out []string
	for _, o := range s.Overrides() {
		out = append(out, o.String())
	}
	return out
}

// JSONSchema describes a Sets mapping.
func (Sets) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "object",
		Description: "Inputs changed by path, as --set changes them: PATH: VALUE, e.g. {topology.dependencies.payment.timeout: 2s}.",
		Examples:    []any{map[string]any{"topology.dependencies.payment.timeout": "2s"}},
	}
}

// setText writes a decoded value back as one line of YAML that means the same: a string
// as it reads plainly (quoted when it would read as something else), a number or bool as
// text, a mapping (keys sorted) or list in flow style.
func setText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if plainString(x) {
			return x
		}
		q, _ := json.Marshal(x)
		return string(q)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			key := setText(k)
			if plainKey(k) {
				key = k // a key is text whatever it spells (on, 32)
			}
			parts[i] = key + ": " + setText(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = setText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// plainString reports whether s reads back as the same string written without quotes in a
// flow value: letters, digits and a few signs, and not a number, bool or null.
func plainString(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/+-%", r)) {
			return false
		}
	}
	if s == "-" || s == "+" || strings.ContainsRune(".%", rune(s[0])) {
		return false
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// plainKey reports whether a mapping key reads back as itself written without quotes.
func plainKey(s string) bool {
	return s != "" && !strings.ContainsRune("-+.%", rune(s[0])) && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-", r))
	})
}

// plain returns a copy of s without actions and without the arms' sets: the inputs that
// every derived scenario starts from, so that deriving never recurses.
func (s *Scenario) plain() *Scenario {
	c := *s
	c.Actions = nil
	c.Arms = slices.Clone(s.Arms)
	for i := range c.Arms {
		c.Arms[i].Set = nil
	}
	return &c
}

// placed is an override written in the file at path at (e.g.
// "$.arms[1].set['topology.entries.web.timeout']").
type placed struct {
	o  Override
	at string
}

// placedSets lists a Sets mapping written at path as placed overrides.
func placedSets(path string, s Sets) []placed {
	var out []placed
	for _, o := range s.Overrides() {
		out = append(out, placed{o: o, at: yamlfile.KeyPath(path, o.Path)})
	}
	return out
}

// derive applies the overrides of before and then of these to plain, which has neither
// actions nor sets. A problem is reported as FieldErrors at the entries of these it comes
// from (before have been applied without a problem already); within names the arm the
// result is for, for the message, or is "".
func derive(plain *Scenario, before []Override, these []placed, within string) (*Scenario, Errors) {
	all := slices.Clone(before)
	for _, p := range these {
		all = append(all, p.o)
	}
	sc, i, err := plain.with(all)
	if err == nil {
		return sc, nil
	}
	var errs Errors
	prefix := ""
	if within != "" {
		prefix = "in arm " + strconv.Quote(within) + ": "
	}
	if i >= 0 {
		at := these[0].at
		if k := i - len(before); k >= 0 {
			at = these[k].at
		}
		errs.Addf(at, "%sset %s: %v", prefix, all[i], err)
		return nil, errs
	}
	var list yamlfile.ErrorList
	if !errors.As(err, &list) {
		errs.Addf(these[0].at, "%s%v", prefix, err)
		return nil, errs
	}
	tree, terr := plain.tree()
	for _, e := range list {
		k := 0
		if terr == nil {
			k = blame(tree, these, e.Path)
		}
		errs.Addf(these[k].at, "%sset %s: %s", prefix, these[k].o, e.Problem())
	}
	return nil, errs
}

// blame picks the override a problem at YAML path problem comes from: the one whose
// target holds the problem's path most closely, else the first whose target lies inside
// it, else the first.
func blame(tree any, these []placed, problem string) int {
	best, bestLen, inside := -1, -1, -1
	for k, p := range these {
		target := yamlPathOf(tree, strings.Split(p.o.Path, "."))
		switch {
		case within(problem, target) && len(target) > bestLen:
			best, bestLen = k, len(target)
		case inside < 0 && within(target, problem):
			inside = k
		}
	}
	switch {
	case best >= 0:
		return best
	case inside >= 0:
		return inside
	}
	return 0
}

// within reports whether YAML path p is path q or lies under it.
func within(p, q string) bool {
	return p == q || strings.HasPrefix(p, q) && (p[len(q)] == '.' || p[len(q)] == '[')
}

// yamlPathOf is the YAML path ($.topology.dependencies[0].timeout) of an override's path
// (topology.dependencies.payment.timeout), its list steps resolved in tree.
func yamlPathOf(tree any, steps []string) string {
	path := "$"
	n := tree
	for _, key := range steps {
		switch x := n.(type) {
		case []any:
			i := slices.IndexFunc(x, func(e any) bool {
				m, ok := e.(map[string]any)
				return ok && m["name"] == key
			})
			if i < 0 {
				k, err := strconv.Atoi(key)
				if err != nil || k < 0 || k >= len(x) {
					return yamlfile.KeyPath(path, key)
				}
				i = k
			}
			path = yamlfile.IndexPath(path, i)
			n = x[i]
		case map[string]any:
			path = yamlfile.KeyPath(path, key)
			n = x[key]
		default:
			path = yamlfile.KeyPath(path, key)
			n = nil
		}
	}
	return path
}

// overlapping reports a path of the sets that lies inside another of them.
func (v *validator) overlapping(at string, s Sets) {
	paths := make([]string, 0, len(s))
	for p := range s {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		for _, q := range paths {
			if strings.HasPrefix(p, q+".") {
				v.addf(yamlfile.KeyPath(at, p), "path %s lies inside %s, set too; expected one of them (a mapping's entries have no order to apply them in)", p, q)
				break
			}
		}
	}
}

// armSetRefused says why an arm may not set path, or "" when it may.
func armSetRefused(path string) string {
	steps := strings.Split(path, ".")
	switch steps[0] {
	case "load", "clock", "seed", "trials":
		return "every arm replays the same offered load and draws (common random numbers), so " + steps[0] + " is the scenario's, not an arm's"
	case "classes":
		if len(steps) <= 2 || steps[2] == "share" {
			return "every arm is offered the same mix of classes (common random numbers), so the classes' shares are the scenario's; expected a path inside a class, e.g. classes.NAME.stages.STAGE.dependency"
		}
	case "arms":
		return "an arm's sets change the scenario, not the arms; expected the arm's own policy under policy"
	case "actions":
		return "actions are the scenario's timeline; expected the action's arms to say which arms it applies to"
	case "cells":
		return "every arm is offered the same cells, shares and copies (common random numbers), so the cells are the scenario's; expected a path under topology, which every cell's copy takes"
	case "jobs":
		return "jobs are the scenario's timeline; expected the job's arms to say which arms it runs in"
	case "objectives", "name":
		return "every arm is measured against the same " + steps[0] + "; expected a path under topology, classes.NAME.stages, faults or alerts"
	}
	return ""
}

// armSets checks each arm's sets: the paths an arm may set, and that each applies
// cleanly to the scenario. It runs on a scenario valid without sets and actions.
func (v *validator) armSets(plain *Scenario) {
	for i, a := range v.s.Arms {
		if len(a.Set) == 0 {
			continue
		}
		at := fmt.Sprintf("$.arms[%d].set", i)
		bad := false
		for _, p := range placedSets(at, a.Set) {
			if why := armSetRefused(p.o.Path); why != "" {
				v.addf(p.at, "arm %q may not set %s: %s", a.Name, p.o.Path, why)
				bad = true
			}
		}
		if bad {
			continue
		}
		sc, errs := derive(plain, nil, placedSets(at, a.Set), "")
		if errs != nil {
			v.errs = append(v.errs, errs...)
			continue
		}
		if p, what := sameLoad(plain, sc); what != "" {
			placedAt := at
			for _, q := range placedSets(at, a.Set) {
				if strings.HasPrefix(q.o.Path, p) {
					placedAt = q.at
					break
				}
			}
			v.addf(placedAt, "arm %q changes %s, and every arm is offered the same load (common random numbers); expected the offered load unchanged", a.Name, what)
		} else if what := sameNames(plain, sc); what != "" {
			v.addf(at, "arm %q changes %s; expected the same names in every arm, as the packet compares the arms side by side (change their settings instead)", a.Name, what)
		}
	}
}

// sameNames compares the names of what the arms are compared by (entries, services,
// dependencies, caches, classes and their stages); it returns the first difference in
// words, or "" when there is none.
func sameNames(a, b *Scenario) string {
	names := func(n int, name func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = name(i)
		}
		return out
	}
	ta, tb := a.Topology, b.Topology
	for _, c := range []struct {
		what string
		x, y []string
	}{
		{"the entries", names(len(ta.Entries), func(i int) string { return ta.Entries[i].Name }), names(len(tb.Entries), func(i int) string { return tb.Entries[i].Name })},
		{"the services", names(len(ta.Services), func(i int) string { return ta.Services[i].Name }), names(len(tb.Services), func(i int) string { return tb.Services[i].Name })},
		{"the dependencies", names(len(ta.Dependencies), func(i int) string { return ta.Dependencies[i].Name }), names(len(tb.Dependencies), func(i int) string { return tb.Dependencies[i].Name })},
		{"the caches", names(len(ta.Caches), func(i int) string { return ta.Caches[i].Name }), names(len(tb.Caches), func(i int) string { return tb.Caches[i].Name })},
	} {
		if !slices.Equal(c.x, c.y) {
			return c.what
		}
	}
	for i := range a.Classes {
		x := names(len(a.Classes[i].Stages), func(k int) string { return a.Classes[i].Stages[k].Name })
		y := names(len(b.Classes[i].Stages), func(k int) string { return b.Classes[i].Stages[k].Name })
		if !slices.Equal(x, y) {
			return "the stages of class " + strconv.Quote(a.Classes[i].Name)
		}
	}
	return ""
}

// sameLoad compares what decides the offered load in two scenarios; it returns the first
// difference as a path prefix and words, or "" when there is none.
func sameLoad(a, b *Scenario) (prefix, what string) {
	switch {
	case !reflect.DeepEqual(a.Load, b.Load):
		return "load", "the load"
	case a.Clock != b.Clock:
		return "clock", "the clock"
	case a.Seed != b.Seed:
		return "seed", "the seed"
	case len(a.Classes) != len(b.Classes):
		return "classes", "the classes"
	}
	for i := range a.Classes {
		if a.Classes[i].Name != b.Classes[i].Name || a.Classes[i].Share != b.Classes[i].Share {
			return "classes", "the classes' names or shares"
		}
	}
	shifts := func(s *Scenario) []Fault {
		var out []Fault
		for _, f := range s.Faults {
			if f.Shift != nil {
				out = append(out, f)
			}
		}
		return out
	}
	if !reflect.DeepEqual(shifts(a), shifts(b)) {
		return "faults", "a traffic shift"
	}
	return "", ""
}

// ArmInputs is what one arm replays: its scenario from the start and the actions that
// apply to it, in time order.
type ArmInputs struct {
	// Scenario is the arm's inputs from the start: the file's with the arm's sets
	// applied (the file's own scenario when the arm has none).
	Scenario *Scenario
	// Set is the arm's sets as PATH=VALUE; empty without any.
	Set []string
	// Actions are the actions that apply to the arm, by their instant (the file's order
	// for actions at one instant).
	Actions []ArmAction
}

// ArmAction is one action as an arm replays it.
type ArmAction struct {
	// Index is the action's place in the scenario's actions.
	Index int
	Action
	// Scenario is the arm's inputs from the action's instant on: the arm's sets, and
	// those of every action up to this one, applied.
	Scenario *Scenario
}

// Inputs returns what the named arm replays. The scenario must be valid.
func (s *Scenario) Inputs(arm string) (*ArmInputs, error) {
	ai := slices.IndexFunc(s.Arms, func(a Arm) bool { return a.Name == arm })
	if ai < 0 {
		return nil, fmt.Errorf("scenario: no arm named %q", arm)
	}
	out := &ArmInputs{Scenario: s, Set: s.Arms[ai].Set.Strings()}
	plain := s.plain()
	sets := s.Arms[ai].Set.Overrides()
	if len(sets) > 0 {
		sc, err := plain.With(sets...)
		if err != nil {
			return nil, err
		}
		out.Scenario = sc
	}
	for _, k := range s.actionOrder() {
		act := s.Actions[k]
		if !act.appliesTo(arm) {
			continue
		}
		sets = append(sets, act.Set.Overrides()...)
		sc, err := plain.With(sets...)
		if err != nil {
			return nil, fmt.Errorf("scenario: action %d (at %s): %w", k, act.At, err)
		}
		out.Actions = append(out.Actions, ArmAction{Index: k, Action: act, Scenario: sc})
	}
	return out, nil
}
