package flights

import (
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// SeedDays is how many days of departures Seed lays out.
const SeedDays = 60

// Seed returns the catalogue the app starts with: SeedDays days of
// departures from from's day (UTC) on, between twelve cities of Europe,
// New York and Asia, in the order of departure day, route and time. It
// depends on nothing but from's day: the same day, the same catalogue,
// byte for byte — so tests and screenshots can rely on it, and so a
// catalogue can derive which seats were free from a flight's ID alone.
//
// Every route has two to four departures each way every day; the third
// and fourth do not fly on Saturdays, and only they are ever full, so a
// traveller finds at least two flights with seats on any route and day.
func Seed(from time.Time) []Flight {
	y, m, d := from.UTC().Date()
	first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	scheduled := schedule()
	var out []Flight
	for day := range SeedDays {
		date := first.AddDate(0, 0, day)
		for _, s := range scheduled {
			if s.slot >= 2 && date.Weekday() == time.Saturday {
				continue
			}
			out = append(out, s.flight(date, day))
		}
	}
	return out
}

// cities names the airports the catalogue flies between.
var cities = map[string]string{
	"OSL": "Oslo", "ARN": "Stockholm", "CPH": "Copenhagen", "LHR": "London",
	"CDG": "Paris", "AMS": "Amsterdam", "FRA": "Frankfurt", "LIS": "Lisbon",
	"JFK": "New York", "HND": "Tokyo", "KIX": "Osaka", "SIN": "Singapore",
}

// carriers are the airlines, each with the first of the flight numbers
// Seed gives it.
var carriers = map[string]struct {
	name  string
	first int
}{
	"SK": {"SAS", 401}, "DY": {"Norwegian", 1301}, "BA": {"British Airways", 301},
	"AF": {"Air France", 1001}, "KL": {"KLM", 1101}, "LH": {"Lufthansa", 901},
	"TP": {"TAP Air Portugal", 501}, "JL": {"Japan Airlines", 41}, "NH": {"ANA", 201},
	"SQ": {"Singapore Airlines", 301}, "DL": {"Delta", 401}, "UA": {"United", 901},
}

// route is a pair of airports flown both ways: minutes in the air each
// way, the airlines that fly it (taking turns by departure), the usual
// fare in euros and the departures each way a day.
type route struct {
	a, b      string
	out, back int
	airlines  string
	fare      int
	daily     int
}

// routes are the catalogue's routes, in the order flight numbers are
// given out. Times in the air are those of today's direct flights, or
// plausible ones where nobody flies direct (Oslo–Tokyo, Oslo–Osaka).
var routes = []route{
	{"OSL", "ARN", 60, 60, "SK DY", 89, 4},
	{"OSL", "CPH", 70, 70, "SK DY", 95, 4},
	{"OSL", "LHR", 130, 125, "SK BA DY", 139, 4},
	{"OSL", "CDG", 150, 145, "AF SK", 149, 3},
	{"OSL", "AMS", 120, 115, "KL SK", 129, 3},
	{"OSL", "FRA", 130, 125, "LH SK", 135, 3},
	{"ARN", "CPH", 70, 70, "SK", 89, 4},
	{"ARN", "LHR", 155, 150, "BA SK", 145, 3},
	{"ARN", "FRA", 135, 130, "LH SK", 139, 3},
	{"ARN", "CDG", 160, 155, "AF SK", 149, 2},
	{"CPH", "LHR", 115, 110, "BA SK", 129, 4},
	{"CPH", "CDG", 120, 115, "AF SK", 135, 3},
	{"CPH", "AMS", 85, 85, "KL SK", 109, 3},
	{"CPH", "FRA", 90, 90, "LH SK", 115, 3},
	{"LHR", "CDG", 75, 80, "BA AF", 99, 4},
	{"LHR", "AMS", 75, 70, "BA KL", 95, 4},
	{"LHR", "FRA", 95, 100, "LH BA", 119, 4},
	{"LHR", "LIS", 160, 150, "TP BA", 129, 3},
	{"CDG", "AMS", 80, 80, "AF KL", 99, 4},
	{"CDG", "FRA", 75, 75, "AF LH", 105, 3},
	{"CDG", "LIS", 145, 140, "TP AF", 119, 3},
	{"AMS", "FRA", 70, 70, "KL LH", 99, 3},
	{"AMS", "LIS", 170, 165, "TP KL", 135, 2},
	{"FRA", "LIS", 180, 175, "TP LH", 139, 2},
	{"JFK", "LHR", 415, 480, "BA DL UA", 449, 4},
	{"JFK", "CDG", 430, 500, "AF DL", 469, 3},
	{"JFK", "AMS", 435, 505, "KL DL", 459, 2},
	{"JFK", "FRA", 475, 530, "LH UA", 479, 2},
	{"JFK", "OSL", 455, 510, "SK DY", 429, 2},
	{"JFK", "HND", 840, 770, "JL NH UA", 899, 2},
	{"OSL", "HND", 765, 815, "SK JL", 749, 3},
	{"OSL", "KIX", 775, 830, "SK JL", 779, 2},
	{"LHR", "HND", 830, 880, "BA JL NH", 799, 3},
	{"LHR", "KIX", 820, 870, "JL BA", 829, 2},
	{"CDG", "HND", 820, 865, "AF JL NH", 789, 3},
	{"CDG", "KIX", 800, 850, "AF JL", 819, 2},
	{"FRA", "HND", 790, 840, "LH NH", 769, 2},
	{"AMS", "HND", 800, 850, "KL JL", 779, 2},
	{"CPH", "HND", 775, 825, "SK NH", 759, 2},
	{"LHR", "SIN", 800, 835, "SQ BA", 689, 3},
	{"FRA", "SIN", 735, 770, "SQ LH", 659, 2},
	{"CDG", "SIN", 775, 805, "SQ AF", 679, 2},
	{"AMS", "SIN", 760, 790, "KL SQ", 669, 2},
	{"SIN", "HND", 415, 445, "SQ JL NH", 349, 3},
	{"SIN", "KIX", 390, 420, "SQ JL", 329, 2},
	{"HND", "KIX", 80, 80, "JL NH", 119, 4},
}

// scheduled is one daily departure: a flight number on a route, one way.
type scheduled struct {
	airline, number string
	from, to        string
	departs         time.Duration // after midnight UTC
	minutes         int
	fare            int
	slot            int // the departure's place in its route's day, from 0
}

// schedule returns every daily departure, numbering each airline's
// flights in the order of routes.
func schedule() []scheduled {
	next := map[string]int{}
	var out []scheduled
	for _, r := range routes {
		for way, leg := range []struct {
			from, to string
			minutes  int
		}{{r.a, r.b, r.out}, {r.b, r.a, r.back}} {
			airlines := strings.Fields(r.airlines)
			// Departures spread from 05:30 to 20:30 UTC; each route and
			// direction shifted by up to 50 minutes, so that they differ.
			shift := time.Duration(hash(leg.from+leg.to)%11) * 5 * time.Minute
			for slot := range r.daily {
				code := airlines[(slot+way)%len(airlines)]
				n := carriers[code].first + next[code]
				next[code]++
				out = append(out, scheduled{
					airline: code, number: code + strconv.Itoa(n), from: leg.from, to: leg.to,
					departs: 5*time.Hour + 30*time.Minute + shift + time.Duration(slot)*15*time.Hour/time.Duration(r.daily-1),
					minutes: leg.minutes, fare: r.fare, slot: slot,
				})
			}
		}
	}
	return out
}

// flight returns s's departure on date, day days after the catalogue's
// first. Its price and seats left follow from its ID and the day.
func (s scheduled) flight(date time.Time, day int) Flight {
	departs := date.Add(s.departs.Truncate(5 * time.Minute))
	id := s.number + "-" + date.Format(time.DateOnly)
	h := hash(id)
	return Flight{
		ID: id, Airline: carriers[s.airline].name, Number: s.number,
		From: cities[s.from], FromCode: s.from, To: cities[s.to], ToCode: s.to,
		Departs: departs, Arrives: departs.Add(time.Duration(s.minutes) * time.Minute),
		Price: price(s.fare, date.Weekday(), day, h), Currency: "EUR",
		SeatsLeft: seatsLeft(s.slot, h),
	}
}

// price is a fare in cents as airlines set it: dearer close to the day,
// and on Fridays and Sundays, cheaper midweek, give or take 12%, and
// ending in 9. Integers only, so it is the same on every machine.
func price(fare int, wd time.Weekday, day int, h uint64) int {
	soon := 100
	switch {
	case day < 7:
		soon = 135
	case day < 21:
		soon = 112
	}
	week := 100
	switch wd {
	case time.Friday, time.Sunday:
		week = 115
	case time.Tuesday, time.Wednesday:
		week = 90
	}
	jitter := 88 + int(h>>20%25)
	euros := fare * soon * week * jitter / 1_000_000
	return max((euros+5)/10*10-1, 29) * 100
}

// seatsLeft is how many seats of a departure are for sale: most have
// plenty, a quarter fewer than ten, and a few of the later departures of
// a day none.
func seatsLeft(slot int, h uint64) int {
	p, r := h%100, int(h>>8)
	switch {
	case slot >= 2 && p < 4:
		return 0
	case p < 25:
		return 1 + r%9
	}
	return 10 + r%51
}

// hash is a well-mixed 64-bit hash of s: FNV-1a, whose bits follow the
// last bytes of s too closely for near-alike IDs, then the finalizer of
// SplitMix64 to spread them.
func hash(s string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(s))
	h := f.Sum64()
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}
