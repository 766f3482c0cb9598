package demo

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads the photos' sizes
	_ "image/png"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/protocol"
)

// The demo's own methods (package protocol): a photo from the device's
// camera and a notification on its desktop. The browser implements them
// in the demo's module (demoweb's device.js), the terminal with the
// demo's prompters (demoapp), a test with agenttest's scripted user.

// PhotoArgs is what a photo is taken with: which camera, and how wide the
// photo may be.
type PhotoArgs struct {
	Facing   string `json:"facing" enum:"user,environment" default:"user" desc:"user: the camera facing the user (a selfie); environment: the one facing away"`
	MaxWidth int    `json:"maxWidth" min:"16" max:"1920" default:"320" desc:"The widest the photo may be, in pixels"`
}

// Stages a photo goes through, its progress.
const (
	PhotoRequestingPermission = "requesting-permission"
	PhotoCapturing            = "capturing"
)

// PhotoProgress is what taking a photo reports while it works.
type PhotoProgress struct {
	Status string `json:"status" enum:"requesting-permission,capturing" desc:"What the device is doing"`
}

// MaxPhotoImage is the most characters a photo's data URL may have: its
// answer must fit the server's default largest request body (64 KiB), so
// the browser shrinks a photo until it fits and the terminal takes files
// of at most MaxPhotoFile bytes.
const MaxPhotoImage = 60000

// MaxPhotoFile is the largest image file the terminal takes as a photo:
// the most bytes whose data URL is at most MaxPhotoImage characters.
const MaxPhotoFile = (MaxPhotoImage - len("data:image/jpeg;base64,")) / 4 * 3

// Photo is a photo taken: its size and the image as a data: URL (a JPEG
// from the browser's camera; a JPEG or PNG file at the terminal).
type Photo struct {
	Width  int    `json:"width" min:"1" max:"10000"`
	Height int    `json:"height" min:"1" max:"10000"`
	Image  string `json:"image" min:"1" max:"60000" desc:"The photo as a data: URL (image/jpeg or image/png, base64)"`
}

// TakePhoto takes a photo with the device's camera. The server refuses a
// photo whose image is no JPEG or PNG data URL, or whose size is not the
// image's own.
var TakePhoto = photoChecked(protocol.Declare[PhotoArgs, PhotoProgress, Photo]("take-photo", "Take a photo with this device's camera"))

func photoChecked(m *protocol.Method[PhotoArgs, PhotoProgress, Photo]) *protocol.Method[PhotoArgs, PhotoProgress, Photo] {
	m.Check(func(_ PhotoArgs, p Photo) elicit.FieldErrors {
		w, h, err := ImageSize(p.Image)
		switch {
		case err != nil:
			return elicit.FieldErrors{{Field: "image", Message: err.Error()}}
		case w != p.Width || h != p.Height:
			return elicit.FieldErrors{{Field: "width", Message: fmt.Sprintf("the image is %d×%d, not %d×%d", w, h, p.Width, p.Height)}}
		}
		return nil
	})
	return m
}

// ImageSize reads the width and height of the image a data: URL holds, a
// JPEG or a PNG in base64.
func ImageSize(url string) (width, height int, err error) {
	head, data, ok := strings.Cut(url, ",")
	if !ok || (head != "data:image/jpeg;base64" && head != "data:image/png;base64") {
		return 0, 0, fmt.Errorf("must be a data: URL of a JPEG or a PNG in base64")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return 0, 0, fmt.Errorf("holds no base64: %v", err)
	}
	c, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fmt.Errorf("holds no image that can be read: %v", err)
	}
	return c.Width, c.Height, nil
}

// NotifyArgs is a desktop notification: its title and its text.
type NotifyArgs struct {
	Title string `json:"title" min:"1" max:"100"`
	Body  string `json:"body,omitempty" max:"500"`
}

// NotifyProgress is what a notification reports while it waits for the
// permission to show.
type NotifyProgress struct {
	Status string `json:"status" enum:"requesting-permission" desc:"What the device is doing"`
}

// Notified says whether the notification was shown: a device may allow
// notifications and still show none (a browser that shows them only from
// a service worker).
type Notified struct {
	Shown bool `json:"shown"`
}

// NotifyDesktop shows a notification on the device's desktop.
var NotifyDesktop = protocol.Declare[NotifyArgs, NotifyProgress, Notified]("notify-desktop", "Show a notification on this device's desktop")

// Device is the demo's protocol: what it asks of the user's device beyond
// the built-in kinds.
var Device = protocol.Protocol{Name: "device", Methods: []elicit.Registered{TakePhoto, NotifyDesktop}}

// camera is the photo demo's input.
type camera struct {
	Selfie bool `json:"selfie,omitempty" desc:"Whether the user wants a selfie, with the camera facing them"`
}

func showPhoto(ctx context.Context, in camera) (string, error) {
	args := PhotoArgs{Facing: "environment", MaxWidth: 320}
	if in.Selfie {
		args.Facing = "user"
	}
	var heard stages
	out, err := protocol.Invoke(ctx, TakePhoto, "May I take a photo with your camera?", args,
		func(p PhotoProgress) { heard.add(p.Status) })
	if err != nil {
		return "", err
	}
	if out.Status != protocol.Done {
		return ended(out.Status, "no photo taken.") + heard.said(), nil
	}
	p := out.Result
	kind := "JPEG"
	if strings.HasPrefix(p.Image, "data:image/png") {
		kind = "PNG"
	}
	_, data, _ := strings.Cut(p.Image, ",")
	size := bytesize.Words(int64(base64.StdEncoding.DecodedLen(len(data))))
	return fmt.Sprintf("Took a photo: %d×%d, a %s of %s.%s", p.Width, p.Height, kind, size, heard.said()), nil
}

func showNotification(ctx context.Context, _ noInput) (string, error) {
	var heard stages
	out, err := protocol.Invoke(ctx, NotifyDesktop, "May I show you a notification on your desktop?",
		NotifyArgs{Title: "Sweatpants", Body: "The showcase says hello from your desktop."},
		func(p NotifyProgress) { heard.add(p.Status) })
	switch {
	case err != nil:
		return "", err
	case out.Status != protocol.Done:
		return ended(out.Status, "no notification shown.") + heard.said(), nil
	case !out.Result.Shown:
		return "Your device allowed the notification but did not show it." + heard.said(), nil
	}
	return "Notified: your desktop showed “Sweatpants”." + heard.said(), nil
}

// ended words how a method's call ended when it is not done.
func ended(s protocol.Status, none string) string {
	return outcome(map[protocol.Status]elicit.Action{
		protocol.Declined: elicit.Decline, protocol.Cancelled: elicit.Cancel,
		protocol.Denied: elicit.Denied, protocol.Unsupported: elicit.Unsupported,
	}[s], none)
}

// stages are the progress a demo heard from the device, in order. Progress
// arrives on the reporting request's goroutine, while the turn waits.
type stages struct {
	mu    sync.Mutex
	heard []string
}

func (s *stages) add(stage string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heard = append(s.heard, stage)
}

// said says the stages heard, after a sentence, or nothing when none was.
func (s *stages) said() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.heard) == 0 {
		return ""
	}
	return " Your device went through: " + strings.Join(s.heard, " → ") + "."
}
