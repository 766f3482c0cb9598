package elicit

import (
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/bytesize"
)

// FileInput says which file an agent asks for: the types it takes, the
// largest it takes and why it wants one.
type FileInput struct {
	// Accept lists the types taken, each a content type ("text/csv"), a
	// family of them ("image/*") or a name's ending (".csv"); empty takes
	// any type the server takes.
	Accept []string `json:"accept,omitempty" desc:"The types taken: content types (text/csv), families (image/*) or name endings (.csv); empty takes any"`
	// MaxSize is the largest file taken, in bytes; 0 leaves it to the
	// server's limit.
	MaxSize int64  `json:"maxSize,omitempty" min:"0" desc:"The largest file taken, in bytes; 0 for the server's limit"`
	Reason  string `json:"reason,omitempty" desc:"What the agent will do with the file"`
}

// File is a file the user gave: the upload's id, with its name, content
// type and size as the server stored them. Only the id comes from the
// page: the server fills in the rest from the file it holds, and refuses
// an id that is not one of the session's files.
type File struct {
	ID   string `json:"id" title:"File" min:"1"`
	Name string `json:"name,omitempty" title:"Name"`
	Type string `json:"type,omitempty" title:"Type"`
	Size int64  `json:"size,omitempty" title:"Size (bytes)" min:"0"`
}

// Stages a file request reports as progress while the file travels.
const (
	StageUploading = "uploading" // its bytes are on their way (the message says how far)
	StageStored    = "stored"    // the server holds it; the answer follows
)

// AskFile asks the user for a file. The browser shows a picker and the
// upload's progress; the terminal takes a path. What the agent gets is the
// stored file (turn.OpenFile reads it); a file of a type the request does
// not take, or larger than it allows, is refused beside the picker.
var AskFile = NewKind[FileInput, File]("file", "Give a file", Accept, Decline, Cancel).
	Check(func(in FileInput, f File) FieldErrors {
		if in.MaxSize > 0 && f.Size > in.MaxSize {
			return FieldErrors{{Field: "id", Message: fmt.Sprintf("is %s; the most this question takes is %s", bytesize.Words(f.Size), bytesize.Words(in.MaxSize))}}
		}
		if !in.Takes(f.Name, f.Type) {
			return FieldErrors{{Field: "id", Message: fmt.Sprintf("is %s; this question takes %s", orWords(f.Type, "of no known type"), strings.Join(in.Accept, ", "))}}
		}
		return nil
	})

// Takes reports whether a file called name, of content type t, is of a
// type in.Accept takes: every type is when Accept is empty.
func (in FileInput) Takes(name, t string) bool {
	if len(in.Accept) == 0 {
		return true
	}
	base, _, err := mime.ParseMediaType(t)
	if err != nil {
		base = strings.ToLower(strings.TrimSpace(t))
	}
	ext := strings.ToLower(path.Ext(name))
	for _, a := range in.Accept {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case strings.HasPrefix(a, "."):
			if ext == a {
				return true
			}
		case strings.HasSuffix(a, "/*"):
			if strings.HasPrefix(base, strings.TrimSuffix(a, "*")) {
				return true
			}
		case a == base:
			return true
		}
	}
	return false
}

func orWords(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
