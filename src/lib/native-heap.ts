// Hands memory that native code freed back to the system. glibc keeps what a thread's libraries
// (onnxruntime, libvips, tesseract) freed in that thread's malloc arena after the thread ends, so
// a process that ran a hostile or large document stayed well above its idle size even
// with every pipeline thread gone. malloc_trim(0) releases the free pages of every arena.
// Elsewhere (musl, macOS) there is nothing to call and nothing is done.
import { createRequire } from 'node:module';

let trim: (() => number) | null | undefined;

function bind(): (() => number) | null {
  if (process.platform !== 'linux') return null;
  try {
    // Loaded here, not imported: a platform without a koffi binary still runs, only without this.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const mallocTrim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return () => mallocTrim(0);
  } catch {
    return null;
  }
}

/** Whether this process's C allocator can be asked to give freed memory back (glibc). */
export function canReleaseFreedNativeMemory(): boolean {
  trim ??= bind();
  return trim !== null;
}

/** Whether the C allocator gave memory back (false where it cannot be asked). */
export function releaseFreedNativeMemory(): boolean {
  trim ??= bind();
  return trim ? trim() === 1 : false;
}
