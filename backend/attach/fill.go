package attach

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/llm"
)

// Fill reads the bytes of req's images into their Data, just before req
// goes to a provider: a record keeps an image's file id alone, and a
// request is given the bytes only for the call. It gives each message with
// images a slice of its own, so the messages req shares with a record or a
// history are never written to. An image larger than maxImage bytes is
// refused, as apperr.TooLarge, before more than that is read of it.
func Fill(ctx context.Context, req *llm.Request, open Opener, maxImage int64) error {
	filled := false
	for i, m := range req.Messages {
		if len(m.Images) == 0 {
			continue
		}
		if !filled {
			req.Messages, filled = slices.Clone(req.Messages), true
		}
		images := slices.Clone(m.Images)
		for j, img := range images {
			if img.Data != nil {
				continue
			}
			data, err := readImage(ctx, open, img, maxImage)
			if err != nil {
				return err
			}
			images[j].Data = data
		}
		req.Messages[i].Images = images
	}
	return nil
}

func readImage(ctx context.Context, open Opener, img llm.Image, maxImage int64) ([]byte, error) {
	rc, err := open(ctx, img.File)
	if err != nil {
		return nil, fmt.Errorf("open image %s: %w", img.File, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxImage+1))
	if err != nil {
		return nil, fmt.Errorf("read image %s: %w", img.File, err)
	}
	if int64(len(data)) > maxImage {
		return nil, apperr.Errorf(apperr.TooLarge,
			"An attached image is larger than %s, the most a model is sent; attach a smaller one.", Size(maxImage))
	}
	return data, nil
}
