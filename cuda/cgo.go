//go:build cuda

package cuda

/*
#cgo CFLAGS: -I${SRCDIR}
#cgo LDFLAGS: -L${SRCDIR}/build -lprooflane_cuda -lcudart_static -lstdc++ -ldl -lpthread -lrt -lm
#include "api.h"
*/
import "C"

import "fmt"

const (
	cudaErrorMemoryAllocation = 2
	cudaErrorNoDevice         = 100
	cudaErrorInsufficientDrv  = 35
)

// Error is a failed CUDA call.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (cuda error %d)", e.Msg, e.Code) }

// Is makes errors.Is(err, ErrOutOfMemory) and ErrNoDevice work.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == cudaErrorMemoryAllocation
	case ErrNoDevice:
		return e.Code == cudaErrorNoDevice || e.Code == cudaErrorInsufficientDrv
	}
	return false
}

func check(rc C.int) error {
	if rc == 0 {
		return nil
	}
	return &Error{Code: int(rc), Msg: C.GoString(C.pl_error_string(rc))}
}

// libHash is set at link time to the kernels library's hash
// (-ldflags=-X=github.com/prooflane/prooflane/cuda.libHash=...): Go's build
// cache does not see libprooflane_cuda.a change, and a different -X value
// forces the relink after `make -C cuda`.
var libHash string

// LibHash reports the kernels library hash the binary was linked with.
func LibHash() string { return libHash }
