/**
 * bench/arms/reference — arm R: this engine through its public API (reference design §3.3),
 * on PGlite (`R@pglite`) or a Postgres server (`R@postgres`). One engine per unit, opened at
 * `beginUnit` (see reference-engine for the databases).
 *
 * Episode: register the contract (stamp backdated 48 h when the authority expired; the
 * branch cancelled through the operator API before dispatch when the episode says so), then:
 *   - crash fault: the engine is closed, a CHILD process opens the same database and
 *     dispatches with the crash point armed at `adapter.post_call`, so it is SIGKILLed after
 *     the destination committed and before the receipt; a fresh engine in this process then
 *     runs recovery, which asks the destination before anything is re-sent;
 *   - otherwise one dispatch: denied ⇒ suppressed (with the deny check); settled ⇒
 *     committed/failed; AMBIGUOUS ⇒ (retry storm: `retries` more dispatches, which the ledger
 *     answers `pending_reconciliation` without touching the wire) reconcile by status query,
 *     waiting out a declared read lag or the absence clock when the engine says so.
 * When the fault left the agent without an answer it retries: the same intent registered
 * again (reworded parameters for re-synthesis and re-plan, authority `<ref>-retry`, fresh
 * stamp) and dispatched; the gate answers with a dedup deny. On an opaque (C3) destination
 * reconcile cannot query: the execution is escalated and the agent is not told to retry.
 * Imports: node built-ins, bench/arms/{arm,reference-engine}, the package entry.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  IrrevonError,
  type DatabaseOption,
  type DispatchOutcome,
  type IntentContractInput,
  type Irrevon,
} from "../../index.js";
import {
  ActionLog,
  type ArmDriver,
  type ArmOutcome,
  type ArmSpec,
  type ArmUnitContext,
  type Episode,
  type TrialReport,
} from "./arm.js";
import {
  adapterIdFor,
  BENCH_ENGINE_CONFIG,
  CRASH_CHILD_ENGINE_CONFIG,
  freshLedgerDir,
  freshUnitDatabase,
  openBenchEngine,
  READ_LAG_SECONDS,
  sharedLedger,
  unitNamespace,
  type EngineTarget,
} from "./reference-engine.js";

/** R's configuration as recorded in its spec. */
export const REFERENCE_CONFIG: Readonly<Record<string, unknown>> = {
  engine: BENCH_ENGINE_CONFIG,
  crash_child_engine: CRASH_CHILD_ENGINE_CONFIG,
  stale_authority_backdate_hours: 48,
  crash_seam: "adapter.post_call",
  ledger_per: { crash_units: "unit", other_units: "process (namespace per unit)" },
  read_lag_seconds_declared: READ_LAG_SECONDS,
};

const CRASH_FAULT = "crash-after-effect-before-response";
const AGENT_RETRY_FAULTS = new Set([
  "crash-after-effect-before-response",
  "response-lost",
  "retry-storm",
  "semantic-resynthesis",
  "read-lag",
  "agent-replan",
  "c3-real-effect",
]);
/** How long R keeps reconciling one effect before it reports it unresolved. */
const SETTLE_BUDGET_MS = 30_000;
const CHILD_TIMEOUT_MS = 60_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function childEntry(): { file: string; execArgv: string[] } {
  const ts = import.meta.url.endsWith(".ts");
  const file = fileURLToPath(new URL(`./reference-child.${ts ? "ts" : "js"}`, import.meta.url));
  return { file, execArgv: ts ? ["--import", import.meta.resolve("tsx")] : [] };
}

/** A crash child started ahead of need (its modules load while the parent works). */
interface Spare {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnChild(): Spare {
  const { file, execArgv } = childEntry();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    IRREVON_TEST_HOOKS: "1",
    IRREVON_CRASH_AT: "adapter.post_call",
  };
  // The crash hook refuses to arm in a benchmark process; this child exists only to die.
  delete env["IRREVON_BENCH"];
  const child = spawn(process.execPath, [...execArgv, file], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (c: Buffer) => (output.stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (output.stderr += c.toString("utf8")));
  child.stdin.on("error", () => undefined); // a child that died early is reported by its exit
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return { child, output, exited };
}

interface Settled {
  readonly outcome: ArmOutcome;
  readonly claim?: "unique" | "absent";
}

/** Arm R. */
export class ReferenceArm implements ArmDriver {
  readonly spec: ArmSpec;
  #unit: ArmUnitContext | null = null;
  #target: EngineTarget | null = null;
  #engine: Irrevon | null = null;
  /** Whether the unit has a ledger of its own (crash cells) or a namespace in the shared one. */
  #own = false;
  #namespace = "";
  #drop: (() => Promise<void>) | null = null;
  #dataDir: string | null = null;
  #generation = 0;
  #spare: Spare | null = null;

