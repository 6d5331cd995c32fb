// A real `quire worker` process (the built binary) for crash tests: its output is collected, and
// every process started is SIGKILLed by `killAll` in the test's afterAll.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './documents.js';

const bin = path.resolve(import.meta.dirname, '../../bin/quire.js');
const started: ChildProcess[] = [];

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
}

/** Starts `quire worker --concurrency 1` with the test's environment plus `env`. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  let output = '';
  const child = spawn(process.execPath, [bin, 'worker', '--concurrency', '1'], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  started.push(child);
  return { child, output: () => output };
}

/** Resolves once the worker says its loops run; rejects with its output if it exits first. */
export function workerStarted(worker: WorkerProcess): Promise<unknown> {
  return waitFor('a worker to start', async () => worker.output().includes('document workers started') || (worker.child.exitCode !== null && Promise.reject(new Error(worker.output()))), 60_000);
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

export function killAll(): void {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
}
