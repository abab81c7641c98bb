/**
 * test/support/history/lock-barrier — makes many engine processes contend deterministically.
 * The test holds the slot row's lock (SELECT … FOR UPDATE on scope_slots, the first lock of
 * every claim), sends each process its DISPATCH line, waits until that many backends are
 * queued on a lock, and only then commits: every claim is inside its transaction, past
 * whatever it read before locking, when the lock opens. A claim that checked anything before
 * taking the lock (check-then-act) would be caught here every time, not by luck.
 * Also: a sampler of the open attempts in one slot, and a naive check-then-act guard for the
 * control, under an in-process barrier between its read and its write.
 */
import pg from "pg";
import type { EngineProcess, EngineReply } from "./engine-process.js";
import { sleep } from "./engine-process.js";

export interface BarrierResult {
  /** Backends that were queued on a lock when the barrier opened. */
  readonly gathered: number;
  readonly replies: readonly EngineReply[];
}

/** Role sessions give up on a lock after 5 s (lock_timeout): open the barrier well before. */
const GATHER_TIMEOUT_MS = 3_500;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/**
 * Holds the slot lock, calls `start()` (which must make `expected` transactions queue on it),
 * waits until that many backends wait on a lock (or the gather timeout), then commits.
 */
export async function underSlotLock<T>(
  url: string,
  slot: { readonly scope: string; readonly effectType: string },
  expected: number,
  start: () => ReadonlyArray<Promise<T>>,
): Promise<{ readonly gathered: number; readonly results: T[] }> {
  const holder = await connect(url);
  const watcher = await connect(url);
  let gathered = 0;
  let pending: ReadonlyArray<Promise<T>> = [];
  try {
    await holder.query(
      "INSERT INTO scope_slots (scope, effect_type) VALUES ($1, $2) ON CONFLICT DO NOTHING",
      [slot.scope, slot.effectType],
    );
    await holder.query("BEGIN");
    await holder.query(
      "SELECT 1 FROM scope_slots WHERE scope = $1 AND effect_type = $2 FOR UPDATE",
      [slot.scope, slot.effectType],
    );
    pending = start();
    const deadline = Date.now() + GATHER_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const { rows } = await watcher.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      gathered = Number(rows[0]?.n ?? 0);
      if (gathered >= expected) break;
      await sleep(15);
    }
    await holder.query("COMMIT");
  } finally {
    await holder.end().catch(() => undefined);
    await watcher.end().catch(() => undefined);
  }
  return { gathered, results: await Promise.all(pending) };
}

/** Sends `sends[i][1]` to `sends[i][0]` under the slot lock; returns every reply. */
export async function releaseTogether(
  url: string,
  slot: { readonly scope: string; readonly effectType: string },
  sends: ReadonlyArray<readonly [EngineProcess, string]>,
): Promise<BarrierResult> {
  const { gathered, results } = await underSlotLock(url, slot, sends.length, () =>
    sends.map(([child, line]) => {
      child.post(line);
      return child.nextReply();
    }),
  );
  return { gathered, replies: results };
}

/** Samples how many attempts are open in one slot, until `stop()`; returns the maximum seen. */
export function sampleOpenAttempts(
  url: string,
  slot: { readonly scope: string; readonly effectType: string },
): { stop(): Promise<{ max: number; samples: number }> } {
  let running = true;
  let max = 0;
  let samples = 0;
  const loop = (async () => {
    const client = await connect(url);
    try {
      while (running) {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM open_attempts WHERE scope = $1 AND effect_type = $2",
          [slot.scope, slot.effectType],
        );
        max = Math.max(max, Number(rows[0]?.n ?? 0));
        samples += 1;
        await sleep(5);
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { max, samples };
    },
  };
}

/**
 * The control: N workers each run "is there a claim? if not, insert one" in its own
 * connection and transaction — reading BEFORE taking the slot lock, which is the mistake —
 * under the same slot-lock barrier as the engine processes. Returns how many workers
 * believed they won (a correct guard admits exactly one).
 */
export async function naiveCheckThenAct(
  url: string,
  slot: { readonly scope: string; readonly effectType: string },
  workers: number,
): Promise<{ readonly gathered: number; readonly admitted: number }> {
  const setup = await connect(url);
  await setup.query(
    "CREATE TABLE IF NOT EXISTS naive_claims (scope text NOT NULL, effect_type text NOT NULL, worker int NOT NULL)",
  );
  await setup.end();
  const clients = await Promise.all(Array.from({ length: workers }, () => connect(url)));
  try {
    const { gathered, results } = await underSlotLock(url, slot, workers, () =>
      clients.map(async (c, worker) => {
        await c.query("BEGIN");
        const { rows } = await c.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM naive_claims WHERE scope = $1 AND effect_type = $2",
          [slot.scope, slot.effectType],
        );
        await c.query(
          "SELECT 1 FROM scope_slots WHERE scope = $1 AND effect_type = $2 FOR UPDATE",
          [slot.scope, slot.effectType],
        );
        if (Number(rows[0]?.n) > 0) {
          await c.query("ROLLBACK");
          return false;
        }
        await c.query("INSERT INTO naive_claims (scope, effect_type, worker) VALUES ($1, $2, $3)", [
          slot.scope,
          slot.effectType,
          worker,
        ]);
        await c.query("COMMIT");
        return true;
      }),
    );
    return { gathered, admitted: results.filter(Boolean).length };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