  constructor(spec: ArmSpec) {
    this.spec = spec;
  }

  async beginUnit(context: ArmUnitContext): Promise<void> {
    this.#unit = context;
    const lag = context.cell.fault === "read-lag" ? READ_LAG_SECONDS : 0;
    const postgres = this.spec.id === "R@postgres";
    if (postgres && context.postgresUrl === null) {
      throw new IrrevonError(
        "config_invalid",
        "R@postgres needs a Postgres server URL: set ArmUnitContext.postgresUrl, or run R@pglite",
        { details: { field: "postgresUrl" } },
      );
    }
    const serverUrl = postgres ? context.postgresUrl : null;
    let database: DatabaseOption;
    if (context.cell.fault !== CRASH_FAULT) {
      // A fresh namespace in the process's shared ledger: nothing of it to recover.
      database = await sharedLedger(serverUrl);
      this.#own = false;
    } else if (serverUrl !== null) {
      this.#spare = spawnChild();
      const fresh = await freshUnitDatabase(serverUrl, context.unitSeed);
      this.#drop = fresh.drop;
      database = { url: fresh.url };
      this.#own = true;
    } else {
      // A child process must open the same ledger: file-backed, one directory per unit, a copy
      // of the process's template ledger. Always fresh: a directory left by an earlier run of
      // the same unit is replaced.
      this.#spare = spawnChild();
      const dataDir = join(context.workDir, "ledger");
      mkdirSync(context.workDir, { recursive: true });
      await freshLedgerDir(dataDir);
      this.#dataDir = dataDir;
      database = { dataDir };
      this.#own = true;
    }
    const namespace = unitNamespace(context.unitSeed);
    this.#namespace = namespace;
    this.#target = {
      tier: context.destination.tier,
      baseUrl: context.destination.baseUrl,
      lagSeconds: lag,
      database,
      workerId: `bench-r-${namespace}-0`,
    };
  }

