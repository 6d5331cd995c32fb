// What the worker's event loop went through while a job ran: the longest gap between two firings
// of a 1 ms timer (how long the loop was held at once), and the stage timings the job logged.

/** The stage timings the worker logged (its JSON log lines) when the job last settled. */
export function timingsOf(logs: string[], jobId: string): Record<string, number> {
  const line = logs
    .map((l) => JSON.parse(l) as { jobId?: string; msg?: string; timings_ms?: Record<string, number> })
    .filter((l) => l.jobId === jobId && l.msg === 'job settled')
    .pop();
  if (!line?.timings_ms) throw new Error(`no settle line for ${jobId}`);
  return line.timings_ms;
}

/** Runs `work` while a 1 ms interval timer records its firings; resolves with the longest gap between two. */
export async function longestHold<T>(work: () => Promise<T>): Promise<{ value: T; holdMs: number }> {
  let last = performance.now();
  let holdMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    holdMs = Math.max(holdMs, now - last);
    last = now;
  }, 1);
  try {
    return { value: await work(), holdMs };
  } finally {
    clearInterval(timer);
  }
}
