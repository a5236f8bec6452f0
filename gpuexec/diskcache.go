package gpuexec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"
)

// The on-disk kernel cache is shared by every process of the machine
// (the regression run starts dozens, each with its own device). So:
//
//   - an entry is written to a temporary file in the cache directory and
//     renamed into place, so a reader sees the whole file or none;
//   - an entry carries a header with its length and CRC-32C, so a file cut
//     short (a crash, a full disk) or damaged reads as a miss, is compiled
//     again and rewritten;
//   - a compile holds the kernel's lock file (flock), so N processes that
//     miss the same kernel at once compile it once: the others wait for the
//     lock and then read the entry, or compile themselves after
//     CompileLockWait (a hung compiler must not hang every process).

// cacheMagic opens every cache entry; the digit is the format's version.
const cacheMagic = "GSQLKC01"

// cacheHeader is the magic, the image length (uint64) and its CRC-32C
// (uint32), then a flags word (bit 0: CUBIN, else PTX).
const cacheHeader = len(cacheMagic) + 8 + 4 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CompileLockWait bounds how long a compile waits for another process
// compiling the same kernel before compiling it itself.
var CompileLockWait = 2 * time.Minute

// lockPoll is how often a waiting compile tries the lock again.
const lockPoll = 10 * time.Millisecond

var errCorruptEntry = errors.New("gpu: corrupt kernel cache entry")

// encodeEntry is image with its cache header.
func encodeEntry(image []byte, cubin bool) []byte {
	out := make([]byte, cacheHeader, cacheHeader+len(image))
	copy(out, cacheMagic)
	binary.LittleEndian.PutUint64(out[8:], uint64(len(image)))
	binary.LittleEndian.PutUint32(out[16:], crc32.Checksum(image, castagnoli))
	if cubin {
		binary.LittleEndian.PutUint32(out[20:], 1)
	}
	return append(out, image...)
}

// decodeEntry checks an entry's header and returns its image.
func decodeEntry(b []byte) ([]byte, error) {
	if len(b) < cacheHeader || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, fmt.Errorf("%w: no header", errCorruptEntry)
	}
	n := binary.LittleEndian.Uint64(b[8:])
	img := b[cacheHeader:]
	if uint64(len(img)) != n {
		return nil, fmt.Errorf("%w: %d bytes of %d", errCorruptEntry, len(img), n)
	}
	if crc32.Checksum(img, castagnoli) != binary.LittleEndian.Uint32(b[16:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorruptEntry)
	}
	return img, nil
}

// diskCache is the kernel cache directory.
type diskCache struct{ dir string }

func (c diskCache) path(key string, cubin bool) string {
	if cubin {
		return filepath.Join(c.dir, key+".cubin")
	}
	return filepath.Join(c.dir, key+".ptx")
}

// read returns key's image; a missing or corrupt entry is ok=false. A
// corrupt one is left for the compile that follows to replace by rename
// (removing it here could remove a good entry renamed in meanwhile).
func (c diskCache) read(key string) (image []byte, ok bool) {
	for _, cubin := range []bool{true, false} {
		b, err := os.ReadFile(c.path(key, cubin))
		if err != nil {
			continue
		}
		if img, err := decodeEntry(b); err == nil {
			return img, true
		}
	}
	return nil, false
}

// write stores key's image atomically (temp file, rename).
func (c diskCache) write(key string, image []byte, cubin bool) error {
	return writeFileAtomic(c.path(key, cubin), encodeEntry(image, cubin))
}

// remove drops key's entries (one the driver refused to load).
func (c diskCache) remove(key string) {
	os.Remove(c.path(key, true))
	os.Remove(c.path(key, false))
}

// lock takes key's lock file, waiting up to wait for another holder.
// ok is false when the wait ran out or the lock could not be taken (the
// caller then compiles without it); unlock is then a no-op.
func (c diskCache) lock(ctx context.Context, key string, wait time.Duration) (unlock func(), ok bool, err error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return func() {}, false, fmt.Errorf("gpu: kernel cache %s: %w", c.dir, err)
	}
	f, err := os.OpenFile(filepath.Join(c.dir, key+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return func() {}, false, fmt.Errorf("gpu: kernel cache lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		got, err := tryLock(f)
		if err != nil {
			f.Close()
			return func() {}, false, fmt.Errorf("gpu: kernel cache lock %s: %w", f.Name(), err)
		}
		if got {
			// The file stays: unlinking a lock file races with a process
			// that opened it and is about to lock it.
			return func() { unlockFile(f); f.Close() }, true, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return func() {}, false, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return func() {}, false, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
