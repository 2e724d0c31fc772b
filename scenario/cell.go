package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/goodput-lab/goodput/internal/numfmt"
	"github.com/goodput-lab/goodput/yamlfile"
)

// Cell is one cell (or region) of a scenario with cells: it runs its own copy of the
// topology's entries, services, caches and dependencies (a dependency declared shared is
// one copy that every cell calls), and it is offered Share of the load, the cell of each
// request drawn from the seeded streams so that every arm offers each cell the same
// requests. Its copies are named CELL/NAME (eu-west/checkout) in the packet, and faults,
// alerts and the load state's trigger name one cell's copy that way; a fault that names a
// service or dependency without a cell hits every cell's copy. For example:
//
//	cells:
//	  - {name: eu-west, share: 50%}
//	  - {name: eu-central, share: 50%, set: {services.checkout.instances: 4}}
type Cell struct {
	// Name names the cell, e.g. eu-west; no "/" in it.
	Name string `yaml:"name" json:"name"`
	// Share is the cell's share of the offered load; the cells' shares sum to 100%.
	Share Fraction `yaml:"share" json:"share"`
	// Set changes the cell's copy of the topology, by paths under topology written as
	// --set writes them (services.checkout.instances: 4, dependencies.ledger.service_time:
	// {p50: 30ms, p99: 90ms}), on top of what the arm's sets and the actions make of the
	// topology. Names cannot change, nor a shared dependency.
	Set Sets `yaml:"set,omitempty" json:"set,omitempty,omitzero"`
}

// Failover modes ([FailoverPolicy.Mode]).
const (
	FailoverHealth = "health" // move traffic on the origin's health alone
	FailoverGrant  = "grant"  // move at most what the destination's warm reserve grants
)

// Failover health signals ([FailoverPolicy.Signal]).
const (
	SignalSuccessRate      = "success_rate"      // goodput over the terminal states of the cell's requests in the window
	SignalHealthyInstances = "healthy_instances" // the cell's instances taking traffic over those running
)

// What becomes of traffic a destination's grant refuses ([FailoverPolicy.Beyond]).
const (
	GrantOrigin = "origin" // it stays in its own cell
	GrantReject = "reject" // it is refused at its origin, reason failover-refused
)

// FailoverPolicy is an arm's failover between cells (a scenario with cells only). Each
// tick every cell's health signal is compared with Below; a cell whose signal stays below
// it for For fails over: Share of the requests offered to it go to the other cells that
// have not failed over, by their shares. It fails back once the signal has been at or
// above Below for Hold (a cell that moved all its traffic away has no requests to judge,
// which counts as healthy: it fails back after Hold and fails over again if it is still
// unhealthy). In mode health that is all (a regional router that moves traffic on health
// checks). In mode grant the destination admits a moved request only while its warm
// reserve lasts: its warm capacity (the workers of its warm instances taking traffic,
// recomputed each tick) less Headroom, minus its current attempt load (attempts queued or
// in service at its instances, at the request's arrival); beyond that the request stays
// in its origin or is refused (Beyond), and the destination counts it in
// refused_by_grant. A load state whose policy freezes failover stops every move while it
// does, in either mode. For example:
//
//	failover: {mode: grant, below: 90%, window: 30s, for: 30s, hold: 2m, headroom: 10%}
type FailoverPolicy struct {
	// Mode is health or grant.
	Mode string `yaml:"mode" json:"mode" jsonschema:"enum=health,enum=grant"`
	// Signal is the health signal: success_rate (the default: goodput over the requests
	// the cell served that ended in the last Window) or healthy_instances (the share of
	// the cell's running instances taking traffic, health checks passing).
	Signal string `yaml:"signal,omitempty" json:"signal,omitempty,omitzero" jsonschema:"enum=success_rate,enum=healthy_instances"`
	// Below is the threshold: a signal below it is unhealthy, e.g. 90%. Required.
	Below Fraction `yaml:"below" json:"below"`
	// Window is the success rate's window, at least a tick. Zero means 30s.
	Window Duration `yaml:"window,omitempty" json:"window,omitempty,omitzero"`
	// For is how long the signal must stay below before the cell fails over. Zero means
	// at the first unhealthy tick.
	For Duration `yaml:"for,omitempty" json:"for,omitempty,omitzero"`
	// Hold is how long the signal must stay healthy before the cell fails back. Zero
	// means 1m.
	Hold Duration `yaml:"hold,omitempty" json:"hold,omitempty,omitzero"`
	// Share is the share of the cell's offered requests moved while it is failed over.
	// Zero means 100%.
	Share Fraction `yaml:"share,omitempty" json:"share,omitempty,omitzero"`
	// Headroom is the share of the destination's warm capacity kept back for failure
	// headroom (mode grant only), e.g. 10%.
	Headroom Fraction `yaml:"headroom,omitempty" json:"headroom,omitempty,omitzero"`
	// Beyond is what becomes of a request the grant refuses (mode grant only): origin
	// (the default: it stays in its cell) or reject (refused, reason failover-refused).
	Beyond string `yaml:"beyond,omitempty" json:"beyond,omitempty,omitzero" jsonschema:"enum=origin,enum=reject"`
}

