package offline

import "strings"

// reminderPrefix starts a reminder a schedule sent to the conversation
// (the demo's set_reminder tool, turn.Schedule): it asks nothing of a
// tool, and is answered by passing it on.
const reminderPrefix = "Reminder: "

// reminderOf returns what the reminder text reminds of, if it is one.
func reminderOf(text string) (string, bool) {
	what, ok := strings.CutPrefix(strings.TrimSpace(text), reminderPrefix)
	what = strings.TrimSpace(what)
	return what, ok && what != ""
}

// remindedReply answers a reminder that came.
func remindedReply(what string) string {
	return "⏰ It's time: " + what + "."
}
