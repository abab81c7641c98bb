/**
 * test/support/absence-world — an engine and an in-process reference destination that share
 * one virtual time line, with creates whose timing a test scripts: how long the wire call
 * lasts, when (relative to its start) the destination commits — possibly after our side of
 * the call ended, as a server keeps working on a dropped connection — and what the caller sees
 * (a lost response, a timeout, or the answer). Time moves only through `advance`, which also
 * runs the destination commits that have come due. Used by the absence-rule suites.
 */
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import type { HttpExchange, HttpRequestSpec, HttpTransport } from "../../src/adapters/http-kit.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { Clock } from "../../src/engine/clock.js";
import type { EngineConfig } from "../../src/engine/config.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import type { Db } from "../../src/db/db.js";

/** How the next create behaves on the wire. */
export interface CreateScript {
  /** How long our side of the call lasts (virtual ms). */
  readonly durationMs: number;
  /** When the destination commits, relative to the call's start; null = never. */
  readonly commitAtMs: number | null;
  /** What the caller sees when its side ends. */
  readonly answer: "lost" | "timeout";
}

/**
 * The world's one time line. A plain Clock (no `offsetMs`): the engine's time is then the
 * database clock plus (virtual − host now), i.e. virtual time itself to within the latency of
 * one query, and the destination reads the very same number — so a boundary in a test is the
 * same boundary for both.
 */
export interface VirtualTime extends Clock {
  nowMs(): number;
  set(ms: number): void;
}

function virtualTime(startMs: number): VirtualTime {
  let nowMs = startMs;
  return {
    now: () => new Date(nowMs),
    nowMs: () => nowMs,
    set: (ms) => {
      nowMs = ms;
    },
  };
}

export interface AbsenceWorld {
  readonly clock: VirtualTime;
  readonly refdest: Refdest;
  readonly irrevon: Irrevon;
  readonly adapterId: string;
  /** The script the next create follows (consumed by it). Unscripted creates pass through. */
  script(next: CreateScript): void;
  /** Moves virtual time forward, running destination commits that came due. */
  advance(ms: number): Promise<void>;
  /** Creates the destination received, per client ref (commits run so far). */
  creates(clientRef: string): number;
  /** Destination commits still pending (a server still working). */
  pendingCommits(): number;
  close(): Promise<void>;
}

export interface WorldOptions {
  readonly lagSeconds: number;
  readonly config?: Partial<EngineConfig>;
  readonly declaration?: CapabilityDeclaration;
}

/** Opens the world on an already migrated ledger (as irrevon_app). */
export async function openAbsenceWorld(db: Db, options: WorldOptions): Promise<AbsenceWorld> {
  const clock = virtualTime(Date.now());
  const refdest = createRefdest({
    tier: "C2",
    seed: 42,
    lagSeconds: options.lagSeconds,
    clock: { nowMs: () => clock.nowMs() },
  });
  const inner = createInProcessTransport(refdest);
  const pending: Array<{ readonly atMs: number; readonly run: () => Promise<unknown> }> = [];
  let next: CreateScript | null = null;

  const runDue = async (): Promise<void> => {
    const nowMs = clock.nowMs();
    pending.sort((a, b) => a.atMs - b.atMs);
    while (pending.length > 0 && (pending[0]?.atMs ?? Infinity) <= nowMs) {
      await pending.shift()?.run();
    }
  };
  const advance = async (ms: number): Promise<void> => {
    // Step to each due commit so it happens at its own instant.
    const target = clock.nowMs() + ms;
    for (;;) {
      const due = pending.reduce((m, p) => Math.min(m, p.atMs), Infinity);
      if (due > target) break;
      clock.set(Math.max(due, clock.nowMs()));
      await runDue();
    }
    clock.set(target);
    await runDue();
  };

  const transport: HttpTransport = async (spec: HttpRequestSpec): Promise<HttpExchange> => {
    const script = spec.method === "POST" ? next : null;
    if (script === null) return inner(spec);
    next = null;
    const startMs = clock.nowMs();
    if (script.commitAtMs !== null) {
      pending.push({ atMs: startMs + script.commitAtMs, run: () => inner({ ...spec, deadlineMs: 60_000 }) });
    }
    await advance(script.durationMs);
    return script.answer === "timeout"
      ? { kind: "timeout", sendState: "sent_no_response" }
      : { kind: "transport_error", sendState: "sent_no_response", errorCode: "ECONNRESET" };
  };

  const declaration =
    options.declaration ??
    refdestDeclaration("C2", options.lagSeconds > 0 ? { lagSeconds: options.lagSeconds } : {});
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration,
    transport,
  });
  const irrevon = await openIrrevon({
    database: db,
    adapters: [adapter],
    clock,
    config: {
      rereadGapSeconds: 60,
      dispatchDeadlineMs: 30_000,
      probeDeadlineMs: 2_000,
      leaseTtlMs: 600_000,
      ...options.config,
    },
    workerId: "worker-absence",
    crashPoints: NO_CRASH_POINTS,
  });
  return {
    clock,
    refdest,
    irrevon,
    adapterId: adapter.adapterId,
    script: (s) => {
      next = s;
    },
    advance,
    creates: (clientRef) =>
      refdest.truthDump().effects.filter((e) => e.client_ref === clientRef).length,
    pendingCommits: () => pending.length,
    close: () => irrevon.close(),
  };
}
