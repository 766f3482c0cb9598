package telemetry

import "github.com/sweatpants-go/sweatpants/internal/chat"

// Telemetry is the chat service's observer.
var _ chat.Observer = (*Telemetry)(nil)
