// A `local` connection's directory must stay inside its tenant's own folder under
// QUIRE_LOCAL_ROOT (`<root>/<tenant_id>`): one tenant's connection can never read, overwrite or
// delete another's files. Symlinks are resolved before the check (a link inside the folder that
// points outside it is an escape), including for the part of the path that exists today when the
// rest is still to be created.
import fs from 'node:fs';
import path from 'node:path';
import { TENANT_ID_PATTERN } from '../lib/ids.js';

export class PathEscapeError extends Error {}

const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

/** A tenant's own folder under the local root; its `local` connections' paths are relative to it. */
export function tenantFolder(root: string, tenantId: string): string {
  if (!TENANT_ID.test(tenantId)) throw new Error(`${JSON.stringify(tenantId)} is not a tenant id`);
  return path.join(root, tenantId);
}

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
    // The server's own directories are no business of the tenant's: the message names none.
    throw new PathEscapeError("The path leaves this tenant's folder for local connections; use a path inside it.");
  }
  return resolved;
}
