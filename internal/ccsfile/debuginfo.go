package ccsfile

import (
	"fmt"

	"github.com/consensys/gnark/constraint"
)

// debugInfo checks what the solver prints of a constraint that fails
// and of the circuit's log entries (api.Println): each constraint's
// debug entry one of the system's, and the entries' terms and stack
// frames within the system's tables.
func (c *checker) debugInfo() error {
	sys := c.sys
	for cid, d := range sys.MDebug {
		if d < 0 || d >= len(sys.DebugInfo) {
			return fmt.Errorf("constraint %d's debug entry %d of %d", cid, d, len(sys.DebugInfo))
		}
	}
	locs, funcs := sys.SymbolTable.Locations, sys.SymbolTable.Functions
	for _, entries := range []struct {
		what string
		e    []constraint.LogEntry
	}{{"debug entry", sys.DebugInfo}, {"log entry", sys.Logs}} {
		for i, e := range entries.e {
			for _, le := range e.ToResolve {
				for _, t := range le {
					if err := c.term(t.CID, t.VID, true); err != nil {
						return fmt.Errorf("%s %d: %w", entries.what, i, err)
					}
				}
			}
			for _, s := range e.Stack {
				if s < 0 || s >= len(locs) || locs[s].FunctionID < 0 || locs[s].FunctionID >= len(funcs) {
					return fmt.Errorf("%s %d: stack frame %d of %d", entries.what, i, s, len(locs))
				}
			}
		}
	}
	return nil
}