  async endUnit(): Promise<void> {
    try {
      await this.#engine?.close();
    } finally {
      const spare = this.#spare;
      this.#spare = null;
      if (spare !== null) {
        spare.child.kill("SIGKILL");
        await spare.exited;
      }
      this.#engine = null;
      await this.#drop?.();
      this.#drop = null;
      if (this.#dataDir !== null) rmSync(this.#dataDir, { recursive: true, force: true });
      this.#dataDir = null;
      this.#unit = null;
      this.#target = null;
    }
  }

  #require(): { unit: ArmUnitContext; target: EngineTarget; namespace: string } {
    if (this.#unit === null || this.#target === null) {
      throw new IrrevonError(
        "illegal_state",
        `${this.spec.id}: runEpisode before beginUnit; call beginUnit(context) first`,
      );
    }
    return { unit: this.#unit, target: this.#target, namespace: this.#namespace };
  }

  /** The unit's engine, opened on first use; on the unit's own ledger it runs recovery first. */
  async #live(): Promise<Irrevon> {
    if (this.#engine !== null) return this.#engine;
    const { target } = this.#require();
    this.#generation += 1;
    const engine = await openBenchEngine({
      ...target,
      workerId: `${target.workerId}-r${this.#generation}`,
    });
    this.#engine = engine;
    if (this.#own) await engine.recover();
    return engine;
  }

  #contract(ep: Episode, retry: boolean): IntentContractInput {
    const { target, namespace } = this.#require();
    const reworded = retry && ep.resynth_parameters !== null;
    const stamped = ep.authority_expired && !retry ? Date.now() - 48 * 3_600_000 : Date.now();
    return {
      schema_version: "1",
      stable_ids: { ...(reworded ? (ep.resynth_stable_ids ?? ep.stable_ids) : ep.stable_ids) },
      effect_type: ep.effect_type,
      scope: `${namespace}/${ep.scope}`,
      effect_class: ep.effect_class,
      adapter_id: adapterIdFor(target.tier, target.lagSeconds),
      parameters: { ...(reworded ? ep.resynth_parameters : ep.parameters) },
      authority_ref: `${namespace}/${ep.authority_ref}${retry ? "-retry" : ""}`,
      stamped_at: new Date(stamped).toISOString(),
      ...(ep.branch_ref === null ? {} : { branch_ref: `${namespace}/${ep.branch_ref}` }),
    };
  }

  async runEpisode(ep: Episode): Promise<TrialReport> {
    const log = new ActionLog();
    let dispatched = false;
    const report = (settled: Settled, extra: Record<string, unknown> = {}): TrialReport => ({
      trial_index: ep.trial_index,
      arm_outcome: settled.outcome,
      dispatch_attempted: dispatched,
      detail: {
        log: log.entries,
        ...(settled.claim === undefined ? {} : { oracle_claim: settled.claim }),
        ...extra,
      },
    });

    let effectId: string;
    let settled: Settled;
    if (ep.fault === CRASH_FAULT) {
      effectId = await this.#crashChild(ep, log);
      dispatched = true;
      settled = await this.#settle(effectId, log);
    } else {
      const engine = await this.#live();
      const contract = this.#contract(ep, false);
      const registered = await engine.register(contract);
      effectId = registered.effectId;
      log.add("registered", { effect_id: effectId, replayed: registered.replayed });
      if (ep.branch_cancelled && contract.branch_ref !== undefined) {
        await engine.operator.cancelBranch(
          contract.branch_ref,
          "bench: the agent's branch was cancelled",
        );
        log.add("branch-cancelled", { branch_ref: contract.branch_ref });
      }
      const outcome = await this.#dispatch(engine, effectId, log);
      if (outcome.status === "denied") {
        return report(
          { outcome: "suppressed" },
          { deny_check: outcome.check, effect_id: effectId },
        );
      }
      dispatched = outcome.status === "dispatched";
      if (outcome.status === "dispatched" && outcome.lifecycle === "SETTLED_COMMITTED") {
        settled = { outcome: "committed" };
      } else if (outcome.status === "dispatched" && outcome.lifecycle === "SETTLED_FAILED") {
        settled = { outcome: "failed" };
      } else {
        if (ep.fault === "retry-storm") {
          for (let i = 0; i < ep.retries; i += 1) {
            const again = await engine.dispatch(effectId);
            log.add("storm-dispatch", { status: again.status });
          }
        }
        settled = await this.#settle(effectId, log);
      }
    }

    if (ep.fault !== null && AGENT_RETRY_FAULTS.has(ep.fault) && settled.outcome !== "escalated") {
      settled = await this.#agentRetry(ep, effectId, settled, log);
    }
    return report(settled, { effect_id: effectId });
  }

  async #dispatch(engine: Irrevon, effectId: string, log: ActionLog): Promise<DispatchOutcome> {
    // Another effect of the same (scope, effect type) may hold the slot for a moment.
    const started = Date.now();
    for (;;) {
      const outcome = await engine.dispatch(effectId);
      log.add("dispatch", {
        status: outcome.status,
        ...(outcome.status === "dispatched"
          ? { transport: outcome.transportOutcome, lifecycle: outcome.lifecycle }
          : {}),
        ...(outcome.status === "denied" ? { check: outcome.check } : {}),
      });
      if (outcome.status !== "scope_busy" || Date.now() - started > SETTLE_BUDGET_MS)
        return outcome;
      await sleep(100);
    }
  }

