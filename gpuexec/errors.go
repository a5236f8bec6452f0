package gpuexec

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is returned by every entry point of a build without the cuda tag.
var ErrNoCUDA = errors.New("gpu: built without CUDA support (rebuild with -tags cuda)")

// ErrNoDevice is returned (wrapped with the reason) by a cuda build that
// cannot use a GPU: the driver failed to initialise, there is no device, or
// the requested ordinal does not exist.
var ErrNoDevice = errors.New("gpu: no usable CUDA device")

// ErrOutOfRange reports a row index or split outside [0, rows], as
// std::out_of_range does in libcudf's split and contiguous_split.
var ErrOutOfRange = errors.New("gpu: out of range")

// ErrInvalidArgument reports a malformed argument: decreasing splits, a
// bounce buffer under 1 MiB, corrupt pack metadata, batches whose schemas
// differ.
var ErrInvalidArgument = errors.New("gpu: invalid argument")

// ErrReleased is returned when a released batch or buffer is used.
var ErrReleased = errors.New("gpu: use of a released batch or buffer")

// ErrClosed is returned when a closed Device is used.
var ErrClosed = errors.New("gpu: device is closed")

// ErrNVRTC is wrapped by errors that come from loading or using NVRTC.
var ErrNVRTC = errors.New("gpu: NVRTC")

// CUDAError is a failed CUDA driver or NVRTC call.
type CUDAError struct {
	Call   string // the API call, e.g. "cuMemcpyHtoDAsync"
	Kernel string // the kernel involved, if any
	Code   int    // the CUresult or nvrtcResult
	Name   string // the symbolic name of Code, when known
	Detail string // extra context (a compile log, sizes)
}

func (e *CUDAError) Error() string {
	s := "gpu: " + e.Call
	if e.Kernel != "" {
		s += " (kernel " + e.Kernel + ")"
	}
	s += fmt.Sprintf(": error %d", e.Code)
	if e.Name != "" {
		s += " " + e.Name
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// SplitError describes a rejected split point.
type SplitError struct {
	Index int // position in the splits slice
	Value int // the offending split
	Rows  int // rows in the input
	Err   error
}

func (e *SplitError) Error() string {
	if errors.Is(e.Err, ErrOutOfRange) {
		return fmt.Sprintf("gpu: split %d = %d is outside [0, %d]", e.Index, e.Value, e.Rows)
	}
	return fmt.Sprintf("gpu: split %d = %d is less than the split before it", e.Index, e.Value)
}

func (e *SplitError) Unwrap() error { return e.Err }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}

func rangef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrOutOfRange}, args...)...)
}
