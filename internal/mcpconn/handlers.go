package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// elicit answers the server's elicitation/create: a question of the
// conversation, asked in the call its link runs (see conn), whose answer goes
// back to the server. A form is asked from the schema the server
// requested (flat, as the protocol allows); a URL elicitation, or a
// question with no call running, is declined.
func (l *link) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	run := l.running()
	if run == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	run.quiet.pause() // the user takes the time they need
	defer run.quiet.resume()
	p := req.Params
	if p.Mode == "url" {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	schema, err := formSchema(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("the question's schema cannot be shown as a form: %w", err)
	}
	resp, err := turn.Elicit(run.questions, elicit.Request{Kind: elicit.FormKind, Message: p.Message, Schema: schema,
		Actions: []elicit.Action{elicit.Accept, elicit.Decline, elicit.Cancel}})
	if err != nil && run.ctx.Err() != nil {
		// The turn stopped while the question waited: it went away
		// unanswered, which the protocol says as cancel.
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if err != nil {
		return nil, err
	}
	res := &mcp.ElicitResult{Action: string(resp.Action)}
	if resp.Action == elicit.Accept {
		if err := json.Unmarshal(resp.Content, &res.Content); err != nil {
			return nil, fmt.Errorf("the answer cannot be sent: %w", err)
		}
		// A field answered null is one not given (elicit.Schema.Validate
		// takes it so), and is left out: the server's schema takes no
		// null, and its SDK would refuse the whole answer for one.
		maps.DeleteFunc(res.Content, func(_ string, v any) bool { return v == nil })
	}
	return res, nil
}

// formSchema reads a requested schema as a form's: an object of flat
// properties, strings, numbers, booleans, single choices and multiple
// choices, with their defaults. Titled options (a string's oneOf, a
// list's items.anyOf, each a const and its title) become the field's
// Enum, named by EnumNames, so that the form shows the titles and the
// answer holds the consts.
func formSchema(requested any) (*elicit.Schema, error) {
	var s elicit.Schema
	if requested != nil {
		raw, err := json.Marshal(requested)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		var titled struct {
			Properties map[string]titledProperty `json:"properties"`
		}
		if err := json.Unmarshal(raw, &titled); err != nil {
			return nil, err
		}
		for name, t := range titled.Properties {
			if p := s.Properties[name]; p != nil {
				t.apply(p)
			}
		}
		if s.Order == nil {
			s.Order = propertyOrder(raw)
		}
	}
	if s.Type == "" {
		s.Type = "object"
	}
	if s.Type != "object" {
		return nil, errors.New("it is not an object")
	}
	for name, p := range s.Properties {
		if p == nil || p.Type == "object" || p.Type == "array" && p.Items == nil {
			return nil, fmt.Errorf("the field %s is not a flat value", name)
		}
	}
	return &s, nil
}

// titledProperty is what a property of a requested schema may say of its
// options beside what elicit.Schema reads.
type titledProperty struct {
	OneOf []titledOption `json:"oneOf"`
	Items *struct {
		AnyOf []titledOption `json:"anyOf"`
	} `json:"items"`
}

// titledOption is one titled option: the value and how it is shown.
type titledOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// apply makes p's titled options its Enum and EnumNames.
func (t titledProperty) apply(p *elicit.Schema) {
	options := func(opts []titledOption) (values, names []string) {
		for _, o := range opts {
			values = append(values, o.Const)
			names = append(names, o.Title)
		}
		return values, names
	}
	switch {
	case len(t.OneOf) > 0 && len(p.Enum) == 0:
		p.Enum, p.EnumNames = options(t.OneOf)
	case t.Items != nil && len(t.Items.AnyOf) > 0 && p.Items != nil && len(p.Items.Enum) == 0:
		p.Items.Type = "string"
		p.Items.Enum, p.Items.EnumNames = options(t.Items.AnyOf)
	}
	// Legacy names that do not name every value are left out, rather
	// than show a value by another's name.
	for _, q := range []*elicit.Schema{p, p.Items} {
		if q != nil && len(q.EnumNames) != len(q.Enum) {
			q.EnumNames = nil
		}
	}
}

// propertyOrder is the order the schema raw names its properties in: the
// page shows a form's fields in its schema's Order, and shows none
// without one. (The SDK hands the requested schema over as a map, which
// keeps no order: the message that brought it was given its order on its
// way in, as "x-order", order.go.)
func propertyOrder(raw []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top["properties"]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := t.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return names
}

// progressed shows the server's progress as the call's turn's.
func (l *link) progressed(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	run := l.running()
	if run == nil || fmt.Sprint(req.Params.ProgressToken) != run.token {
		return // a late word of a call that ended
	}
	run.quiet.feed()
	fraction := -1.0
	if p := req.Params; p.Total > 0 {
		fraction = min(1, p.Progress/p.Total)
	}
	msg := req.Params.Message
	if msg == "" {
		msg = "Working…"
	}
	if err := turn.Notify(run.progress, msg, fraction); err != nil {
		l.c.log.Warn("show an MCP server's progress", "server", l.c.cfg.Name, "err", err)
	}
}