// CellName is the name of cell's copy of a topology name: cell/name.
func CellName(cell, name string) string { return cell + "/" + name }

// CellCopy is where one cell's copies sit in the topology of [Scenario.ExpandCells]: by
// the index of each entry, service, dependency and cache in the declared topology, the
// index of the cell's copy (a shared dependency's one copy for every cell).
type CellCopy struct {
	Name                                    string
	Share                                   float64
	Entries, Services, Dependencies, Caches []int
}

// ExpandCells returns the scenario a model replays for a scenario with cells: its
// topology holds every cell's copies, named cell/name (with each cell's Set applied), and
// the shared dependencies once under their own names; each fault that names a service or
// a per-cell dependency without a cell is one fault per cell. The classes are unchanged,
// naming the declared topology: the layout says which copy each of their names is in each
// cell. The result is not itself valid (its classes name what it no longer has); s must be.
func (s *Scenario) ExpandCells() (*Scenario, []CellCopy, error) {
	base := s.Topology
	shared := map[string]bool{}
	for _, d := range base.Dependencies {
		shared[d.Name] = d.Shared
	}
	out := *s
	out.Topology = Topology{}
	var lay []CellCopy
	sharedIdx := map[string]int{}
	for _, d := range base.Dependencies {
		if d.Shared {
			sharedIdx[d.Name] = len(out.Topology.Dependencies)
			out.Topology.Dependencies = append(out.Topology.Dependencies, d)
		}
	}
	for _, c := range s.Cells {
		t, err := s.cellTopology(c)
		if err != nil {
			return nil, nil, err
		}
		cp := CellCopy{Name: c.Name, Share: float64(c.Share)}
		for _, e := range t.Entries {
			e.Name, e.Target = CellName(c.Name, e.Name), CellName(c.Name, e.Target)
			cp.Entries = append(cp.Entries, len(out.Topology.Entries))
			out.Topology.Entries = append(out.Topology.Entries, e)
		}
		for _, sv := range t.Services {
			sv.Name = CellName(c.Name, sv.Name)
			cp.Services = append(cp.Services, len(out.Topology.Services))
			out.Topology.Services = append(out.Topology.Services, sv)
		}
		for _, d := range t.Dependencies {
			if d.Shared {
				cp.Dependencies = append(cp.Dependencies, sharedIdx[d.Name])
				continue
			}
			d.Name = CellName(c.Name, d.Name)
			cp.Dependencies = append(cp.Dependencies, len(out.Topology.Dependencies))
			out.Topology.Dependencies = append(out.Topology.Dependencies, d)
		}
		for _, k := range t.Caches {
			k.Name, k.Service = CellName(c.Name, k.Name), CellName(c.Name, k.Service)
			cp.Caches = append(cp.Caches, len(out.Topology.Caches))
			out.Topology.Caches = append(out.Topology.Caches, k)
		}
		lay = append(lay, cp)
	}
	out.Faults = nil
	for _, f := range s.Faults {
		switch {
		case f.Dependency != "" && !strings.Contains(f.Dependency, "/") && !shared[f.Dependency]:
			for _, c := range s.Cells {
				g := f
				g.Dependency = CellName(c.Name, f.Dependency)
				out.Faults = append(out.Faults, g)
			}
		case f.Service != "" && !strings.Contains(f.Service, "/"):
			for _, c := range s.Cells {
				g := f
				g.Service = CellName(c.Name, f.Service)
				out.Faults = append(out.Faults, g)
			}
		case f.Scale != nil && !strings.Contains(f.Scale.Service, "/"):
			for _, c := range s.Cells {
				g, sc := f, *f.Scale
				sc.Service = CellName(c.Name, sc.Service)
				g.Scale = &sc
				out.Faults = append(out.Faults, g)
			}
		default:
			out.Faults = append(out.Faults, f)
		}
	}
	return &out, lay, nil
}

