package attach

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/tokens"
	"github.com/sweatpants-go/sweatpants/llm"
)

// DefaultImageBudget is the tokens the pictures of one model call may
// take (tokens.Image each, as sent): seven pictures of the largest size
// sent, or a good many smaller ones. The oldest beyond it are left out.
const DefaultImageBudget = 10_000

// Pictures fills the pictures of model calls (Fill). It is the chat
// service's, one for all its conversations: it decodes one picture at a
// time, so that however many turns bring new pictures at once, memory
// holds the pixels of one.
type Pictures struct {
	budget int
	making chan struct{}
}

// NewPictures returns Pictures giving a call at most budget tokens of
// pictures (DefaultImageBudget when budget is 0 or less).
func NewPictures(budget int) *Pictures {
	if budget <= 0 {
		budget = DefaultImageBudget
	}
	return &Pictures{budget: budget, making: make(chan struct{}, 1)}
}

// Fill gives req's pictures their bytes just before req goes to a
// provider: a record keeps a picture's file id alone, and a request is
// given the bytes only for the call. Each is given as it is sent (see
// scalePicture), read from cache when it was made before and kept there
// once made (cache may be nil: then each call makes it again). The
// newest pictures are given while they fit in the budget; the older ones,
// and one that cannot be read or is too large to be, are left out, and
// their message says so, naming them. Fill gives each message it changes a
// slice of its own, so the messages req shares with a record or a history
// are never written to. Errors are the files' (open's).
func (p *Pictures) Fill(ctx context.Context, req *llm.Request, open Opener, cache Cache) error {
	if !slices.ContainsFunc(req.Messages, func(m llm.Message) bool { return len(m.Images) > 0 }) {
		return nil
	}
	req.Messages = slices.Clone(req.Messages)
	left := p.budget
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if len(m.Images) == 0 {
			continue
		}
		var kept []llm.Image
		var notes []string
		for j := len(m.Images) - 1; j >= 0; j-- {
			img := m.Images[j]
			var err error
			if img.Data == nil {
				img, err = p.fill(ctx, img, open, cache, left)
			}
			var u *unreadable
			if err == noRoom {
				left = -1 // the pictures older than one left out for room go too
			}
			switch {
			case errors.As(err, &u):
				notes = append(notes, "(The image "+nameOf(img)+" is left out: "+u.why+".)")
				continue
			case err != nil:
				return err
			}
			left -= tokens.Image(img.Width, img.Height)
			kept = append(kept, img)
		}
		slices.Reverse(kept)
		slices.Reverse(notes)
		m.Images = kept
		if len(notes) > 0 {
			m.Content = strings.Join(append([]string{m.Content}, notes...), "\n\n")
		}
		req.Messages[i] = m
	}
	return nil
}

// noRoom is why a picture over the budget is left out.
var noRoom = &unreadable{"the context has no room for more pictures"}

// fill gives img its bytes as sent, when its tokens fit in left.
func (p *Pictures) fill(ctx context.Context, img llm.Image, open Opener, cache Cache, left int) (llm.Image, error) {
	if img.Width == 0 {
		w, h, err := pictureSize(ctx, open, img.File)
		if err != nil {
			return img, err
		}
		img.Width, img.Height = w, h
	}
	if tokens.Image(img.Width, img.Height) > left {
		return img, noRoom
	}
	data, err := p.scaled(ctx, img.File, open, cache)
	if err != nil {
		return img, err
	}
	img.Data, img.Type = data, pictureType(data)
	return img, nil
}

// scaled returns picture id as it is sent: from cache, or made, one at a
// time, and kept there. A cache that fails is a cache missed: the picture
// is made again, and the call goes on.
func (p *Pictures) scaled(ctx context.Context, id string, open Opener, cache Cache) ([]byte, error) {
	if cache != nil {
		if data, ok, err := cache.Derived(ctx, id, derivedName); err == nil && ok {
			return data, nil
		}
	}
	select {
	case p.making <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.making }()
	if cache != nil { // made by another call while this one waited
		if data, ok, err := cache.Derived(ctx, id, derivedName); err == nil && ok {
			return data, nil
		}
	}
	data, err := scalePicture(ctx, open, id)
	if err != nil {
		return nil, err
	}
	if cache != nil {
		cache.KeepDerived(ctx, id, derivedName, data) // a failure to keep it costs the next call the work alone
	}
	return data, nil
}

// nameOf is how a note names img: by its name, or its file id.
func nameOf(img llm.Image) string {
	if img.Name != "" {
		return img.Name
	}
	return img.File
}
