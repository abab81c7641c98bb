/**
 * test/support/history/crash-run — the rig of one crash scenario: a reference destination
 * over HTTP, a proof ledger, and engine child processes with short leases (so an attempt
 * abandoned by a killed child is reclaimed within ~4 s), each with its own worker id.
 * `settle` lets recovery run until nothing is in flight or parked, and `verdict` reads both
 * sides of the history and runs the checker and the auditor.
 */
import {
  startRefdestServer,
  createRefdest,
  type RefdestServer,
} from "../../../src/refdest/index.js";
import { auditLedger, type Violation } from "../../../src/ledger/auditor.js";
import type { HistoryVerdict, ScenarioFacts } from "../../../src/testing/history-checker.js";
import type { Backend } from "../databases.js";
import { EngineProcess, SWEEP_CHILD_ENTRY, sleep } from "./engine-process.js";
import { checkRun } from "./ledger-history.js";
import { openProofLedger, type ProofLedger } from "./proof-ledger.js";

/**
 * Lease and deadlines of crash-suite children: the lease as short as the engine allows
 * (≥ 2 × max(dispatch, probe deadline) + 1 s), so recovery reclaims quickly, with deadlines
 * long enough that a loaded CI machine does not turn a probe INDETERMINATE.
 */
export const CRASH_CHILD_TIMING = {
  IRREVON_LEASE_TTL_MS: "4000",
  IRREVON_DISPATCH_DEADLINE_MS: "1500",
  IRREVON_PROBE_DEADLINE_MS: "1500",
  IRREVON_REREAD_GAP_S: "0",
  IRREVON_BACKOFF_BASE_S: "1",
} as const;

export interface RunVerdict {
  readonly history: HistoryVerdict;
  readonly audit: readonly Violation[];
  readonly openAttempts: number;
  readonly openExecutions: number;
}

export class CrashRun {
  readonly ledger: ProofLedger;
  readonly server: RefdestServer;
  readonly children: EngineProcess[] = [];
  #started = 0;

  private constructor(ledger: ProofLedger, server: RefdestServer) {
    this.ledger = ledger;
    this.server = server;
  }

  static async open(backend: Backend): Promise<CrashRun> {
    const ledger = await openProofLedger(backend);
    const server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    return new CrashRun(ledger, server);
  }

  /** Environment of the next child (`extra` wins). */
  env(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    this.#started += 1;
    return {
      ...this.ledger.env,
      ...CRASH_CHILD_TIMING,
      IRREVON_REFDEST_URL: this.server.url,
      IRREVON_REFDEST_TIER: "C2",
      IRREVON_TEST_HOOKS: "1",
      IRREVON_WORKER_ID: `proof-engine-${this.#started}`,
      ...extra,
    };
  }

  /** Starts a child and waits for READY. */
  async start(extra: Readonly<Record<string, string>> = {}): Promise<EngineProcess> {
    const child = EngineProcess.spawn(`engine#${this.#started + 1}`, this.env(extra));
    this.children.push(child);
    await child.ready();
    return child;
  }

  /** Starts a child armed to die at `seam` (optionally on its n-th hit). */
  startArmed(seam: string, nth = 1): Promise<EngineProcess> {
    return this.start({ IRREVON_CRASH_AT: `${seam}:${nth}` });
  }

  /** Starts a sweeping child (test/support/history/sweep-child.ts) and waits for READY. */
  async startSweeper(extra: Readonly<Record<string, string>> = {}): Promise<EngineProcess> {
    const label = `sweeper#${this.#started + 1}`;
    const child = EngineProcess.spawn(label, this.env(extra), SWEEP_CHILD_ENTRY);
    this.children.push(child);
    await child.ready();
    return child;
  }

  /** Spawns a child that is expected to die during boot (recovery seams); waits for the death. */
  async bootToDeath(extra: Readonly<Record<string, string>>): Promise<NodeJS.Signals | null> {
    const child = EngineProcess.spawn(`engine#${this.#started + 1}`, this.env(extra));
    this.children.push(child);
    return (await child.exited).signal;
  }

  /** Runs recovery until no attempt is in flight and nothing is parked (abandoned leases expire). */
  async settle(child: EngineProcess, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const report = await child.call("RECOVER");
      if (report["inFlight"] === 0 && report["parked"] === 0) return report;
      if (Date.now() > deadline)
        throw new Error(`recovery did not settle: ${JSON.stringify(report)}`);
      await sleep(250);
    }
  }

  /** Write requests the destination received (optionally for one operation id). */
  writes(operationId?: string): number {
    return this.server.refdest
      .requestLog()
      .filter(
        (r) => r.op === "create" && (operationId === undefined || r.client_ref === operationId),
      ).length;
  }

  /** Effects the destination holds (optionally for one operation id). */
  effects(operationId?: string): number {
    return this.server.refdest
      .truthDump()
      .effects.filter((e) => operationId === undefined || e.client_ref === operationId).length;
  }

  /** Counts rows of a ledger query (PGlite: only between children). */
  async count(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.ledger.withReader(async (read) => {
      const { rows } = await read.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (${sql}) q`,
        params,
      );
      return Number(rows[0]?.n ?? 0);
    });
  }

  /** Latest lifecycle of an effect, read from the ledger. */
  async lifecycle(effectId: string): Promise<string | null> {
    return this.ledger.withReader(async (read) => {
      const { rows } = await read.query<{ frontier: string }>(
        "SELECT frontier FROM effect_frontiers WHERE effect_id = $1",
        [effectId],
      );
      return rows[0]?.frontier ?? null;
    });
  }

  /** Classifications of an effect's findings, oldest first. */
  async findings(effectId: string): Promise<string[]> {
    return this.ledger.withReader(async (read) => {
      const { rows } = await read.query<{ classification: string }>(
        "SELECT classification FROM findings WHERE effect_id = $1 ORDER BY finding_id",
        [effectId],
      );
      return rows.map((r) => r.classification);
    });
  }

  /** Checker + auditor + leftovers; every child must have ended (PGlite). */
  async verdict(scenario: ScenarioFacts = {}): Promise<RunVerdict> {
    // One open of the ledger for everything (PGlite: each open costs a WASM boot).
    return this.ledger.withReader(async (read) => {
      const history = await checkRun(read, this.server.refdest, scenario);
      const audit = await auditLedger(read);
      const { rows } = await read.query<{ attempts: number; executions: number }>(
        `SELECT (SELECT count(*)::int FROM open_attempts) AS attempts,
                (SELECT count(*)::int FROM execution_frontiers WHERE frontier IN ('DISPATCHED', 'AMBIGUOUS')) AS executions`,
      );
      return {
        history,
        audit,
        openAttempts: Number(rows[0]?.attempts),
        openExecutions: Number(rows[0]?.executions),
      };
    });
  }

  /** Ends every child (SIGKILL if needed), the destination and the ledger. */
  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => c.kill()));
    await this.server.close();
    await this.ledger.close();
  }
}