// cellTopology is cell c's topology: the scenario's with the cell's sets applied.
func (s *Scenario) cellTopology(c Cell) (Topology, error) {
	if len(c.Set) == 0 {
		return s.Topology, nil
	}
	sc, err := s.cellPlain().With(cellOverrides(c.Set)...)
	if err != nil {
		return Topology{}, fmt.Errorf("cell %s: %w", c.Name, err)
	}
	return sc.Topology, nil
}

// cellPlain is the scenario without actions, arm sets or cell sets: what a cell's sets
// apply to (without the cells' own sets, deriving never recurses).
func (s *Scenario) cellPlain() *Scenario {
	p := s.plain()
	p.Cells = make([]Cell, len(s.Cells))
	for i, c := range s.Cells {
		p.Cells[i] = Cell{Name: c.Name, Share: c.Share}
	}
	return p
}

// cellOverrides are a cell's sets as overrides of the whole scenario (under topology).
func cellOverrides(s Sets) []Override {
	out := s.Overrides()
	for i := range out {
		out[i].Path = "topology." + out[i].Path
	}
	return out
}

// cellNames adds every cell's copies (cell/name) to the names faults, alerts and the load
// state's trigger may use.
func (v *validator) cellNames(n *topoNames) {
	for _, c := range v.s.Cells {
		if c.Name == "" || strings.Contains(c.Name, "/") {
			continue
		}
		for name, i := range n.services {
			if !strings.Contains(name, "/") {
				n.services[CellName(c.Name, name)] = i
			}
		}
		for name, i := range n.deps {
			if !strings.Contains(name, "/") && !v.s.Topology.Dependencies[i].Shared {
				n.deps[CellName(c.Name, name)] = i
			}
		}
	}
}

