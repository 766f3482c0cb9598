package agents

// Content is a tool's result as blocks a client shows — text, images,
// audio, embedded resources — rather than as a value: a tool whose Out is
// Content is returned to an MCP client as those blocks (docs/mcp.md), and
// a model is handed its JSON, as for any result. Its JSON is the content
// of an MCP tool result: {"content": [{"type": "text", "text": "…"}, …]},
// binary data in base64.
type Content struct {
	Blocks []Block `json:"content"`
}

// Block is one block of Content; Text, Image, Audio and Resource make them.
type Block struct {
	// Type is "text", "image", "audio" or "resource".
	Type string `json:"type"`
	// Text is a text block's text.
	Text string `json:"text,omitempty"`
	// Data and MIMEType are an image's or a sound's bytes and their type
	// ("image/png", "audio/wav").
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// Resource is an embedded resource's contents.
	Resource *Resource `json:"resource,omitempty"`
}

// Resource is the contents of a resource embedded in Content: its URI, its
// type, and either its text or its bytes.
type Resource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// Text is a block of text.
func Text(text string) Block { return Block{Type: "text", Text: text} }

// Image is a block holding an image of the MIME type mime.
func Image(data []byte, mime string) Block { return Block{Type: "image", Data: data, MIMEType: mime} }

// Audio is a block holding a sound of the MIME type mime.
func Audio(data []byte, mime string) Block { return Block{Type: "audio", Data: data, MIMEType: mime} }

// Embed is a block holding a resource's contents.
func Embed(r Resource) Block { return Block{Type: "resource", Resource: &r} }
