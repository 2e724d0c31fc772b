package yamlfile_test

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/yamlfile"
)

func ExampleUnmarshal() {
	var cfg struct {
		Name    string        `yaml:"name"`
		Timeout time.Duration `yaml:"timeout"`
		Retries int           `yaml:"retries"`
	}
	src := "name: api\ntimeuot: 2s\nretries: three\n"
	err := yamlfile.Unmarshal("svc.yaml", []byte(src), &cfg)
	fmt.Println(err)
	// Output:
	// svc.yaml:2:1: unknown key "timeuot"; did you mean "timeout"?
	// svc.yaml:3:10: retries: got the text "three"; expected a whole number
}

// budget reports a semantic problem by YAML path; Unmarshal places it.
type budget struct {
	Ratio float64       `yaml:"ratio"`
	TTL   time.Duration `yaml:"ttl"`
}

func (b *budget) Validate() error {
	var errs yamlfile.Errors
	if b.Ratio > 0.1 {
		errs.Addf("$.ratio", "ratio %v is high; expected at most 0.1", b.Ratio)
	}
	if b.TTL <= 0 {
		errs.Addf("$.ttl", "missing; expected a positive duration, e.g. 10s")
	}
	return errs.Err()
}

func ExampleErrors() {
	var b budget
	err := yamlfile.Unmarshal("budget.yaml", []byte("ratio: 0.2\n"), &b)
	fmt.Println(err)
	// Output:
	// budget.yaml:1:1: ttl: missing; expected a positive duration, e.g. 10s
	// budget.yaml:1:8: ratio: ratio 0.2 is high; expected at most 0.1
}

// A format with rules of its own: times only in UTC, nulls left for a later
// check, and positions kept to point at values afterwards.
func ExampleDecoder_Decode() {
	var doc struct {
		ID string    `yaml:"id"`
		At time.Time `yaml:"at"`
	}
	dec := yamlfile.Decoder{
		Document: "incident",
		Nulls:    yamlfile.NullsZero,
		Scalar: func(s yamlfile.Scalar) (any, error) {
			if s.Type == reflect.TypeFor[time.Time]() && !strings.HasSuffix(s.Text, "Z") {
				return nil, fmt.Errorf("%q is not in UTC; expected a time ending in Z", s.Text)
			}
			return nil, nil // the default rules
		},
	}
	_, err := dec.Decode("a.incident.yaml", []byte("id:\nat: 2026-09-12T11:47:00+02:00\n"), &doc)
	fmt.Println(err)

	pos, err := dec.Decode("b.incident.yaml", []byte("id: INC-1\nat: 2026-09-12T09:47:00Z\n"), &doc)
	line, col := pos.Value("$.at")
	fmt.Println(doc.ID, doc.At.Format(time.Kitchen), "written at", line, col, err)
	// Output:
	// a.incident.yaml:2:5: at: "2026-09-12T11:47:00+02:00" is not in UTC; expected a time ending in Z
	// INC-1 9:47AM written at 2 5 <nil>
}

func ExampleSuggest() {
	fmt.Printf("%q\n", yamlfile.Suggest("durration", []string{"start", "duration", "tick"}))
	fmt.Printf("%q\n", yamlfile.Suggest("colour", []string{"start", "duration", "tick"}))
	// Output:
	// "duration"
	// ""
}
