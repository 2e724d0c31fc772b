package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/parser"

	"github.com/goodput-lab/goodput/yamlfile"
)

// Override is one input changed without editing the file: a path to a value of the
// scenario, written with the file's keys, and the new value, written as in the file. A
// path steps into a list of named things (classes, stages, entries, services,
// dependencies, caches, arms) by the element's name, or into any list by its index from 0:
//
//	topology.dependencies.payment-risk.pool.per_instance=32
//	arms.protected.policy.retries.budget.ratio=5%
//	faults.2.service_time={p50: 40ms, p99: 300ms}
//
// Missing mappings along the path are created; a new list element cannot be.
type Override struct {
	Path  string
	Value string
	// Flag is how the override was given, for errors: "--set" when empty.
	Flag string
}

// flag is how errors name the override: "--set PATH=VALUE".
func (o Override) flag() string {
	if o.Flag == "" {
		return "--set " + o.String()
	}
	return o.Flag + " " + o.String()
}

// String formats the override as PATH=VALUE.
func (o Override) String() string { return o.Path + "=" + o.Value }

// ParseOverride parses PATH=VALUE.
func ParseOverride(s string) (Override, error) {
	path, value, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Override{}, fmt.Errorf("scenario: override %q: expected PATH=VALUE, for example topology.dependencies.payment-risk.pool.per_instance=32", s)
	}
	return Override{Path: path, Value: strings.TrimSpace(value)}, nil
}

// With returns a copy of the scenario with the overrides applied in order, decoded and
// validated as strictly as the file itself: an unknown key, a value of the wrong type or
// unit, or an inconsistent result is an error naming the override and the path. The
// scenario itself is not changed.
func (s *Scenario) With(overrides ...Override) (*Scenario, error) {
	sc, i, err := s.with(overrides)
	if i >= 0 {
		return nil, fmt.Errorf("scenario: %s: %w", overrides[i].flag(), err)
	}
	return sc, err
}

// with is With: it returns, for an error in one override's path or value, that
// override's index and the error without the override's name; -1 for any other error.
func (s *Scenario) with(overrides []Override) (*Scenario, int, error) {
	tree, err := s.tree()
	if err != nil {
		return nil, -1, err
	}
	// Each value goes into the tree as a placeholder string, and its own text then replaces
	// the placeholder in the encoded scenario: the result is YAML (JSON with the values'
	// YAML inside), which Decode reads as it reads a file, so a value means what it would
	// mean written in the file, and the file's limits (aliases, tags) apply to it.
	raw := make([]string, len(overrides))
	for i, o := range overrides {
		text, err := flowValue(o.Value)
		if err != nil {
			return nil, i, err
		}
		raw[i] = text
		if tree, err = set(tree, strings.Split(o.Path, "."), placeholder(i), ""); err != nil {
			return nil, i, err
		}
	}
	out, err := json.Marshal(tree)
	if err != nil {
		return nil, -1, fmt.Errorf("scenario: %w", err)
	}
	for i, text := range raw {
		q, _ := json.Marshal(placeholder(i))
		out = bytes.Replace(out, q, []byte(text), 1)
	}
	names := make([]string, len(overrides))
	for i, o := range overrides {
		names[i] = o.flag()
	}
	sc, err := Decode(strings.Join(names, " "), out)
	var list yamlfile.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			e.Line, e.Column = 0, 0 // positions in the re-encoded scenario would mean nothing
		}
	}
	return sc, -1, err
}

// tree is the scenario as generic JSON values (maps, lists, json.Numbers, strings).
func (s *Scenario) tree() (any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return tree, nil
}

// set puts v at path under n and returns n; at names the path walked so far.
func set(n any, path []string, v any, at string) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	key, rest := path[0], path[1:]
	if key == "" {
		return nil, fmt.Errorf("an empty step in the path after %q", at)
	}
	here := strings.TrimPrefix(at+"."+key, ".")
	switch n := n.(type) {
	case map[string]any:
		child, err := set(n[key], rest, v, here)
		if err != nil {
			return nil, err
		}
		n[key] = child
		return n, nil
	case nil:
		child, err := set(nil, rest, v, here)
		if err != nil {
			return nil, err
		}
		return map[string]any{key: child}, nil
	case []any:
		i := slices.IndexFunc(n, func(e any) bool {
			m, ok := e.(map[string]any)
			return ok && m["name"] == key
		})
		if i < 0 {
			k, err := strconv.Atoi(key)
			if err != nil || k < 0 || k >= len(n) {
				return nil, fmt.Errorf("%s has no element named %q%s", at, key, listNames(n))
			}
			i = k
		}
		child, err := set(n[i], rest, v, here)
		if err != nil {
			return nil, err
		}
		n[i] = child
		return n, nil
	default:
		return nil, fmt.Errorf("%s is a value, not a mapping or list, so it has no %q", at, key)
	}
}

// placeholder stands for the i-th override's value in the encoded tree until its text
// replaces it; no scenario holds such a string.
func placeholder(i int) string { return fmt.Sprintf("\x00goodput-set-%d\x00", i) }

// flowValue checks that a value is one line of YAML and returns the text that stands for
// it inside a JSON (flow) mapping: the value itself, or for a plain scalar that holds a
// flow indicator (",[]{}") or starts like a comment, the scalar as a JSON string.
func flowValue(v string) (string, error) {
	if strings.ContainsAny(v, "\n\r") {
		return "", errors.New("the value must be on one line")
	}
	if strings.TrimSpace(v) == "" {
		return "null", nil
	}
	if _, err := parser.ParseBytes([]byte(v), 0); err != nil {
		msg := firstLine(err.Error())
		if i := strings.Index(msg, "] "); strings.HasPrefix(msg, "[") && i > 0 {
			msg = msg[i+2:] // goccy's own position in the value
		}
		return "", fmt.Errorf("the value is not YAML: %s", msg)
	}
	t := strings.TrimSpace(v)
	if strings.ContainsAny(t[:1], "[{\"'!&*|>") {
		return t, nil // a flow collection, a quoted scalar, a tag, an anchor or an alias
	}
	if strings.ContainsAny(t, ",[]{}") || strings.Contains(t, " #") || strings.HasPrefix(t, "#") {
		q, err := json.Marshal(t)
		return string(q), err
	}
	return t, nil
}

// listNames describes the elements of a list for an error: their names, or how many.
func listNames(l []any) string {
	var names []string
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if s, ok := m["name"].(string); ok {
				names = append(names, s)
			}
		}
	}
	if len(names) == len(l) && len(l) > 0 {
		return " (its elements are " + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf(" (an index from 0 to %d)", len(l)-1)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
