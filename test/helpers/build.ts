// Builds dist/ for tests that run the real `quire` binary, once per test run: the build takes a
// minute or more on 2 cores, so concurrent test files share one (a directory lock), and a dist
// newer than every source file is used as it is. tsc emits even while another area's types are
// mid-change; the binary needs only the emitted JavaScript.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** The latest modification time of the files under dir that `keep` accepts. */
export function newest(dir: string, keep: (name: string) => boolean = () => true): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && keep(entry.name)) max = Math.max(max, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

/**
 * Runs a build once per test run: concurrent test files wait on a directory lock named after it,
 * and an output still fresh is used as it is. `built` checks the output inside the lock.
 */
export async function buildOnce(name: string, fresh: () => boolean, command: string[], built: (code: number | null) => void, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const lock = path.join(os.tmpdir(), `quire-${name}-${inject('runId')}`);
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (fresh()) return;
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('npx', command, { cwd: root, stdio: 'ignore', env });
      child.on('exit', resolve);
    });
    built(code);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

const cli = path.join(root, 'dist/cli.js');

function fresh(): boolean {
  return fs.existsSync(cli) && fs.statSync(cli).mtimeMs >= newest(path.join(root, 'src'), (name) => name.endsWith('.ts'));
}

export function ensureBuilt(): Promise<void> {
  return buildOnce('build', fresh, ['tsc', '-p', 'tsconfig.build.json'], (code) => {
    if (!fs.existsSync(cli)) throw new Error(`the build produced no dist/cli.js (tsc exit ${code})`);
    // Mark the build as newer than the sources even if tsc left a file untouched.
    const now = new Date();
    fs.utimesSync(cli, now, now);
  });
}
