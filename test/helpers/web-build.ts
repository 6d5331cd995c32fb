// Builds the console (web/dist) for tests that load it, once per test run: a directory lock keeps
// concurrent test files from building into the same directory, and a build newer than every
// source file under web/ is used as it is.
import fs from 'node:fs';
import path from 'node:path';
import { buildOnce, newest } from './build.js';

const root = path.resolve(import.meta.dirname, '../..');
export const webDist = path.join(root, 'web/dist');

function fresh(): boolean {
  const index = path.join(webDist, 'index.html');
  if (!fs.existsSync(index)) return false;
  const sources = Math.max(newest(path.join(root, 'web/src')), fs.statSync(path.join(root, 'web/index.html')).mtimeMs, fs.statSync(path.join(root, 'web/vite.config.ts')).mtimeMs);
  return fs.statSync(index).mtimeMs >= sources;
}

export function ensureWebBuilt(): Promise<void> {
  // A child process with NODE_ENV=production: inside vitest (NODE_ENV=test) React would be
  // bundled in its development build.
  return buildOnce(
    'web-build',
    fresh,
    ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    (code) => {
      if (!fs.existsSync(path.join(webDist, 'index.html'))) throw new Error(`the console build produced no web/dist/index.html (vite exit ${code})`);
    },
    { ...process.env, NODE_ENV: 'production' },
  );
}
