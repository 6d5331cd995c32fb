// A `local` connection's directory must stay under QUIRE_LOCAL_ROOT. Symlinks are resolved
// before the check (a link inside the root that points outside it is an escape), including for
// the part of the path that exists today when the rest is still to be created.
import fs from 'node:fs';
import path from 'node:path';

export class PathEscapeError extends Error {}

export function resolveUnderRoot(root: string, relative: string): string {
  fs.mkdirSync(root, { recursive: true });
  const realRoot = fs.realpathSync(root);
  const wanted = path.resolve(realRoot, relative);
  // The longest prefix that exists, with its links resolved, plus the segments still to create.
  let existing = wanted;
  const rest: string[] = [];
  while (!fs.existsSync(existing)) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  const resolved = path.join(fs.realpathSync(existing), ...rest);
  if (resolved !== realRoot && !resolved.startsWith(realRoot + path.sep)) {
    throw new PathEscapeError(`The path leaves the local connections root (${realRoot}); use a path inside it.`);
  }
  return resolved;
}
