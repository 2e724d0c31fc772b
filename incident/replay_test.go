package incident

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadPacketTyped checks that the claim environment, built from the typed packet, holds
// every arm field of the committed packet.json under its JSON name with the file's value.
func TestReadPacketTyped(t *testing.T) {
	path := filepath.Join("..", "examples", "northstar", "packet", "packet.json")
	env, err := ReadPacket(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, a := range raw["arms"].([]any) {
		arm := a.(map[string]any)
		name := arm["name"].(string)
		if got := env[name]; !reflect.DeepEqual(got, arm) {
			t.Errorf("arm %s in the environment differs from packet.json", name)
		}
	}
	if env["scenario"] != raw["scenario"] || env["seed"] != raw["seed"] {
		t.Errorf("scenario %v seed %v, want %v %v", env["scenario"], env["seed"], raw["scenario"], raw["seed"])
	}
}

func TestReadPacketErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "packet.json")
	if err := os.WriteFile(path, []byte("{\"scenario\": \"x\", \"seed\": 1,\n  \"colour\": 2, \"arms\": []}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPacket(path); err == nil || !strings.Contains(err.Error(), path+`:2:3: unknown field "colour"`) {
		t.Errorf("unknown field: %v", err)
	}
}
