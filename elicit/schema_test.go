package elicit

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

type trip struct {
	Destination string   `json:"destination" desc:"The city" min:"2" max:"80"`
	Travellers  int      `json:"travellers" min:"1" max:"9" default:"2"`
	Cabin       string   `json:"cabin" title:"Cabin class" enum:"economy,premium,business" default:"economy"`
	Hotel       bool     `json:"hotel"`
	Budget      float64  `json:"budget,omitempty" min:"0"`
	Extras      []string `json:"extras,omitempty" enum:"wifi,meals" max:"2"`
	Notes       *string  `json:"notes" format:"multiline"`
	TravelDate  string   `json:"travel_date,omitempty"`
	HotelURL    string   `json:"hotel_url,omitempty"`
	internal    int
	Skipped     string `json:"-"`
}

func TestSchemaFromGoType(t *testing.T) {
	s := MustSchemaFor[trip]()
	if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
		t.Fatalf("want a closed object, got %+v", s)
	}
	wantOrder := []string{"destination", "travellers", "cabin", "hotel", "budget", "extras", "notes", "travel_date", "hotel_url"}
	if !slices.Equal(s.Order, wantOrder) {
		t.Errorf("order = %v, want %v", s.Order, wantOrder)
	}
	if want := []string{"destination"}; !slices.Equal(s.Required, want) {
		t.Errorf("required = %v, want %v (omitempty, pointers, bools and fields with a default are optional)", s.Required, want)
	}
	p := s.Properties
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"destination type", p["destination"].Type, "string"},
		{"destination description", p["destination"].Description, "The city"},
		{"destination minLength", *p["destination"].MinLength, 2},
		{"destination maxLength", *p["destination"].MaxLength, 80},
		{"travellers type", p["travellers"].Type, "integer"},
		{"travellers minimum", *p["travellers"].Minimum, 1.0},
		{"travellers maximum", *p["travellers"].Maximum, 9.0},
		{"travellers default", p["travellers"].Default, int64(2)},
		{"travellers title", p["travellers"].Title, "Travellers"},
		{"cabin title", p["cabin"].Title, "Cabin class"},
		{"cabin enum", p["cabin"].Enum, []string{"economy", "premium", "business"}},
		{"cabin default", p["cabin"].Default, "economy"},
		{"hotel type", p["hotel"].Type, "boolean"},
		{"budget type", p["budget"].Type, "number"},
		{"extras type", p["extras"].Type, "array"},
		{"extras items enum", p["extras"].Items.Enum, []string{"wifi", "meals"}},
		{"extras maxItems", *p["extras"].MaxItems, 2},
		{"notes format", p["notes"].Format, "multiline"},
		{"travel_date title", p["travel_date"].Title, "Travel date"},
		{"hotel_url title", p["hotel_url"].Title, "Hotel URL"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestSchemaIsValidJSONSchema(t *testing.T) {
	raw, err := json.Marshal(MustSchemaFor[trip]())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	props := m["properties"].(map[string]any)
	if props["travellers"].(map[string]any)["maximum"] != 9.0 || props["destination"].(map[string]any)["maxLength"] != 80.0 {
		t.Errorf("JSON Schema keywords missing: %s", raw)
	}
	if m["additionalProperties"] != false {
		t.Errorf("additionalProperties = %v, want false", m["additionalProperties"])
	}
}

func TestSchemaRejectsWhatItCannotDescribe(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	type badDefault struct {
		N int `json:"n" default:"many"`
	}
	type self struct {
		Next *self `json:"next"`
	}
	for name, typ := range map[string]reflect.Type{
		"channel":     reflect.TypeFor[withChan](),
		"bad default": reflect.TypeFor[badDefault](),
		"recursive":   reflect.TypeFor[self](),
	} {
		if _, err := SchemaOf(typ); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestHumanize(t *testing.T) {
	for in, want := range map[string]string{
		"Name": "Name", "TravelDate": "Travel date", "HotelURL": "Hotel URL", "ID": "ID", "MaxSeatsPerRow": "Max seats per row",
	} {
		if got := humanize(in); got != want {
			t.Errorf("humanize(%q) = %q, want %q", in, got, want)
		}
	}
}
