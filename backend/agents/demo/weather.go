package demo

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/sweatpants-go/sweatpants/backend/agents"
)

// The weather agent answers for a named place from a built-in table, so
// that its answers are the same on every machine and in every test. A
// place the table does not hold gets a forecast made from its name: the
// same name, the same forecast.
var Weather = agents.New("weather", "Tells the weather of a place.")

// CityWeather is a place's weather as the weather agent tells it.
type CityWeather struct {
	City       string `json:"city"`
	Conditions string `json:"conditions"`
	CelsiusMax int    `json:"celsius_max"`
	CelsiusMin int    `json:"celsius_min"`
}

// WeatherQuery names the place to tell the weather of.
type WeatherQuery struct {
	City string `json:"city" title:"City" desc:"The city or place, e.g. Tokyo" min:"1" max:"80"`
}

// GetWeather tells the weather of a named place.
var GetWeather = agents.NewTool(Weather, "getWeather", "Tell the weather today in a named city or place",
	func(ctx context.Context, q WeatherQuery) (CityWeather, error) {
		city := strings.TrimSpace(q.City)
		if city == "" {
			return CityWeather{}, fmt.Errorf("name the city to tell the weather of")
		}
		return weatherOf(city), nil
	})

// weatherTable holds the places the demo knows by name.
var weatherTable = map[string]CityWeather{
	"tokyo":     {"Tokyo", "light rain", 17, 12},
	"osaka":     {"Osaka", "cloudy", 18, 13},
	"oslo":      {"Oslo", "snow showers", 1, -4},
	"paris":     {"Paris", "sunny spells", 14, 7},
	"london":    {"London", "overcast", 12, 8},
	"lisbon":    {"Lisbon", "sunny", 21, 14},
	"new york":  {"New York", "clear", 9, 2},
	"sydney":    {"Sydney", "sunny", 26, 18},
	"reykjavik": {"Reykjavik", "windy with sleet", 3, -1},
}

var conditions = []string{"sunny", "cloudy", "light rain", "clear", "windy", "sunny spells"}

func weatherOf(city string) CityWeather {
	if w, ok := weatherTable[strings.ToLower(city)]; ok {
		return w
	}
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(city)))
	n := int(h.Sum32())
	max := 5 + n%25
	return CityWeather{City: city, Conditions: conditions[n%len(conditions)], CelsiusMax: max, CelsiusMin: max - 4 - n%5}
}

// String words the weather for a reply.
func (w CityWeather) String() string {
	return fmt.Sprintf("The weather in %s today: %s, %d°C at most and %d°C at least.", w.City, w.Conditions, w.CelsiusMax, w.CelsiusMin)
}
