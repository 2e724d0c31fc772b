package incident

import (
	"encoding/json"
	"testing"
)

func TestSchema(t *testing.T) {
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Type        string `json:"type"`
		Format      string `json:"format"`
		Ref         string `json:"$ref"`
		Description string `json:"description"`
		Enum        []string
	}
	var s struct {
		Ref  string `json:"$ref"`
		Defs map[string]struct {
			Properties           map[string]prop `json:"properties"`
			AdditionalProperties *bool           `json:"additionalProperties"`
			Required             []string        `json:"required"`
			Type                 string          `json:"type"`
			Format               string          `json:"format"`
			Description          string          `json:"description"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Ref != "#/$defs/Document" {
		t.Errorf("$ref = %q", s.Ref)
	}
	doc := s.Defs["Document"]
	if doc.AdditionalProperties == nil || *doc.AdditionalProperties {
		t.Error("Document allows additional properties; the decoder does not")
	}
	for key := range map[string]bool{"time_zone": true, "root_cause": true, "went_well": true, "milestones": true, "claims": true} {
		if _, ok := doc.Properties[key]; !ok {
			t.Errorf("Document has no property %q (property names must be the YAML keys)", key)
		}
	}
	if d := doc.Properties["time_zone"].Description; d != "TimeZone is the IANA name of the zone times are displayed in (e.g. Europe/Dublin). The zero value \"\" means UTC." {
		t.Errorf("time_zone description = %q", d)
	}
	if d := s.Defs["Document"].Properties["went_wrong"].Description; d == "" {
		t.Error("a field documented by the comment of its group has no description")
	}
	if at := s.Defs["Milestone"].Properties["at"]; at.Type != "string" || at.Format != "date-time" {
		t.Errorf("Milestone.at = %+v, want a date-time string", at)
	}
	if date := s.Defs["Date"]; date.Type != "string" || date.Format != "date" {
		t.Errorf("Date = %+v, want a date string", date)
	}
	if st := s.Defs["ActionItem"].Properties["status"].Enum; len(st) != 5 {
		t.Errorf("ActionItem.status enum = %v", st)
	}
	// Every key the decoder accepts is in the schema, and no other.
	for _, name := range []string{"Document", "Milestone", "Figure", "Series", "Entry", "ActionItem", "Decision", "Replay", "Claim"} {
		def, ok := s.Defs[name]
		if !ok {
			t.Errorf("no definition for %s", name)
		}
		if def.AdditionalProperties == nil || *def.AdditionalProperties {
			t.Errorf("%s allows additional properties", name)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	doc := loadIncident(b, "payment-timeout")
	b.ReportAllocs()
	for b.Loop() {
		Check(doc)
	}
}

func BenchmarkDecode(b *testing.B) {
	doc := loadIncident(b, "payment-timeout")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode("x.yaml", doc.src); err != nil {
			b.Fatal(err)
		}
	}
}
