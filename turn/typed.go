package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Typed output. SampleAs asks the model for a value of a Go type: the
// type's JSON Schema goes with the request as its wanted output, and the
// reply is read and checked against it. The first prompt stays as the
// caller wrote it; when the reply does not parse or breaks the schema,
// exactly one more attempt is made, whose prompt adds the type's
// description, its format and an example; when that one fails too, the
// caller gets an *OutputError to handle.

// Typed is a model's reply read as a T (see SampleAs), with what the
// pipeline's stages made of it.
type Typed[T any] struct {
	Value      T
	Confidence *float64
	Metadata   map[string]any
	Response   llm.Response
}

// Described is a type that says what it is to the model, for the second
// attempt of SampleAs.
type Described interface {
	// Describe says in a sentence what the value stands for.
	Describe() string
}

// Exemplified is a type that offers examples of itself to the model, for
// the second attempt of SampleAs.
type Exemplified[T any] interface {
	Examples() []T
}

// OutputError is a reply that could not be read as the type asked for,
// after the attempt that showed the model the format.
type OutputError struct {
	Type  string // the Go type asked for
	Reply string // the model's last reply
	Err   error  // why it could not be read
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("the model's reply is not a valid %s: %v", e.Type, e.Err)
}

func (e *OutputError) Unwrap() error { return e.Err }

// typedOutput is the name of SampleAs's refusals in the record.
const typedOutput = "typed output"

// SampleAs asks the model for a value of type T, whose JSON Schema is
// derived from T as for forms and tool inputs. A reply that does not parse
// gets one more attempt that shows the model the format and an example;
// then the caller gets an *OutputError.
func SampleAs[T any](ctx context.Context, req llm.Request) (Typed[T], error) {
	var zero T
	typ := reflect.TypeOf(zero)
	schema, err := elicit.SchemaOf(typ)
	if err != nil {
		return Typed[T]{}, fmt.Errorf("sample as %v: %w", typ, err)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return Typed[T]{}, fmt.Errorf("sample as %v: %w", typ, err)
	}
	name := typeName(typ)
	req.Output = &llm.OutputSchema{Name: name, Description: describe[T](), Schema: raw}

	// The format is shown from the attempt after the reply could not be
	// read, and that attempt is the last chance.
	var hint string
	ctx = middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			if hint == "" && p.Refused != nil && p.Refused.By == typedOutput {
				hint = formatHint[T](name, raw, p.Refused.Reason)
			}
			if hint != "" {
				p.Request.Messages = append(p.Request.Messages[:len(p.Request.Messages):len(p.Request.Messages)],
					llm.Message{Role: llm.System, Content: hint})
			}
			return next(ctx, p)
		}
	}, middleware.Max)
	// The reply is read after every Min middleware (format repair, say) and
	// before the caller's outer Max middleware.
	ctx = middleware.SampleOutput.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
		return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
			s, err := next(ctx, s)
			if err != nil {
				return s, err
			}
			v, problem := readAs[T](schema, s.Response.Content)
			if problem != nil {
				if hint == "" {
					return s, middleware.Retry(typedOutput, problem.Error())
				}
				return s, &OutputError{Type: name, Reply: s.Response.Content, Err: problem}
			}
			s.Value = v
			return s, nil
		}
	}, middleware.Max)
	s, err := SampleFull(primitive.Aside.With(ctx, true), req) // a value, not the reply
	if err != nil {
		return Typed[T]{Response: s.Response}, err
	}
	v, _ := s.Value.(T) // a later stage may have replaced it
	return Typed[T]{Value: v, Confidence: s.Confidence, Metadata: s.Metadata, Response: s.Response}, nil
}

// readAs reads reply as a T that satisfies schema.
func readAs[T any](schema *elicit.Schema, reply string) (T, error) {
	var v T
	raw := json.RawMessage(strings.TrimSpace(reply))
	if errs := schema.Validate(raw); len(errs) > 0 {
		return v, errs
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, err
	}
	return v, nil
}

// formatHint is the system message of the attempt after a refused one: what
// went wrong, what the type is, its schema and an example.
func formatHint[T any](name string, schema json.RawMessage, problem string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your last reply could not be read as a %s: %s.\n", name, problem)
	if d := describe[T](); d != "" {
		fmt.Fprintf(&b, "A %s is %s\n", name, d)
	}
	fmt.Fprintf(&b, "Reply with one JSON value and nothing else, matching this JSON Schema:\n%s\n", schema)
	for _, ex := range examples[T]() {
		fmt.Fprintf(&b, "For example:\n%s\n", ex)
	}
	return b.String()
}

// describe returns T's description, if it gives one.
func describe[T any]() string {
	var zero T
	if d, ok := any(zero).(Described); ok {
		return d.Describe()
	}
	return ""
}

// examples returns T's own examples as JSON, or else one made from its zero
// value, so the model sees every field's name and kind.
func examples[T any]() []string {
	var zero T
	var out []string
	if ex, ok := any(zero).(Exemplified[T]); ok {
		for _, e := range ex.Examples() {
			if b, err := json.Marshal(e); err == nil {
				out = append(out, string(b))
			}
		}
	}
	if len(out) == 0 {
		if b, err := json.Marshal(zero); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// typeName names t for the model and the record.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
