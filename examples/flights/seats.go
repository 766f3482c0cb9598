package flights

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Every plane has the same simple cabin: rows 1 to Rows, seats lettered
// by Letters in each row, so a seat that is not on the plane ("31Z") is
// refused by rule rather than by a seat map per aircraft.
const (
	Rows     = 30
	Letters  = "ABCDEF"
	Capacity = Rows * len(Letters)
)

// NormalizeSeat returns seat as the catalogue writes it ("14a" and " 14A"
// are "14A"), or NoSuchSeat if no plane has it.
func NormalizeSeat(seat string) (string, error) {
	s := strings.ToUpper(strings.TrimSpace(seat))
	if row, letter, ok := parseSeat(s); ok {
		return seatName(row, letter), nil
	}
	return "", Errorf(NoSuchSeat, "Seat %q is not on the plane: seats are rows 1–%d, letters %c–%c.",
		seat, Rows, Letters[0], Letters[len(Letters)-1])
}

// parseSeat splits an upper-case seat name into its row and the index of
// its letter in Letters.
func parseSeat(s string) (row, letter int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	letter = strings.IndexByte(Letters, s[len(s)-1])
	digits := s[:len(s)-1]
	if letter < 0 || strings.Trim(digits, "0123456789") != "" {
		return 0, 0, false
	}
	row, err := strconv.Atoi(digits)
	if err != nil || row < 1 || row > Rows {
		return 0, 0, false
	}
	return row, letter, true
}

func seatName(row, letter int) string { return strconv.Itoa(row) + string(Letters[letter]) }

// SortSeats sorts seats front to back, each row by letter.
func SortSeats(seats []string) { slices.SortFunc(seats, compareSeats) }

// compareSeats orders seats front to back, then by letter.
func compareSeats(a, b string) int {
	ra, la, _ := parseSeat(a)
	rb, lb, _ := parseSeat(b)
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(la, lb))
}

// SeatsFor returns the free seats of f, front to back. Which seats were
// free before the catalogue booked any follows from the flight's ID — the
// same ID, the same seats — so a catalogue records only its own bookings
// (f.Booked), and SeatsFor leaves those out.
func SeatsFor(f Flight) []string {
	n := min(max(f.SeatsLeft+len(f.Booked), 0), Capacity)
	type ranked struct {
		seat string
		rank uint64
	}
	all := make([]ranked, 0, Capacity)
	for row := 1; row <= Rows; row++ {
		for letter := range len(Letters) {
			seat := seatName(row, letter)
			all = append(all, ranked{seat, hash(f.ID + "/" + seat)})
		}
	}
	// The n seats of lowest rank were free; the rest were sold before the
	// catalogue opened.
	slices.SortFunc(all, func(a, b ranked) int { return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.seat, b.seat)) })
	free := make([]string, 0, n)
	for _, r := range all[:n] {
		if !slices.Contains(f.Booked, r.seat) {
			free = append(free, r.seat)
		}
	}
	slices.SortFunc(free, compareSeats)
	return free
}
