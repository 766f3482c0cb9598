package elicit

import (
	"slices"
	"strings"
)

// The built-in kinds besides forms. Each is a Kind like any an application
// declares; the browser and the terminal know how to show them.

// ConfirmInput labels the two answers of a yes/no question.
type ConfirmInput struct {
	Yes string `json:"yes,omitempty" desc:"The label of the yes answer"`
	No  string `json:"no,omitempty" desc:"The label of the no answer"`
	// Destructive, when set, says yes does what cannot be undone (deletes,
	// pays, sends): the browser then never offers it as the default answer.
	Destructive bool `json:"destructive,omitempty" desc:"Whether yes does something that cannot be undone, such as deleting"`
}

// Confirmation is the answer to a yes/no question.
type Confirmation struct {
	Yes bool `json:"yes" title:"Yes?"`
}

// Confirm asks a yes/no question. Saying no is an answer (accept with Yes
// false); declining means not answering at all.
var Confirm = NewKind[ConfirmInput, Confirmation]("confirm", "Answer yes or no", Accept, Decline, Cancel, Other)

// ChoiceInput is a list of options, and whether the user may type an answer
// of their own instead of picking one.
type ChoiceInput struct {
	Options []string `json:"options" min:"1" desc:"What the user can pick from"`
	// Else, when set, offers "something else": a text the user writes as
	// the answer, labelled with Else ("Somewhere else", say).
	Else string `json:"else,omitempty" desc:"The label of the write-your-own answer; empty offers none"`
}

// Choice is the answer to a choice: one of the options, or, when the input
// allowed it, the user's own text in Else. Exactly one is set.
type Choice struct {
	Option string `json:"option,omitempty" title:"Option"`
	Else   string `json:"else,omitempty" title:"Something else" max:"500"`
}

// Picked returns the answer in words, whichever way it was given.
func (c Choice) Picked() string {
	if c.Option != "" {
		return c.Option
	}
	return c.Else
}

// Choose asks the user to pick one option, or to write their own when the
// input offers it. Writing one's own answer is part of this kind and comes
// back as accept; going off-script altogether is still other.
var Choose = NewKind[ChoiceInput, Choice]("choice", "Pick one option, or write your own", Accept, Decline, Cancel, Other).
	Refine(func(in ChoiceInput, out *Schema) *Schema {
		out.Properties["option"].Enum = slices.Clone(in.Options)
		return out
	}).
	Check(func(in ChoiceInput, c Choice) FieldErrors {
		switch {
		case c.Option != "" && strings.TrimSpace(c.Else) != "":
			return FieldErrors{{Field: "else", Message: "is for an answer not in the list: pick an option or write your own, not both"}}
		case c.Option == "" && strings.TrimSpace(c.Else) == "":
			if in.Else != "" {
				return FieldErrors{{Field: "option", Message: "is required: pick one, or write your own"}}
			}
			return FieldErrors{{Field: "option", Message: "is required"}}
		case c.Else != "" && in.Else == "":
			return FieldErrors{{Field: "else", Message: "is not offered here: pick one of the options"}}
		}
		return nil
	})

// LocationInput says how precise a location the agent needs.
type LocationInput struct {
	Accuracy string `json:"accuracy" enum:"high,low" default:"low" desc:"high asks the device for its most precise fix (GPS), which is slower"`
}

// Location is a point on Earth, as the device reported it.
type Location struct {
	Lat      float64 `json:"lat" title:"Latitude" min:"-90" max:"90"`
	Lng      float64 `json:"lng" title:"Longitude" min:"-180" max:"180"`
	Accuracy float64 `json:"accuracy,omitempty" title:"Accuracy (metres)" min:"0"`
}

// Stages a location request reports as progress while it works.
const (
	StageRequestingPermission = "requesting-permission"
	StageAcquiring            = "acquiring"
)

// LocationProgress is what a location request reports while it works: the
// stage it is at (StageRequestingPermission, then StageAcquiring).
type LocationProgress struct {
	Status string `json:"status" enum:"requesting-permission,acquiring" desc:"What the device is doing"`
}

// LocateDevice asks for the device's location: the seed's getLocation, a
// method (package protocol) whose progress is LocationProgress. A refused
// permission is Denied: the user's choice, not an error; a frontend that
// cannot locate (a terminal without a position) answers Unsupported.
var LocateDevice = withProgress[LocationProgress](NewKind[LocationInput, Location]("location", "Share this device's location", Accept, Denied, Decline, Cancel, Unsupported))

// withProgress gives k the progress schema of P.
func withProgress[P, In, Out any](k *Kind[In, Out]) *Kind[In, Out] {
	k.ProgressSchema = MustSchemaFor[P]()
	return k
}

// ClipboardReadInput says why the agent wants the clipboard.
type ClipboardReadInput struct {
	Purpose string `json:"purpose,omitempty" desc:"What the agent will do with the text"`
}

// ClipboardText is what the clipboard held.
type ClipboardText struct {
	Text string `json:"text" title:"Clipboard text" max:"100000"`
}

// ReadClipboard asks for the text on the user's clipboard. Browsers read it
// only after a click, so the user hands it over by pressing a button; a
// refused permission is Denied.
var ReadClipboard = NewKind[ClipboardReadInput, ClipboardText]("clipboard-read", "Paste from the clipboard", Accept, Denied, Decline, Cancel, Unsupported)

// ClipboardWriteInput is the text to put on the clipboard.
type ClipboardWriteInput struct {
	Text string `json:"text" max:"100000"`
}

// ClipboardWritten confirms the text is on the clipboard.
type ClipboardWritten struct {
	Copied bool `json:"copied"`
}

// WriteClipboard asks to put text on the user's clipboard. A refused
// permission is Denied.
var WriteClipboard = NewKind[ClipboardWriteInput, ClipboardWritten]("clipboard-write", "Copy to the clipboard", Accept, Denied, Decline, Cancel, Unsupported).
	Check(func(_ ClipboardWriteInput, w ClipboardWritten) FieldErrors {
		if !w.Copied {
			return FieldErrors{{Field: "copied", Message: "must be true: a copy that did not happen is denied, not accepted"}}
		}
		return nil
	})
