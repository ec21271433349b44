package runtime

import "github.com/prooflane/prooflane/stages"

// deviceBusy sets Stage.DeviceBusy from the stage's type or config, after
// deviceBinding: a stage that declares it keeps a device busy but runs on
// none is a problem at the stage, since no device's busy time could show it.
func (l *loader) deviceBusy() {
	for _, s := range l.p.Stages {
		if s.factory == nil {
			continue
		}
		busy := s.factory.Busy
		if bc, ok := s.Config.(stages.BusyConfig); ok && bc.MakesDeviceBusy() {
			busy = true
		}
		if busy && !s.DeviceBound {
			l.ps.at(s.node, "stage %q (%s) is declared to keep a device busy, but runs on no device (give it a `{gpu}` lock or use a device type)", s.Name, s.Type)
			continue
		}
		s.DeviceBusy = busy
	}
}
