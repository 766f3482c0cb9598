// Package agenttest runs an assistant's turn in a plain go test, against a
// scripted model and a scripted user, strictly: whatever the run does that
// the script does not say fails the test.
package agenttest