  /** Reconciles until the effect settles, is escalated, or the budget runs out. */
  async #settle(effectId: string, log: ActionLog): Promise<Settled> {
    const engine = await this.#live();
    const started = Date.now();
    let previous = "";
    let repeats = 0;
    for (;;) {
      const r = await engine.reconcile(effectId);
      const entry = { status: r.status, ...("reason" in r ? { reason: r.reason } : {}) };
      const key = JSON.stringify(entry);
      // A wait (in flight, lag) repeats; the log keeps one line per change with a count.
      if (key === previous) repeats += 1;
      else {
        if (repeats > 0) log.add("reconcile-repeated", { times: repeats });
        log.add("reconcile", entry);
        previous = key;
        repeats = 0;
      }
      switch (r.status) {
        case "committed":
          return { outcome: "committed", claim: "unique" };
        case "failed":
          return r.escalated ? { outcome: "escalated" } : { outcome: "failed", claim: "absent" };
        case "settled":
          return r.lifecycle === "SETTLED_COMMITTED"
            ? { outcome: "committed", claim: "unique" }
            : r.lifecycle === "SETTLED_FAILED"
              ? { outcome: "failed", claim: "absent" }
              : { outcome: "ambiguous-unresolved" };
        case "parked":
          if (r.escalated || r.reason === "opaque_destination") return { outcome: "escalated" };
          break;
        case "awaiting_lag":
        case "reread_scheduled":
        case "in_flight":
          break;
      }
      if (Date.now() - started > SETTLE_BUDGET_MS) return { outcome: "ambiguous-unresolved" };
      const due =
        r.status === "awaiting_lag"
          ? Date.parse(r.notBefore)
          : r.status === "reread_scheduled"
            ? Date.parse(r.rereadNotBefore)
            : r.status === "parked" && r.nextDueAt !== null
              ? Date.parse(r.nextDueAt)
              : Date.now() + 100;
      await sleep(Math.min(2_000, Math.max(50, due - Date.now() + 20)));
    }
  }

  /**
   * The agent never got an answer, so it asks again; the ledger collapses the request onto
   * the same effect and the gate denies the duplicate. When the destination confirmed the
   * effect ABSENT, the retry is a legitimate new execution (engine `retry`, fresh authority).
   */
  async #agentRetry(
    ep: Episode,
    effectId: string,
    settled: Settled,
    log: ActionLog,
  ): Promise<Settled> {
    const engine = await this.#live();
    const contract = this.#contract(ep, true);
    const again = await engine.register(contract);
    log.add("agent-retry-registered", {
      effect_id: again.effectId,
      same_effect: again.effectId === effectId,
      replayed: again.replayed,
    });
    let outcome: DispatchOutcome;
    const lost =
      settled.outcome === "failed" && again.effectId === effectId
        ? (await engine.findings({ effectId, classification: "LOST" })).at(-1)
        : undefined;
    if (lost !== undefined) {
      // Confirmed absent: the agent's request is a legitimate re-dispatch of the LOST effect.
      outcome = await engine.redispatchLost(
        lost.findingId,
        { authorityRef: contract.authority_ref, stampedAt: contract.stamped_at },
        "the destination confirmed the effect absent; the agent asked again",
      );
      log.add("redispatch-lost", { finding_id: lost.findingId, status: outcome.status });
    } else {
      outcome = await this.#dispatch(engine, again.effectId, log);
    }
    if (outcome.status === "dispatched") {
      if (outcome.lifecycle === "SETTLED_COMMITTED") return { outcome: "committed" };
      if (outcome.lifecycle === "SETTLED_FAILED") return { outcome: "failed" };
      return this.#settle(again.effectId, log);
    }
    return settled;
  }

  /** Runs register + dispatch in a child killed at adapter.post_call; recovers here. */
  async #crashChild(ep: Episode, log: ActionLog): Promise<string> {
    const { target } = this.#require();
    const contract = this.#contract(ep, false);
    // The child must be the ledger's only user while it runs (PGlite: one process per directory).
    await this.#engine?.close();
    this.#engine = null;
    this.#generation += 1;
    const childTarget: EngineTarget = {
      ...target,
      workerId: `${target.workerId}-child${this.#generation}`,
      config: CRASH_CHILD_ENGINE_CONFIG,
    };
    const { child, output, exited } = this.#spare ?? spawnChild();
    // The next crash trial's child loads while this one runs and the parent recovers.
    this.#spare = spawnChild();
    child.stdin.end(`${JSON.stringify({ target: childTarget, contract })}\n`);
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(
            new IrrevonError(
              "internal",
              `R crash child did not finish within ${CHILD_TIMEOUT_MS} ms`,
              { details: { limit_ms: CHILD_TIMEOUT_MS, stderr: output.stderr.slice(-500) } },
            ),
          );
        }, CHILD_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    const { stdout, stderr } = output;
    const registered = /REGISTERED (.*)/.exec(stdout)?.[1];
    if (
      exit.signal !== "SIGKILL" ||
      registered === undefined ||
      !stderr.includes("HOOK adapter.post_call CRASH")
    ) {
      throw new IrrevonError("internal", "R crash child was not killed at adapter.post_call", {
        details: {
          exit_code: exit.code,
          signal: exit.signal,
          stderr: stderr.slice(-800),
          stdout: stdout.slice(-400),
        },
      });
    }
    const effectId = (JSON.parse(registered) as { effectId: string }).effectId;
    log.add("child-killed", {
      pid: child.pid ?? null,
      signal: exit.signal,
      seam: "adapter.post_call",
      effect_id: effectId,
    });
    const engine = await openBenchEngine({
      ...target,
      workerId: `${target.workerId}-r${this.#generation}`,
    });
    this.#engine = engine;
    const recovery = await engine.recover();
    log.add("recovered", {
      scanned: recovery.scanned,
      adjudicated: recovery.adjudicated,
      closed_attempts: recovery.closedAttempts,
      in_flight: recovery.inFlight,
    });
    return effectId;
  }
}
