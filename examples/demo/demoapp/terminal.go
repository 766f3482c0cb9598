package demoapp

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the photos a user gives
	_ "image/png"
	"io"
	"os"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// promptFlight asks the demo's flight kind at the terminal: the flights as
// a numbered list, then the free seats of the one picked.
func promptFlight(q *terminal.Question) (elicit.Response, error) {
	var offer demo.FlightOffer
	if err := q.Input(&offer); err != nil {
		return elicit.Response{}, err
	}
	flights := make([]string, len(offer.Flights))
	for i, f := range offer.Flights {
		flights[i] = fmt.Sprintf("%s  %s  %s %s → %s %s  €%d  (%d free)",
			f.ID, f.Airline, f.From, f.Departs, f.To, f.Arrives, f.Price, len(f.Seats))
	}
	i, err := q.Pick("Flight", flights)
	if err != nil {
		return elicit.Response{}, err
	}
	f := offer.Flights[i]
	q.Printf("Free seats on %s:\n", f.ID)
	j, err := q.Pick("Seat", f.Seats)
	if err != nil {
		return elicit.Response{}, err
	}
	return terminal.Accept(demo.FlightPick{Flight: f.ID, Seat: f.Seats[j]})
}

// promptPhoto takes the demo's photo at the terminal, which has no
// camera: the user gives the path of a JPEG or PNG file instead, and an
// empty line declines. A file that is no such image, or too large to send
// as a photo, is refused and another asked for.
func promptPhoto(q *terminal.Question) (elicit.Response, error) {
	q.Printf("  This terminal has no camera: give a JPEG or PNG file of at most %s instead.\n", bytesize.Words(int64(demo.MaxPhotoFile)))
	reported := false
	for {
		path, err := q.PathLine("Path to a photo (an empty line declines): ")
		if err != nil {
			return elicit.Response{}, err
		}
		if path == "" {
			return elicit.Response{Action: elicit.Decline}, nil
		}
		if !reported {
			if err := q.Report(demo.PhotoProgress{Status: demo.PhotoCapturing}); err != nil {
				return elicit.Response{}, err
			}
			reported = true
		}
		photo, err := readPhoto(path)
		if err != nil {
			q.Problem("%v", err)
			continue
		}
		return terminal.Accept(photo)
	}
}

// readPhoto reads the image file at path as a photo: a JPEG or a PNG of
// at most demo.MaxPhotoFile bytes, as a data URL with its size.
func readPhoto(path string) (demo.Photo, error) {
	f, err := os.Open(path)
	if err != nil {
		return demo.Photo{}, fmt.Errorf("cannot open %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(demo.MaxPhotoFile)+1))
	switch {
	case err != nil:
		return demo.Photo{}, fmt.Errorf("cannot read %s: %w", path, err)
	case len(b) > demo.MaxPhotoFile:
		return demo.Photo{}, fmt.Errorf("%s is larger than a photo may be (%s)", path, bytesize.Words(int64(demo.MaxPhotoFile)))
	}
	c, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || (format != "jpeg" && format != "png") {
		return demo.Photo{}, fmt.Errorf("%s is no JPEG or PNG image", path)
	}
	return demo.Photo{Width: c.Width, Height: c.Height,
		Image: "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(b)}, nil
}

// promptNotify shows the demo's desktop notification at the terminal, with
// a bell, and answers that it was shown. Its title and text are the
// model's words: the chat command's terminal shows any control character
// in them as an escape, never as a keystroke of the terminal's own.
func promptNotify(q *terminal.Question) (elicit.Response, error) {
	var n demo.NotifyArgs
	if err := q.Input(&n); err != nil {
		return elicit.Response{}, err
	}
	q.Bell()
	q.Printf("  ┌ Notification: %s\n", n.Title)
	if n.Body != "" {
		for line := range strings.Lines(n.Body) {
			q.Printf("  │ %s\n", strings.TrimRight(line, "\r\n"))
		}
	}
	return terminal.Accept(demo.Notified{Shown: true})
}
