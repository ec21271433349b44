package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON writes v to w as one indented JSON document and a newline:
// the output of every command's --json. Keys are snake_case, durations
// are seconds or milliseconds named in the key (makespan_s, wait_ms),
// and docs/json.md documents each command's schema.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON output: %w", err)
	}
	return nil
}
