// Hands memory that native code freed back to the system. glibc keeps what a thread's libraries
// (onnxruntime, libvips, tesseract) freed in that thread's malloc arena after the thread ends, so
// a process that ran a hostile or large document stayed well above its idle size even
// with every pipeline thread gone. malloc_trim(0) releases the free pages of every arena.
// Elsewhere (musl, macOS) there is nothing to call and nothing is done.
import { createRequire } from 'node:module';

interface Glibc {
  mallocTrim: (pad: number) => number;
  mallopt: (param: number, value: number) => number;
}

let glibc: Glibc | null | undefined;

function bind(): Glibc | null {
  if (process.platform !== 'linux') return null;
  try {
    // Loaded here, not imported: a platform without a koffi binary still runs, only without this.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const libc = koffi.load('libc.so.6');
    return {
      mallocTrim: libc.func('int malloc_trim(size_t pad)') as (pad: number) => number,
      mallopt: libc.func('int mallopt(int param, int value)') as (param: number, value: number) => number,
    };
  } catch {
    return null;
  }
}

/**
 * glibc's allocator settings for a process that runs pipeline threads, each applied unless the
 * environment already set it (glibc reads `MALLOC_*_` once at start; these are the same knobs).
 * - Two arenas: every thread that ever ran keeps its own arena otherwise (up to 8 per core), and
 *   what a thread's libraries left there, fragmented, stays after the thread ends.
 * - A fixed 4 MB mmap threshold: by default glibc raises it up to 32 MB after the first large
 *   block is freed, from then on carving page-sized tensors and buffers out of the arenas;
 *   in their own mappings they go back to the system when freed.
 * - An 8 MB trim threshold, which fixing the mmap threshold would otherwise leave at 128 KB.
 * Measured in docs/performance.md ("Worker memory") and docs/reliability.md (fuzz campaign).
 */
const ALLOCATOR_SETTINGS = [
  { env: 'MALLOC_ARENA_MAX', param: -8, value: 2 },
  { env: 'MALLOC_MMAP_THRESHOLD_', param: -3, value: 4 * 1024 * 1024 },
  { env: 'MALLOC_TRIM_THRESHOLD_', param: -1, value: 8 * 1024 * 1024 },
] as const;

let tuned = false;

/** Applies ALLOCATOR_SETTINGS once per process; the names of those applied (none off glibc). */
export function tuneNativeAllocator(env: NodeJS.ProcessEnv = process.env): string[] {
  glibc ??= bind();
  if (!glibc || tuned) return [];
  tuned = true;
  const applied: string[] = [];
  for (const setting of ALLOCATOR_SETTINGS) {
    if (env[setting.env] !== undefined) continue;
    if (glibc.mallopt(setting.param, setting.value) === 1) applied.push(setting.env);
  }
  return applied;
}

/** Whether this process's C allocator can be asked to give freed memory back (glibc). */
export function canReleaseFreedNativeMemory(): boolean {
  glibc ??= bind();
  return glibc !== null;
}

/** Whether the C allocator gave memory back (false where it cannot be asked). */
export function releaseFreedNativeMemory(): boolean {
  glibc ??= bind();
  return glibc ? glibc.mallocTrim(0) === 1 : false;
}
