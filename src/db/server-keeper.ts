// Keeps the embedded PostgreSQL a Quire process owns running. A server that ends while Quire runs
// (killed for memory, crashed) is started again on the same port and data dir, where its own
// crash recovery replays the write-ahead log; meanwhile database calls fail and are retried as on
// any outage. A server this process spawned is watched through its exit; one it adopted (left
// behind by a Quire process that crashed) through its pid.
import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';

/** How often an adopted server's pid is looked at. */
const ADOPTED_POLL_MS = 1_000;
/** The pause before the first restart, doubled after each failed one up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 30_000;

export interface KeeperOptions {
  /** Spawns the server. */
  launch(): ChildProcess;
  /** Resolves once the server accepts connections; rejects when `ended()` names why it exited, or after its deadline. */
  ready(ended: () => string | null): Promise<void>;
  log: Logger;
  /** The server's log file, named in exit reasons. */
  logFile: string;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Fast shutdown of a postmaster this process did not spawn, waiting until it has exited. */
async function stopPostmaster(pid: number, timeoutMs = 60_000): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + timeoutMs;
  while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

export class ServerKeeper {
  private child: ChildProcess | null = null;
  private adopted: number | null = null;
  private watch: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly options: KeeperOptions) {}

  private reason(code: number | null, signal: NodeJS.Signals | null): string {
    return `code ${code} signal ${signal} (see ${this.options.logFile})`;
  }

  /** Spawns the server and waits until it accepts connections; throws when it does not. Returns its pid. */
  async start(): Promise<number> {
    const child = await this.launchReady();
    this.supervise(child);
    return child.pid!;
  }

  /**
   * Spawns a server, the current child from that moment (a shutdown meanwhile stops it), and
   * waits until it accepts connections. One that did not, and is still running, is stopped.
   */
  private async launchReady(): Promise<ChildProcess> {
    const child = (this.child = this.options.launch());
    let ended: string | null = null;
    child.once('exit', (code, signal) => (ended = this.reason(code, signal)));
    try {
      await this.options.ready(() => ended);
    } catch (err) {
      if (ended === null && !this.stopping) child.kill('SIGINT');
      throw err;
    }
    return child;
  }

  /** Takes charge of a running server this process did not spawn. */
  adopt(pid: number): void {
    this.adopted = pid;
    this.watch = setInterval(() => {
      if (this.stopping || pidAlive(pid)) return;
      this.unwatch();
      this.adopted = null;
      this.options.log.error({ postgresPid: pid }, 'embedded PostgreSQL stopped unexpectedly; starting it again');
      void this.restart(1);
    }, ADOPTED_POLL_MS);
    this.watch.unref();
  }

  /** Fast shutdown (SIGINT: sessions end, data is checkpointed); nothing is started again after it. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unwatch();
    if (this.adopted !== null) return stopPostmaster(this.adopted);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
  }

  private unwatch(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  private supervise(running: ChildProcess): void {
    running.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.options.log.error({ postgresPid: running.pid, reason: this.reason(code, signal) }, 'embedded PostgreSQL stopped unexpectedly; starting it again');
      void this.restart(1);
    });
  }

  private async restart(attempt: number): Promise<void> {
    // Backends of a killed server hold its shared memory until they notice; the next try waits.
    await new Promise((r) => setTimeout(r, Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1))));
    if (this.stopping) return;
    let next: ChildProcess;
    try {
      next = await this.launchReady();
    } catch (err) {
      if (this.stopping) return;
      this.options.log.warn({ attempt, err: (err as Error).message }, 'embedded PostgreSQL did not start again yet');
      return this.restart(attempt + 1);
    }
    if (this.stopping) return;
    this.supervise(next);
    this.options.log.info({ postgresPid: next.pid, attempt }, 'embedded PostgreSQL started again');
  }
}
