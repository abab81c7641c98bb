/**
 * engine/pause — waiting that a caller can cut short: the worker's cycle interval and run()'s
 * bounded reconciliation both wait this way. Imports: nothing.
 */

/** Waits `ms`, or less if `signal` aborts (at once when it already has, or `ms` ≤ 0). */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
