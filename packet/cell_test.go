package packet

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFailoverEvent: a failover event names its cell and its move in events.jsonl's
// cell and to fields, and the strict reader reads them back; other events carry neither.
func TestFailoverEvent(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: 10 * time.Second})
	r.Failover(2*time.Second, "eu-west", FailoverOut, "eu-west: fails over 100% of its traffic")
	r.Annotate(3*time.Second, "fault", "db slows")
	r.Failover(7*time.Second, "eu-west", FailoverBack, "eu-west: fails back")
	a := r.Finish(nil)
	var b bytes.Buffer
	if err := WriteEventsJSONL(&b, a); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, want := range []string{`"to":"out","cell":"eu-west"}`, `"text":"db slows"}`, `"to":"back","cell":"eu-west"}`} {
		if i >= len(lines) || !strings.HasSuffix(lines[i], want) {
			t.Fatalf("events.jsonl:\n%s\nwant line %d to end %s", b.String(), i+1, want)
		}
	}
	p := &Packet{Arms: []Arm{{Name: "a"}}}
	if err := readEvents(p, &b, EventsFile); err != nil {
		t.Fatal(err)
	}
	if got := p.Arms[0].Events; !reflect.DeepEqual(got, a.Events) {
		t.Errorf("read back %+v\nwant %+v", got, a.Events)
	}
	if e := p.Arms[0].Events[2]; e.Kind != "failover" || e.Cell != "eu-west" || e.To != FailoverBack {
		t.Errorf("fail-back event %+v", e)
	}
}
