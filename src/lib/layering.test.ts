// The layers below HTTP never reach up into it: they throw coded errors (lib/errors.ts) and the
// HTTP layer alone decides statuses. Checked on the import graph of the source tree.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..');
const HTTP = path.join(SRC, 'http');
const BELOW_HTTP = ['domain', 'pipeline', 'queue', 'storage', 'lib'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return found.map((spec) => path.resolve(path.dirname(file), spec));
}

const reachesHttp = (target: string) => target === HTTP || target.startsWith(HTTP + path.sep);

describe('layering', () => {
  it('no module under domain, pipeline, queue, storage or lib imports from http', () => {
    const offenders: string[] = [];
    let edges = 0;
    for (const layer of BELOW_HTTP) {
      for (const file of sourceFiles(path.join(SRC, layer))) {
        for (const target of importsOf(file)) {
          edges++;
          if (reachesHttp(target)) offenders.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    expect(offenders).toEqual([]);
    expect(edges).toBeGreaterThan(500);
  });

  it('sees an import of http where one exists (the check is not blind)', () => {
    const cli = importsOf(path.join(SRC, 'cli.ts'));
    expect(cli.some(reachesHttp)).toBe(true);
  });
});
