// Command signer is an application of its own that ships a method of its
// own (package protocol): it declares "sign-here", implements it in the
// browser with the module web/sign.js, embedded here and handed to
// app.Config.Modules, and at the terminal with a prompter; its assistant
// has the user sign a lease with it. e2e/ownapp_test.go builds and runs it.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/protocol"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// Document is what is signed.
type Document struct {
	Document string `json:"document" min:"1" max:"200"`
}

// Signature is who signed, and when.
type Signature struct {
	Name     string `json:"name" title:"Your name" min:"1" max:"100"`
	SignedAt string `json:"signedAt" title:"Signed at" format:"date-time"`
}

// NoProgress is the progress of a method that reports none.
type NoProgress struct{}

// SignHere has the user sign a document by name.
var SignHere = protocol.Declare[Document, NoProgress, Signature]("sign-here", "Sign a document by name")

// Signing is the application's protocol.
var Signing = protocol.Protocol{Name: "signing", Methods: []elicit.Registered{SignHere}}

//go:embed web/*.js
var web embed.FS

const lease = "Lease of flat 3"

func main() {
	modules, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // web is embedded above: this cannot fail
	}
	app.Main(app.Config{
		Name: "signer",
		Assistants: []agents.Assistant{{
			Name: "signer", Description: "Has you sign the lease.",
			Turn: func(ctx context.Context, message string) (string, error) {
				out, err := protocol.Invoke(ctx, SignHere, "Please sign the lease.", Document{Document: lease}, nil)
				if err != nil {
					return "", err
				}
				if out.Status != protocol.Done {
					return fmt.Sprintf("The lease is not signed (%s).", out.Status), nil
				}
				return fmt.Sprintf("Signed “%s” by %s at %s.", lease, out.Result.Name, out.Result.SignedAt), nil
			},
		}},
		Kinds:     protocol.Kinds(Signing),
		Modules:   modules,
		Prompters: map[string]terminal.Prompter{SignHere.Name: terminal.PromptFunc(promptSign)},
	})
}

// promptSign signs at the terminal: the user types their name.
func promptSign(q *terminal.Question) (elicit.Response, error) {
	var doc Document
	if err := q.Input(&doc); err != nil {
		return elicit.Response{}, err
	}
	q.Printf("  Document: %s\n", doc.Document)
	for {
		name, err := q.Line("Your name, to sign: ")
		if err != nil {
			return elicit.Response{}, err
		}
		if name != "" {
			return terminal.Accept(Signature{Name: name, SignedAt: time.Now().UTC().Format(time.RFC3339)})
		}
		q.Problem("Type your name, or /d to decline.")
	}
}
