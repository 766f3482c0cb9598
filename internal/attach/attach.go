// Package attach is what a model is given of the files sent with a user
// message: images as image parts of the message (llm.Message.Images, their
// bytes filled only just before a provider call, scaled to what a provider
// takes, by Pictures.Fill), text-like files
// (text, markdown, CSV, JSON, source code) read into the message's text,
// fenced and named, within a budget of tokens and trimmed with a note when
// too long, and other files named with their type and size.
//
// The text it writes is plain text a model reads as it is; Parse reads it
// back for those who answer without a model's understanding, such as the
// offline provider. The format lives here, in one place, for both.
package attach

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// DefaultBudget is the tokens the files of one message may add to it:
// room for a long document while leaving most of a small model's context
// to the conversation. A replayed turn must be given the same budget its
// model calls were recorded with, so a budget that changes is one to
// record beside the message.
const DefaultBudget = 8000

// Opener opens an attached file by its id (tree.Attachment.ID, llm.Image's
// File) for reading. The chat gives one that reads the conversation's
// files from the store (files.Store.Open for the session), streamed.
type Opener func(ctx context.Context, id string) (io.ReadCloser, error)

// Message returns m, a user message, with atts given to the model: images
// in Images (their type and file id, no bytes: see Pictures.Fill), text-like files
// appended to Content, each fenced and named, and other files named with
// their type and size. budget is the tokens the files may add to the
// message's text, estimated as tokens.Estimate does (a picture's
// tokens are not taken from it: compaction counts them, by the size each
// is sent at, read from its header); a file that
// does not fit is trimmed at a line where it can be, with a note saying how
// much was left out, and the budget is shared so that a long file leaves
// room for the others. The lines naming the files are written whatever the
// budget: a model is always told what was sent. The same message,
// attachments and budget always give the same result, so a replayed turn
// is given what its recorded model call was.
func Message(ctx context.Context, m llm.Message, atts []tree.Attachment, open Opener, budget int) (llm.Message, error) {
	if len(atts) == 0 {
		return m, nil
	}
	files := make([]file, len(atts))
	for i, a := range atts {
		files[i] = newFile(a)
	}
	share(files, bytesFor(budget)-overhead(m.Content, files))
	var b strings.Builder
	b.WriteString(m.Content)
	images := slices.Clip(m.Images) // appending never writes into the caller's array
	for _, f := range files {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch f.kind {
		case Image:
			img := llm.Image{Type: f.Type, File: f.ID, Name: f.Name}
			// The size it is sent at, from its header, so that its tokens
			// are counted by it; one whose header does not read is counted
			// as a picture of unknown size, and Fill says what is wrong.
			img.Width, img.Height, _ = pictureSize(ctx, open, f.ID)
			images = append(images, img)
			b.WriteString(f.line(imageSuffix))
		case Text:
			block, err := f.read(ctx, open)
			if err != nil {
				return llm.Message{}, fmt.Errorf("read attached file %s: %w", f.ID, err)
			}
			b.WriteString(block)
		default:
			b.WriteString(f.line(otherSuffix))
		}
	}
	m.Content, m.Images = b.String(), images
	return m, nil
}

// bytesFor is the bytes of text that make tokens, the inverse of
// tokens.Estimate's four bytes of text to a token (the tests hold
// the two together).
func bytesFor(tokens int) int { return max(tokens, 0) * 4 }

// overhead is the bytes Message writes besides the text files' contents:
// the separators, the lines naming the files, the fences and the room a
// trimmed file's note may take.
func overhead(content string, files []file) int {
	n := 0
	for i, f := range files {
		if i > 0 || content != "" {
			n += len("\n\n")
		}
		switch f.kind {
		case Image:
			n += len(f.line(imageSuffix))
		case Text:
			n += f.frame()
		default:
			n += len(f.line(otherSuffix))
		}
	}
	return n
}
