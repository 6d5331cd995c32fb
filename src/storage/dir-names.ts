// The entries of a directory that may not exist yet (a store or staging area before its first file).
import fs from 'node:fs/promises';

/** The names in `dir`; none when it does not exist. */
export async function namesIn(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
}
