import { describe, expect, it } from 'vitest';
import { canReleaseFreedNativeMemory, releaseFreedNativeMemory, tuneNativeAllocator } from './native-heap.js';

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;

describe('releaseFreedNativeMemory', () => {
  it.runIf(process.platform === 'linux' && glibc)('reaches glibc\'s malloc_trim on Linux', () => {
    expect(canReleaseFreedNativeMemory()).toBe(true);
    // Freed native memory to give back: a burst of buffers from Node's allocator, then dropped.
    let keep: Buffer[] | null = Array.from({ length: 2000 }, () => Buffer.alloc(64 * 1024, 1));
    expect(keep.length).toBe(2000);
    keep = null;
    expect(typeof releaseFreedNativeMemory()).toBe('boolean');
  });
});

describe('tuneNativeAllocator', () => {
  it.runIf(process.platform === 'linux' && glibc)('applies the settings the environment left unset, once per process', () => {
    expect(tuneNativeAllocator({ MALLOC_ARENA_MAX: '4' })).toEqual(['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']);
    expect(tuneNativeAllocator({})).toEqual([]);
  });
});
