// Retry delay of a failed delivery: exponential from the configured base, capped at an hour, with
// "equal jitter" (half fixed, half random) so receivers that failed together are not retried in
// lockstep (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/).
const CAP_MS = 60 * 60 * 1000;

export function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(CAP_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
