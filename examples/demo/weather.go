package demo

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
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
	lat, lng   float64
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

// GetLocalWeather tells the weather where the user is: it asks the device
// for its location (the browser's geolocation; "lat,lng" at the terminal).
var GetLocalWeather = agents.NewTool(Weather, "getLocalWeather", "Tell the weather here, where the user is now",
	func(ctx context.Context, _ struct{}) (string, error) {
		res, err := turn.Ask(ctx, elicit.LocateDevice, "May I see where you are, to tell the weather there?", elicit.LocationInput{Accuracy: "low"})
		if err != nil {
			return "", err
		}
		if res.Action != elicit.Accept {
			return outcome(res.Action, "without your location I can't tell the weather where you are. Name a city and I will."), nil
		}
		return weatherAt(res.Content).String(), nil
	})

// weatherTable holds the places the demo knows by name, with where they
// are, so that a device's location finds the nearest.
var weatherTable = map[string]CityWeather{
	"tokyo":     {"Tokyo", "light rain", 17, 12, 35.68, 139.69},
	"osaka":     {"Osaka", "cloudy", 18, 13, 34.69, 135.50},
	"oslo":      {"Oslo", "snow showers", 1, -4, 59.91, 10.75},
	"paris":     {"Paris", "sunny spells", 14, 7, 48.86, 2.35},
	"london":    {"London", "overcast", 12, 8, 51.51, -0.13},
	"lisbon":    {"Lisbon", "sunny", 21, 14, 38.72, -9.14},
	"new york":  {"New York", "clear", 9, 2, 40.71, -74.01},
	"sydney":    {"Sydney", "sunny", 26, 18, -33.87, 151.21},
	"reykjavik": {"Reykjavik", "windy with sleet", 3, -1, 64.15, -21.94},
}

// weatherAt tells the weather at a point: that of the nearest place the
// table knows, when it is within 100 km; else one made from the point.
func weatherAt(l elicit.Location) CityWeather {
	best, dist := CityWeather{}, math.Inf(1)
	for _, w := range weatherTable {
		if d := kilometres(l.Lat, l.Lng, w.lat, w.lng); d < dist {
			best, dist = w, d
		}
	}
	if dist <= 100 {
		best.City = fmt.Sprintf("%s (%.4f, %.4f)", best.City, l.Lat, l.Lng)
		return best
	}
	return weatherOf(fmt.Sprintf("%.4f, %.4f", l.Lat, l.Lng))
}

// kilometres is the great-circle distance between two points.
func kilometres(lat1, lng1, lat2, lng2 float64) float64 {
	const r = 6371
	rad := math.Pi / 180
	dlat, dlng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlng/2)*math.Sin(dlng/2)
	return 2 * r * math.Asin(math.Sqrt(a))
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
