package runtime

import "time"

// EventKind says what an Event reports.
type EventKind int

const (
	StageStarted  EventKind = iota // a stage instance got its worker and locks
	StageDone                      // a stage instance ended (Err set on failure)
	StageRetry                     // a stage instance failed retryably and will run again
	PartitionDone                  // every stage of a partition finished
	JobDone                        // every partition of a job finished
	JobFailed                      // a job failed or was cancelled (Err set)
)

var eventNames = [...]string{"stage_started", "stage_done", "stage_retry", "partition_done", "job_done", "job_failed"}

func (k EventKind) String() string { return eventNames[k] }

// Event is a progress report from a running engine.
type Event struct {
	Kind      EventKind
	Time      time.Time
	Job       string
	Partition int    // -1 for job events
	Stage     string // empty for partition and job events
	Device    int    // -1 when unplaced
	Err       error
}
