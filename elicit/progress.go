package elicit

import (
	"cmp"
	"encoding/json"
	"fmt"
)

// ProgressOf returns the report carrying data as a method's typed progress
// (Progress.Data), its stage named by data's "status" or "stage" field
// when it has one, as the browser names the stage of what it reports: how
// a terminal prompter and a scripted user report what a browser would.
func ProgressOf(data any) (Progress, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Progress{}, fmt.Errorf("encode progress: %w", err)
	}
	var named struct {
		Stage  string `json:"stage"`
		Status string `json:"status"`
	}
	json.Unmarshal(raw, &named) // data that is no object names no stage
	return Progress{Stage: cmp.Or(named.Stage, named.Status), Data: raw}, nil
}
