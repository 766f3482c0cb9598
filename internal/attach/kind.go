package attach

import (
	"mime"
	"path"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Kind is how a model is given a file.
type Kind int

// The ways a model is given a file.
const (
	Named Kind = iota // named, with its type and size
	Image             // an image part of the message, named in its text
	Text              // read into the message's text, fenced and named
)

// file is an attachment with how it is given and, for a text file, the
// bytes of its content the budget leaves it.
type file struct {
	tree.Attachment
	kind  Kind
	lang  string // the fence's info string: the file's language, or ""
	share int
}

func newFile(a tree.Attachment) file {
	f := file{Attachment: a, kind: kindOf(a)}
	if f.kind == Text {
		f.lang = langOf(a)
	}
	return f
}

// imageTypes are the image types models take as image parts (the OpenAI
// wire format's, and what browsers show inline).
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// textTypes are the types besides text/* whose files are text.
var textTypes = map[string]bool{
	"application/json": true, "application/x-ndjson": true, "application/xml": true,
	"application/yaml": true, "application/x-yaml": true, "application/toml": true,
	"application/javascript": true, "application/x-sh": true, "application/sql": true,
}

// sourceLangs maps the extensions of source code and other text formats,
// which an upload may carry under a generic type (application/octet-stream
// for a .go file), to the fence's info string.
var sourceLangs = map[string]string{
	".txt": "", ".log": "", ".md": "markdown", ".markdown": "markdown", ".csv": "csv", ".tsv": "tsv",
	".json": "json", ".jsonl": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini",
	".xml": "xml", ".html": "html", ".css": "css", ".sql": "sql", ".sh": "sh", ".go": "go", ".py": "python",
	".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx",
	".rs": "rust", ".java": "java", ".kt": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
	".hpp": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala",
	".lua": "lua", ".r": "r", ".pl": "perl", ".tex": "latex", ".proto": "protobuf", ".mod": "", ".diff": "diff",
}

// typeLangs names the fence's language for a text type when the file's
// name has no extension that does.
var typeLangs = map[string]string{
	"text/markdown": "markdown", "text/csv": "csv", "application/json": "json", "text/html": "html",
	"application/xml": "xml", "text/xml": "xml", "application/yaml": "yaml", "application/x-yaml": "yaml",
}

func kindOf(a tree.Attachment) Kind {
	t := baseType(a.Type)
	_, source := sourceLangs[ext(a.Name)]
	switch {
	case imageTypes[t]:
		return Image
	case strings.HasPrefix(t, "text/"), textTypes[t], source && !strings.HasPrefix(t, "image/"):
		return Text
	}
	return Named
}

func langOf(a tree.Attachment) string {
	if l, ok := sourceLangs[ext(a.Name)]; ok {
		return l
	}
	return typeLangs[baseType(a.Type)]
}

// baseType is a content type without its parameters, lowercased.
func baseType(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(t))
}

func ext(name string) string { return strings.ToLower(path.Ext(name)) }