// cells checks the cells, the shared dependencies, the routers' panic thresholds and the
// arms' failover policies.
func (v *validator) cells(n topoNames) {
	s := v.s
	for i, sv := range s.Topology.Services {
		if f := sv.PanicThreshold; f < 0 || f > 1 {
			v.addf(fmt.Sprintf("$.topology.services[%d].panic_threshold", i), "panic_threshold is %s; expected a share of healthy instances above 0 and at most 100%%, e.g. 50%%", f)
		}
	}
	for i, a := range s.Arms {
		if f := a.Policy.Failover; f != nil {
			v.failover(fmt.Sprintf("$.arms[%d].policy.failover", i), f)
		}
	}
	if len(s.Cells) == 0 {
		for i, d := range s.Topology.Dependencies {
			if d.Shared {
				v.addf(fmt.Sprintf("$.topology.dependencies[%d].shared", i), "shared is set, but the scenario has no cells; expected cells: […] or no shared")
			}
		}
		for i, a := range s.Arms {
			if a.Policy.Failover != nil {
				v.addf(fmt.Sprintf("$.arms[%d].policy.failover", i), "failover moves traffic between cells, but the scenario has no cells; expected cells: […] or no failover")
			}
		}
		return
	}
	if len(s.Cells) < 2 {
		v.addf("$.cells", "one cell; expected at least two cells (or no cells)")
	} else if len(s.Cells) > 64 {
		v.addf("$.cells", "%d cells; expected at most 64", len(s.Cells))
	}
	seen := map[string]bool{}
	taken := map[string]bool{} // the declared names, which no cell's copy may take
	for _, name := range append(append(serviceNames(s.Topology), dependencyNames(s.Topology)...), cacheNames(s.Topology)...) {
		taken[name] = true
	}
	for _, e := range s.Topology.Entries {
		taken[e.Name] = true
	}
	var sum float64
	for i, c := range s.Cells {
		p := fmt.Sprintf("$.cells[%d]", i)
		switch {
		case strings.TrimSpace(c.Name) == "":
			v.addf(p+".name", "name is empty; expected a cell name, e.g. eu-west")
		case strings.Contains(c.Name, "/"):
			v.addf(p+".name", "name %q has a \"/\"; expected a name without one (a cell's copies are named cell/name)", c.Name)
		case seen[c.Name]:
			v.addf(p+".name", "cell %q is declared twice; expected unique cell names", c.Name)
		}
		seen[c.Name] = true
		for name := range taken {
			if strings.HasPrefix(name, c.Name+"/") {
				v.addf(p+".name", "cell %q would name its copies like the declared %q; expected names that do not collide", c.Name, name)
				break
			}
		}
		if !(c.Share > 0) {
			v.addf(p+".share", "share is %s; expected a positive share of the offered load, e.g. 50%%", c.Share)
		}
		sum += float64(c.Share)
		if len(c.Set) > 0 {
			v.overlapping(p+".set", c.Set)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		v.addf("$.cells", "cell shares sum to %s; expected them to sum to 100%%", numfmt.PlainPercent(sum))
	}
	v.cellNamesUsed(n)
	if len(v.errs) == 0 {
		v.cellSets()
	}
}

// cellNamesUsed reports a cell named in a fault, an alert or a trigger that is not
// declared, and an alert or trigger naming a per-cell copy without its cell.
func (v *validator) cellNamesUsed(n topoNames) {
	s := v.s
	cells := map[string]bool{}
	var names []string
	for _, c := range s.Cells {
		cells[c.Name] = true
		names = append(names, c.Name)
	}
	perCell := func(name string, dep bool) bool {
		if dep {
			i, ok := n.deps[name]
			return ok && !s.Topology.Dependencies[i].Shared
		}
		_, ok := n.services[name]
		return ok
	}
	check := func(at, name string, dep, bare bool) {
		cell, rest, ok := strings.Cut(name, "/")
		switch {
		case ok && !cells[cell]:
			v.addf(at, "cell %q is not declared; expected one of %s (as cell/%s)", cell, quoteList(names), rest)
		case !ok && !bare && perCell(name, dep):
			v.addf(at, "%q has a copy in every cell; expected one cell's copy, e.g. %s", name, CellName(s.Cells[0].Name, name))
		}
	}
	for i, f := range s.Faults {
		p := fmt.Sprintf("$.faults[%d]", i)
		if f.Dependency != "" {
			check(p+".dependency", f.Dependency, true, true)
		}
		if f.Service != "" {
			check(p+".service", f.Service, false, true)
		}
		if f.Scale != nil {
			check(p+".scale.service", f.Scale.Service, false, true)
		}
	}
	for i, a := range s.Alerts {
		if r := a.Resource; r != nil {
			p := fmt.Sprintf("$.alerts[%d].resource", i)
			if r.Dependency != "" {
				check(p+".dependency", r.Dependency, true, false)
			}
			if r.Service != "" {
				check(p+".service", r.Service, false, false)
			}
		}
	}
	for i, a := range s.Arms {
		if ls := a.Policy.LoadState; ls != nil && ls.Trigger != "" {
			check(fmt.Sprintf("$.arms[%d].policy.loadstate.trigger", i), ls.Trigger, true, false)
		}
	}
	for i, c := range s.Classes {
		if strings.Contains(c.Entry, "/") {
			v.addf(fmt.Sprintf("$.classes[%d].entry", i), "entry %q names a cell's copy; expected the declared entry, which every cell runs", c.Entry)
		}
		for j, st := range c.Stages {
			if strings.Contains(st.Dependency, "/") {
				v.addf(fmt.Sprintf("$.classes[%d].stages[%d].dependency", i, j), "dependency %q names a cell's copy; expected the declared dependency, which each cell calls its own copy of", st.Dependency)
			}
		}
	}
}

// cellSets checks each cell's sets by applying them: each must leave a valid scenario,
// with the same names and the shared dependencies unchanged.
func (v *validator) cellSets() {
	plain := v.s.cellPlain()
	for i, c := range v.s.Cells {
		if len(c.Set) == 0 {
			continue
		}
		at := fmt.Sprintf("$.cells[%d].set", i)
		var these []placed
		for _, o := range c.Set.Overrides() {
			these = append(these, placed{o: Override{Path: "topology." + o.Path, Value: o.Value}, at: yamlfile.KeyPath(at, o.Path)})
		}
		sc, errs := derive(plain, nil, these, "")
		if errs != nil {
			v.errs = append(v.errs, errs...)
			continue
		}
		if what := sameNames(plain, sc); what != "" {
			v.addf(at, "cell %q changes %s; expected the same names in every cell (change their settings instead)", c.Name, what)
			continue
		}
		for j, d := range plain.Topology.Dependencies {
			if (d.Shared || sc.Topology.Dependencies[j].Shared) && !reflect.DeepEqual(d, sc.Topology.Dependencies[j]) {
				v.addf(at, "cell %q changes dependency %q, which every cell shares; expected a per-cell dependency (no shared), or the change in the topology", c.Name, d.Name)
			}
		}
	}
}

// failover checks an arm's failover policy.
func (v *validator) failover(p string, f *FailoverPolicy) {
	if !oneOf(f.Mode, FailoverHealth, FailoverGrant) {
		v.addf(p+".mode", "unknown failover mode %q; expected health or grant", f.Mode)
	}
	if f.Signal != "" && !oneOf(f.Signal, SignalSuccessRate, SignalHealthyInstances) {
		v.addf(p+".signal", "unknown health signal %q; expected success_rate or healthy_instances", f.Signal)
	}
	if !(f.Below > 0) {
		v.addf(p+".below", "below is %s; expected the share under which a cell is unhealthy, e.g. 90%%", f.Below)
	}
	switch {
	case f.Window < 0:
		v.addf(p+".window", "window is %s; expected zero (30s) or more", f.Window)
	case f.Window > 0 && f.Window.Std() < v.tick:
		v.addf(p+".window", "window %s is shorter than a tick (%s); expected at least a tick", f.Window, Duration(v.tick))
	case f.Window > 0 && f.Window.Std() > 10_000*v.tick:
		v.addf(p+".window", "window %s is more than 10000 ticks; expected a shorter window", f.Window)
	}
	if f.For < 0 {
		v.addf(p+".for", "for is %s; expected zero or more", f.For)
	}
	if f.Hold < 0 {
		v.addf(p+".hold", "hold is %s; expected zero (1m) or more", f.Hold)
	}
	if f.Share < 0 {
		v.addf(p+".share", "share is %s; expected a share of the cell's requests above 0 (or omit it for 100%%)", f.Share)
	}
	if f.Mode != FailoverGrant {
		if f.Headroom != 0 {
			v.addf(p+".headroom", "headroom is the grant's; expected mode: grant or no headroom")
		}
		if f.Beyond != "" {
			v.addf(p+".beyond", "beyond is the grant's; expected mode: grant or no beyond")
		}
	}
	if f.Headroom >= 1 {
		v.addf(p+".headroom", "headroom is %s; expected less than 100%% of the warm capacity kept back", f.Headroom)
	}
	if f.Beyond != "" && !oneOf(f.Beyond, GrantOrigin, GrantReject) {
		v.addf(p+".beyond", "unknown beyond %q; expected origin or reject", f.Beyond)
	}
}
