// The held-out slice of every eval set: documents whose file name hashes (FNV-1a, 32 bit) to 0
// mod 5. They are scored apart from the rest, so a number that holds there holds on documents
// the extractor was never tuned on.

/** FNV-1a over the UTF-16 code units of a string, as an unsigned 32-bit integer. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Whether a document (by file name, without directory) belongs to the held-out slice. */
export const isHeldOut = (fileName: string): boolean => fnv1a(fileName) % 5 === 0;

export type Slice = 'tuned' | 'held_out';
export const sliceOf = (fileName: string): Slice => (isHeldOut(fileName) ? 'held_out' : 'tuned');
