//go:build !cuda

package gpuexec

import (
	"context"
	"errors"
	"testing"
)

func TestNoCUDA(t *testing.T) {
	if Compiled {
		t.Fatal("Compiled without the cuda tag")
	}
	if _, err := NewDevice(Options{}); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("NewDevice: %v", err)
	}
	if err := Available(); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Available: %v", err)
	}
	if _, err := DeviceCount(); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("DeviceCount: %v", err)
	}
	if ErrNoCUDA.Error() != "gpu: built without CUDA support (rebuild with -tags cuda)" {
		t.Fatalf("message %q", ErrNoCUDA)
	}
	c := NewTableCache(nil, 1)
	if _, err := c.Get(context.Background(), "t", 1, nil); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("cache: %v", err)
	}
}
