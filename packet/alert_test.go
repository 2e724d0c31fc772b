package packet

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// alertArm records rules that never fire, fire and clear twice (a flap), and fire and
// stay firing.
func alertArm() Arm {
	r := NewRecorder(Config{Arm: "baseline", Tick: time.Second, Duration: 10 * time.Second,
		Start: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), Alerts: []string{"quiet", "flapping", "stuck"}})
	r.Offered(0, "c")
	r.AlertFired(2*time.Second, 1, "flapping fired: queue_age 900ms")
	r.AlertFired(3*time.Second, 2, "stuck fired: success_rate 80.0%")
	r.AlertCleared(4*time.Second, 1, "flapping resolved")
	r.AlertFired(6*time.Second, 1, "flapping fired: queue_age 950ms")
	r.AlertCleared(8500*time.Millisecond, 1, "flapping resolved")
	r.AlertCleared(9*time.Second, 0, "quiet resolved") // not firing: only annotated
	return r.Finish(nil)
}

func dur(d time.Duration) *time.Duration { return &d }

func TestAlertResults(t *testing.T) {
	a := alertArm()
	want := []Alert{
		{Name: "quiet"},
		{Name: "flapping", FirstFired: dur(2 * time.Second), Flaps: 1, Cleared: dur(8500 * time.Millisecond)},
		{Name: "stuck", FirstFired: dur(3 * time.Second)},
	}
	if !reflect.DeepEqual(a.Alerts, want) {
		t.Errorf("alerts %+v, want %+v", a.Alerts, want)
	}
	n := 0
	for _, e := range a.Events {
		if e.Kind == "alert" {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d alert events, want 6", n)
	}
	if b := NewRecorder(Config{Tick: time.Second}).Finish(nil); b.Alerts != nil {
		t.Errorf("alerts %v without rules", b.Alerts)
	}
}

// TestAlertsRoundTrip writes the alerts to packet.json (times in seconds, null for never)
// and reads them back exactly; an unknown key in an alert is refused.
func TestAlertsRoundTrip(t *testing.T) {
	p := &Packet{Scenario: "alerts", Seed: 1, Arms: []Arm{alertArm()}}
	files := rewrite(t, p)
	js := files[JSONFile]
	for _, key := range []string{`"alerts": [`, `"name": "quiet",`, `"first_fired": null`, `"first_fired": 2,`,
		`"flaps": 1,`, `"cleared": 8.5`, `"cleared": null`} {
		if !bytes.Contains(js, []byte(key)) {
			t.Errorf("packet.json lacks %s:\n%s", key, js)
		}
	}
	back, err := decodeBytes(js, files[SeriesFile], files[EventsFile])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Arms[0].Alerts, p.Arms[0].Alerts) {
		t.Errorf("read back %+v, want %+v", back.Arms[0].Alerts, p.Arms[0].Alerts)
	}
	if again := rewrite(t, back); !bytes.Equal(again[JSONFile], js) {
		t.Error("packet.json read and written again differs")
	}
	bad := bytes.Replace(js, []byte(`"flaps": 1,`), []byte(`"flaps": 1, "fired": 2,`), 1)
	if _, err := decodeBytes(bad, files[SeriesFile], files[EventsFile]); err == nil || !strings.Contains(err.Error(), "fired") {
		t.Errorf("an unknown key in an alert: %v", err)
	}
	noAlerts := &Packet{Scenario: "none", Arms: []Arm{NewRecorder(Config{Tick: time.Second, Duration: time.Second}).Finish(nil)}}
	if js := rewrite(t, noAlerts)[JSONFile]; bytes.Contains(js, []byte(`"alerts"`)) {
		t.Error("packet.json of an arm without rules has alerts")
	}
}
