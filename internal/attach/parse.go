package attach

import (
	"fmt"
	"strings"
)

// File is a file as Message wrote it into a message's text, read back.
type File struct {
	Name string
	Type string
	Size string // as written, such as "2.1 KB"
	Kind Kind
	// LeftOut says a text file's content was left out for want of room.
	LeftOut bool
	// Text is a text file's content as given, all of it unless Trimmed.
	Text    string
	Trimmed bool
	// Lines counts a text file's lines, all of them, trimmed or not.
	Lines int
}

// Parse reads a message's text as Message wrote it: what the sender said
// and the files attached after it, in order. A text with no files written
// by Message is all said. Words of the sender that imitate the lines
// Message writes can be read as files: Parse is for an answer such as the
// offline model's, never for a decision that trusts what it reads.
func Parse(content string) (said string, files []File) {
	lines := strings.SplitAfter(content, "\n")
	start := -1
	for i := 0; i < len(lines); i++ {
		// Message writes each file after a blank line.
		if i > 0 && lines[i-1] != "\n" {
			continue
		}
		f, suffix, ok := header(strings.TrimSuffix(lines[i], "\n"))
		if !ok {
			continue
		}
		at := i
		if suffix == textSuffix {
			if i, ok = f.body(lines, i+1); !ok {
				i = at
				continue // no fenced content follows: the sender's own words
			}
		}
		if start < 0 {
			start = at
		}
		files = append(files, f)
	}
	if start < 0 {
		return content, nil
	}
	return strings.TrimSuffix(strings.Join(lines[:start], ""), "\n\n"), files
}

// header reads a line naming a file: its name, size, type and how it is
// given.
func header(line string) (File, string, bool) {
	var f File
	switch {
	case strings.HasPrefix(line, "Attached file "):
		line = strings.TrimPrefix(line, "Attached file ")
	case strings.HasPrefix(line, "Attached image "):
		line, f.Kind = strings.TrimPrefix(line, "Attached image "), Image
	default:
		return File{}, "", false
	}
	var suffix string
	for _, s := range []string{textSuffix, imageSuffix, otherSuffix, leftOutSuffix} {
		if strings.HasSuffix(line, s) {
			suffix, line = s, strings.TrimSuffix(line, s)
		}
	}
	open := strings.LastIndex(line, " (")
	if suffix == "" || open < 0 || (suffix == imageSuffix) != (f.Kind == Image) {
		return File{}, "", false
	}
	size, typ, ok := strings.Cut(line[open+2:], ", ")
	if !ok {
		return File{}, "", false
	}
	f.Name, f.Size, f.Type = line[:open], size, typ
	switch suffix {
	case textSuffix:
		f.Kind = Text
	case leftOutSuffix:
		f.Kind, f.LeftOut = Text, true
	}
	return f, suffix, true
}

// body reads a text file's fenced content from lines[at:] into f, with
// the note after it, and returns the index of the block's last line.
func (f *File) body(lines []string, at int) (int, bool) {
	if at >= len(lines) {
		return 0, false
	}
	open := strings.TrimSuffix(lines[at], "\n")
	fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
	if len(fence) < 3 {
		return 0, false
	}
	for end := at + 1; end < len(lines); end++ {
		if strings.TrimSuffix(lines[end], "\n") != fence {
			continue
		}
		f.Text = strings.Join(lines[at+1:end], "")
		f.Lines = strings.Count(f.Text, "\n")
		if end+1 < len(lines) && strings.HasPrefix(lines[end+1], notePrefix) {
			// The note's numbers: "…, 40 of 1000 lines; the rest is left out.)".
			_, counts, _ := strings.Cut(lines[end+1], " are shown, ")
			var shown int
			if _, err := fmt.Sscanf(counts, "%d of %d lines;", &shown, &f.Lines); err == nil {
				f.Trimmed = true
				end++
			}
		}
		return end, true
	}
	return 0, false
}
