package demo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
)

func TestTheWeatherOfANamedPlace(t *testing.T) {
	tests := []struct{ city, want string }{
		{"Tokyo", "The weather in Tokyo today: light rain, 17°C at most and 12°C at least."},
		{"osaka", "The weather in Osaka today: cloudy, 18°C at most and 13°C at least."},
	}
	for _, tt := range tests {
		w, err := demo.GetWeather.Call(t.Context(), demo.WeatherQuery{City: tt.city})
		if err != nil || w.String() != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.city, w.String(), err, tt.want)
		}
	}
	// A place the table does not hold has a forecast all the same, the same each time.
	a, _ := demo.GetWeather.Call(t.Context(), demo.WeatherQuery{City: "Tromsø"})
	b, _ := demo.GetWeather.Call(t.Context(), demo.WeatherQuery{City: "Tromsø"})
	if a != b || a.City != "Tromsø" || a.Conditions == "" {
		t.Errorf("an unknown place: %+v then %+v", a, b)
	}
	if _, err := demo.GetWeather.Call(t.Context(), demo.WeatherQuery{City: " "}); err == nil {
		t.Error("no city: no error")
	}
}

// The weather here asks for the device's location and answers for the
// nearest known place; a refusal is a sentence, not a failure.
func TestTheWeatherHere(t *testing.T) {
	answer := func(resp elicit.Response) context.Context {
		return primitive.Provide(t.Context(), middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
			if req.Kind != elicit.LocateDevice.Name {
				t.Errorf("asked a %s question, want the location", req.Kind)
			}
			return resp, nil
		})
	}
	at := func(lat, lng float64) elicit.Response {
		c, _ := json.Marshal(elicit.Location{Lat: lat, Lng: lng, Accuracy: 30})
		return elicit.Response{Action: elicit.Accept, Content: c}
	}
	tests := []struct {
		name string
		resp elicit.Response
		want string
	}{
		{"in Tokyo", at(35.6595, 139.7005), "The weather in Tokyo (35.6595, 139.7005) today: light rain"},
		{"far from any known place", at(-10, -140), "The weather in -10.0000, -140.0000 today:"},
		{"refused", elicit.Response{Action: elicit.Denied}, "Permission was refused — without your location I can't tell the weather where you are."},
		{"declined", elicit.Response{Action: elicit.Decline}, "You declined — without your location"},
	}
	for _, tt := range tests {
		got, err := demo.GetLocalWeather.Call(answer(tt.resp), struct{}{})
		if err != nil || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, %v; want it to begin %q", tt.name, got, err, tt.want)
		}
	}
}
