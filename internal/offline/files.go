package offline

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/llm"
)

// received reads the files msg carries, as attach.Message wrote them into
// its text and its images: what the sender said besides, a line saying
// what each file is, and whether it carries any.
func received(msg llm.Message) (said string, lines []string, ok bool) {
	said, files := attach.Parse(msg.Content)
	named := 0
	for _, f := range files {
		lines = append(lines, f.Name+" ("+f.Size+"): "+describeFile(f))
		if f.Kind == attach.Image {
			named++
		}
	}
	// An image the text does not name is described by its type alone.
	for _, img := range msg.Images[min(named, len(msg.Images)):] {
		lines = append(lines, "an image: "+imageKind(img.Type))
	}
	return said, lines, len(lines) > 0
}

// filesReply says what was received, in a line per file, and then answers
// what was said with them, if anything.
func filesReply(lines []string, answer string) string {
	var b strings.Builder
	if len(lines) == 1 {
		b.WriteString("I received one file:")
	} else {
		fmt.Fprintf(&b, "I received %d files:", len(lines))
	}
	for _, l := range lines {
		b.WriteString("\n- " + l)
	}
	if answer != "" {
		b.WriteString("\n\n" + answer)
	}
	return b.String()
}

// describeFile says what a file is, as far as the model was given it: a
// text file's lines, a CSV's columns, a JSON object's keys, an image's type.
func describeFile(f attach.File) string {
	switch {
	case f.Kind == attach.Image:
		return imageKind(f.Type)
	case f.Kind == attach.Named:
		return "a file of type " + f.Type + ", which I cannot read as text."
	case f.LeftOut:
		return "text I was not given: the conversation had no room for it."
	}
	var what string
	switch ext := strings.ToLower(path.Ext(f.Name)); {
	case f.Type == "text/csv" || ext == ".csv":
		what = csvKind(f)
	case f.Type == "application/json" || ext == ".json":
		what = jsonKind(f)
	case f.Type == "text/markdown" || ext == ".md" || ext == ".markdown":
		what = "Markdown text of " + count(f.Lines, "line")
	default:
		what = "text of " + count(f.Lines, "line")
	}
	if f.Trimmed {
		what += "; I was given only its beginning, as the rest did not fit"
	}
	return what + "."
}

// csvKind names a CSV's rows and its columns, from its header row.
func csvKind(f attach.File) string {
	header, _, _ := strings.Cut(f.Text, "\n")
	cols, err := csv.NewReader(strings.NewReader(header)).Read()
	if err != nil || f.Lines == 0 {
		return "a CSV table of " + count(f.Lines, "line")
	}
	return fmt.Sprintf("a CSV table of %s with the %s %s", count(f.Lines-1, "row"), plural(len(cols), "column"), list(quoteAll(cols)))
}

// jsonKind names a JSON document's top-level keys, read from as much of it
// as was given: a document trimmed still shows its first keys.
func jsonKind(f attach.File) string {
	dec := json.NewDecoder(strings.NewReader(f.Text))
	tok, err := dec.Token()
	if err != nil {
		return "JSON I cannot read, " + count(f.Lines, "line")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		if d, ok := tok.(json.Delim); ok && d == '[' {
			return "a JSON array, " + count(f.Lines, "line")
		}
		return "a JSON value, " + count(f.Lines, "line")
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		keys = append(keys, fmt.Sprint(k))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	if len(keys) == 0 {
		return "a JSON object with no keys"
	}
	const most = 8
	shown := quoteAll(keys[:min(len(keys), most)])
	if len(keys) > most {
		shown = append(shown, fmt.Sprintf("%d more", len(keys)-most))
	}
	return fmt.Sprintf("a JSON object of %s with the %s %s", count(f.Lines, "line"), plural(len(keys), "key"), list(shown))
}

// imageKind names an image by its type: "a PNG image".
func imageKind(typ string) string {
	_, sub, ok := strings.Cut(typ, "/")
	if !ok || sub == "" {
		return "an image."
	}
	return "a " + strings.ToUpper(sub) + " image."
}

func count(n int, noun string) string { return fmt.Sprintf("%d %s", n, plural(n, noun)) }

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = `"` + w + `"`
	}
	return out
}
