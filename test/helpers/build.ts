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

function newest(dir: string): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) max = Math.max(max, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

function fresh(): boolean {
  const cli = path.join(root, 'dist/cli.js');
  return fs.existsSync(cli) && fs.statSync(cli).mtimeMs >= newest(path.join(root, 'src'));
}

export async function ensureBuilt(): Promise<void> {
  const lock = path.join(os.tmpdir(), `quire-build-${inject('runId')}`);
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
      const child = spawn('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'ignore' });
      child.on('exit', resolve);
    });
    if (!fs.existsSync(path.join(root, 'dist/cli.js'))) throw new Error(`the build produced no dist/cli.js (tsc exit ${code})`);
    // Mark the build as newer than the sources even if tsc left a file untouched.
    const now = new Date();
    fs.utimesSync(path.join(root, 'dist/cli.js'), now, now);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
