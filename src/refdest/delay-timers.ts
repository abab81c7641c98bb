/**
 * refdest/delay-timers — the real-time waits of DELAY faults. Every wait can be cut short
 * (reset, server close) so a test or a shutdown never hangs on a 30-second delay; a cut wait
 * reports "cancelled" and the caller answers with a dropped connection. Imports: nothing.
 */

interface Pending {
  readonly timer: NodeJS.Timeout;
  readonly resolve: (v: "elapsed" | "cancelled") => void;
}

export class DelayTimers {
  #pending = new Set<Pending>();

  /** Wait `ms` real milliseconds, unless cancelled first. */
  wait(ms: number): Promise<"elapsed" | "cancelled"> {
    return new Promise((resolve) => {
      const entry: Pending = {
        timer: setTimeout(() => {
          this.#pending.delete(entry);
          resolve("elapsed");
        }, ms),
        resolve,
      };
      this.#pending.add(entry);
    });
  }

  /** End every pending wait now. */
  cancelAll(): void {
    for (const p of this.#pending) {
      clearTimeout(p.timer);
      p.resolve("cancelled");
    }
    this.#pending.clear();
  }
}
