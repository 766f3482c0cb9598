package demo_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
)

// jpegURL returns a w×h JPEG as a data URL, as a camera's photo comes.
func jpegURL(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// The showcase takes a photo when asked: its reply says how the call
// ended — the photo's size, or why there is none — and the progress the
// device reported on the way.
func TestTheShowcaseTakesAPhoto(t *testing.T) {
	const asked = "May I take a photo with your camera?"
	permission := demo.PhotoProgress{Status: demo.PhotoRequestingPermission}
	tests := []struct {
		name string
		step agenttest.UserStep
		want string
	}{
		{"taken", agenttest.Answer(asked, demo.Photo{Width: 32, Height: 24, Image: jpegURL(t, 32, 24)}).
			Reporting(permission, demo.PhotoProgress{Status: demo.PhotoCapturing}),
			"Took a photo: 32×24, a JPEG of * bytes. Your device went through: requesting-permission → capturing."},
		{"the camera refused", agenttest.Deny(asked).Reporting(permission),
			"Permission was refused — no photo taken. Your device went through: requesting-permission."},
		{"no camera", agenttest.Unsupported(asked), "Your device can't do that here — no photo taken."},
		{"declined", agenttest.Decline(asked), "You declined — no photo taken."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := agenttest.Run(t, demo.Showcase(), "take a photo",
				agenttest.Kinds(demo.OwnKinds()...),
				agenttest.Model(agenttest.Call("takePhoto", map[string]any{})),
				agenttest.User(tc.step))
			// * stands for the JPEG's size, which the encoder decides.
			before, after, _ := strings.Cut(tc.want, "*")
			if !strings.HasPrefix(got.Reply, before) || !strings.HasSuffix(got.Reply, after) {
				t.Errorf("reply %q, want it to say %q", got.Reply, tc.want)
			}
			if q := got.Questions; len(q) != 1 || !strings.Contains(string(q[0].Request.Input), `"facing":"environment"`) {
				t.Errorf("asked %+v, want one photo with the camera facing away", q)
			}
		})
	}
}

// The showcase notifies when asked, and says whether the notification
// was shown.
func TestTheShowcaseNotifies(t *testing.T) {
	const asked = "May I show you a notification on your desktop?"
	tests := []struct {
		name string
		step agenttest.UserStep
		want string
	}{
		{"shown", agenttest.Answer(asked, demo.Notified{Shown: true}), "Notified: your desktop showed “Sweatpants”."},
		{"allowed and not shown", agenttest.Answer(asked, demo.Notified{}).Reporting(demo.NotifyProgress{Status: "requesting-permission"}),
			"Your device allowed the notification but did not show it. Your device went through: requesting-permission."},
		{"refused", agenttest.Deny(asked), "Permission was refused — no notification shown."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := agenttest.Run(t, demo.Showcase(), "notify me",
				agenttest.Kinds(demo.OwnKinds()...),
				agenttest.Model(agenttest.Call("notifyMe", map[string]any{})),
				agenttest.User(tc.step))
			if got.Reply != tc.want {
				t.Errorf("reply %q, want %q", got.Reply, tc.want)
			}
		})
	}
}

// The server takes a photo only as the image it says it is: a JPEG or a
// PNG data URL of its own size.
func TestAPhotoIsTheImageItSays(t *testing.T) {
	req, err := demo.TakePhoto.Request("Smile", demo.PhotoArgs{Facing: "user", MaxWidth: 320})
	if err != nil {
		t.Fatal(err)
	}
	image := jpegURL(t, 32, 24)
	tests := []struct {
		name  string
		photo demo.Photo
		want  string // in the refusal; "" takes it
	}{
		{"its own size", demo.Photo{Width: 32, Height: 24, Image: image}, ""},
		{"another size", demo.Photo{Width: 64, Height: 24, Image: image}, "the image is 32×24, not 64×24"},
		{"no data URL", demo.Photo{Width: 32, Height: 24, Image: "https://example.com/me.jpg"}, "must be a data: URL of a JPEG or a PNG"},
		{"no image", demo.Photo{Width: 32, Height: 24, Image: "data:image/png;base64,aGVsbG8="}, "holds no image that can be read"},
		{"too long", demo.Photo{Width: 32, Height: 24, Image: image + strings.Repeat("A", demo.MaxPhotoImage)}, "image"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			content, _ := json.Marshal(tc.photo)
			err := demo.TakePhoto.Verify(req, elicit.Response{Action: elicit.Accept, Content: content})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}
