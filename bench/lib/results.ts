// What every bench records beside its figures, and where it writes them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** The machine the figures were measured on; a shared machine skews every number, and the 1-minute load at the end says how much. */
export function machineFacts() {
  return { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0]!.toFixed(2) };
}

/** Writes `result` to bench/results/<name>-latest.json, replacing the previous run's. */
export function writeLatest(name: string, result: unknown): void {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL(`${name}-latest.json`, dir), `${JSON.stringify(result, null, 2)}\n`);
}
