/**
 * bench/arms/conventional — the conventional ladder B0–B6 and the composite B5+B3+B6 as ONE
 * parameterised driver (reference design §3.2). Each arm is a set of strategies:
 *
 * | arm | reference sent (useed = unit seed mod 2^31) | strategies |
 * | B0 | `anon-<useed>-t<i>-n<k>`, fresh every attempt | none |
 * | B1 | anon | arg-hash dedup: a send whose canonical payload digest was sent before is suppressed |
 * | B2 | `agent-<useed>-t<i>-syn<n>`, n rises on re-synthesis, re-plan and crash | agent key |
 * | B3/B4 | `wf-<useed>-t<i>-<g>` | stable workflow ref (g rises only when the agent re-plans) |
 * | B5 | `wf-…` through the durable-journal runtime (first payload wins) | durable journal |
 * | B6 | `wf-…` | status check by the ref before each retry |
 * | B5+B3+B6 | `wf-…` through the runtime | all three |
 *
 * The reference is both the operation id and the client_ref; on C1 it is also the
 * idempotency key. Stale-authority and cancelled-branch flags are ignored (no conventional
 * arm has a notion of them). Episode: send the original parameters; OK ⇒ committed, FAILED ⇒
 * failed. On LOST/TIMEOUT: a crash restarts the process (arg-hash cache cleared, runtime
 * rebuilt over the same journal file; durable arms then recover); re-synthesis and re-plan
 * retry with the reworded parameters (re-plan under a new workflow id); anything else
 * retries the original. Then up to max(1, retries) attempts: status-check arms query first
 * (PRESENT ⇒ committed, INDETERMINATE ⇒ ambiguous-unresolved, ABSENT/unsupported ⇒ send); an
 * arg-hash hit ⇒ unresolved-unknown. Budget exhausted ⇒ ambiguous-unresolved with a status
 * check, else unresolved-unknown. Imports: core, adapters, bench/fault-model,
 * bench/baselines, bench/arms/arm.
 */
import { join } from "node:path";
import { canonicalDigest } from "../../core/canonical.js";
import { IrrevonError } from "../../core/errors.js";
import { refdestDeclaration } from "../../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../adapters/refdest-adapter.js";
import { B5DurableJournalRuntime } from "../baselines/b5-durable-journal.js";
import type { FaultKind } from "../fault-model.js";
import {
  ActionLog,
  type ArmDriver,
  type ArmOutcome,
  type ArmSpec,
  type ArmUnitContext,
  type Episode,
  type TrialReport,
} from "./arm.js";

/** The strategies that make up one ladder arm. */
export interface LadderStrategy {
  readonly ref: "anon" | "agent" | "workflow";
  readonly argHashDedup: boolean;
  readonly durableJournal: boolean;
  readonly statusCheck: boolean;
}

type Wire = "OK" | "FAILED" | "LOST";
type Probe = "PRESENT" | "ABSENT" | "INDETERMINATE" | "UNAVAILABLE";

const DEADLINE_MS = 5_000;
const CRASH_FAULTS: readonly (FaultKind | null)[] = ["crash-after-effect-before-response"];
/** Faults after which the agent retries with reworded parameters. */
const REWORD_FAULTS: readonly (FaultKind | null)[] = ["semantic-resynthesis", "agent-replan"];

/** A conventional ladder arm over the reference destination's public API. */
export class LadderArm implements ArmDriver {
  readonly spec: ArmSpec;
  readonly #strategy: LadderStrategy;
  #unit: ArmUnitContext | null = null;
  #adapter: RefdestAdapter | null = null;
  #runtime: B5DurableJournalRuntime | null = null;
  #journalPath = "";
  #attempts = 0;
  #sentDigests = new Set<string>();

  constructor(spec: ArmSpec, strategy: LadderStrategy) {
    this.spec = spec;
    this.#strategy = strategy;
  }

  beginUnit(context: ArmUnitContext): Promise<void> {
    this.#unit = context;
    this.#attempts = 0;
    this.#sentDigests = new Set();
    this.#adapter = new RefdestAdapter({
      baseUrl: context.destination.baseUrl,
      declaration: refdestDeclaration(context.destination.tier),
    });
    const slug = this.spec.id.replaceAll("+", "-").toLowerCase();
    this.#journalPath = join(context.workDir, `${slug}-journal-${context.unitSeed}.jsonl`);
    this.#runtime = this.#strategy.durableJournal ? this.#newRuntime() : null;
    return Promise.resolve();
  }

  endUnit(): Promise<void> {
    this.#unit = null;
    this.#adapter = null;
    this.#runtime = null;
    return Promise.resolve();
  }

  #newRuntime(): B5DurableJournalRuntime {
    const unit = this.#requireUnit();
    return new B5DurableJournalRuntime({
      destinationUrl: unit.destination.baseUrl,
      journalPath: this.#journalPath,
      deadlineMs: DEADLINE_MS,
      endpoint: unit.destination.tier === "C3" ? "notify" : "effects",
    });
  }

  #requireUnit(): ArmUnitContext {
    if (this.#unit === null) throw new IrrevonError("illegal_state", `${this.spec.id}: runEpisode before beginUnit; call beginUnit(context) first`);
    return this.#unit;
  }

  async runEpisode(ep: Episode): Promise<TrialReport> {
    const unit = this.#requireUnit();
    const log = new ActionLog();
    const s = this.#strategy;
    let synthesis = 0;
    let generation = 0;
    let params = ep.parameters;
    let stableIds = ep.stable_ids;
    let dispatched = false;
    const ref = (): string => {
      if (s.ref === "anon") return `anon-${unit.unitSeed}-t${ep.trial_index}-n${this.#attempts}`;
      if (s.ref === "agent") return `agent-${unit.unitSeed}-t${ep.trial_index}-syn${synthesis}`;
      return `wf-${unit.unitSeed}-t${ep.trial_index}-${generation}`;
    };
    const report = (outcome: ArmOutcome, extra: Record<string, unknown> = {}): TrialReport => ({
      trial_index: ep.trial_index,
      arm_outcome: outcome,
      dispatch_attempted: dispatched,
      detail: { log: log.entries, ...extra },
    });
    /** One send; null when the arg-hash cache suppressed it. */
    const send = async (): Promise<Wire | null> => {
      if (s.argHashDedup) {
        const digest = canonicalDigest(params);
        if (this.#sentDigests.has(digest)) {
          log.add("suppressed-by-arg-hash", { digest });
          return null;
        }
        this.#sentDigests.add(digest);
      }
      this.#attempts += 1;
      const r = ref();
      dispatched = true;
      const wire = await this.#wire(r, ep.effect_type, params, stableIds);
      log.add("send", { ref: r, outcome: wire });
      return wire;
    };

    const first = await send();
    if (first === null) return report("unresolved-unknown");
    if (first === "OK") return report("committed");
    if (first === "FAILED") return report("failed");

    if (CRASH_FAULTS.includes(ep.fault)) {
      // Process death: in-memory state is gone; the durable runtime restarts over its file.
      this.#sentDigests = new Set();
      synthesis += 1;
      log.add("process-restart");
      if (s.durableJournal) {
        this.#runtime = this.#newRuntime();
        return report(await this.#recover(ref(), log));
      }
    } else if (REWORD_FAULTS.includes(ep.fault) && ep.resynth_parameters !== null) {
      synthesis += 1;
      params = ep.resynth_parameters;
      stableIds = ep.resynth_stable_ids ?? stableIds;
      if (ep.fault === "agent-replan") {
        // The agent restarted and lost its workflow id: a new workflow for the same intent.
        this.#sentDigests = new Set();
        generation += 1;
        log.add("agent-replan", { ref: ref() });
      } else {
        log.add("re-synthesis");
      }
    }

    for (let attempt = 0; attempt < Math.max(1, ep.retries); attempt += 1) {
      if (s.statusCheck) {
        const probe = await this.#probe(ref());
        log.add("status-check", { ref: ref(), result: probe });
        if (probe === "PRESENT") return report("committed", { detected_by: "status-check" });
        if (probe === "INDETERMINATE") return report("ambiguous-unresolved");
      }
      const wire = await send();
      if (wire === null) return report("unresolved-unknown");
      if (wire === "OK") return report("committed");
      if (wire === "FAILED") return report("failed");
    }
    return report(s.statusCheck ? "ambiguous-unresolved" : "unresolved-unknown");
  }

  /** Durable recovery after a restart (status check first for the composite). */
  async #recover(ref: string, log: ActionLog): Promise<ArmOutcome> {
    if (this.#strategy.statusCheck) {
      const probe = await this.#probe(ref);
      log.add("status-check-on-recovery", { ref, result: probe });
      if (probe === "PRESENT") return "committed";
    }
    const runtime = this.#runtime as B5DurableJournalRuntime;
    const retried = await runtime.recover();
    const outcomes = retried.map((r) => classifyActivity(r.outcome));
    log.add("journal-recovery", {
      retried: retried.map((r) => r.operationId),
      outcomes,
    });
    if (outcomes.length === 0) return "committed";
    if (outcomes.every((o) => o !== "LOST")) return outcomes.includes("OK") ? "committed" : "failed";
    return "unresolved-unknown";
  }

  async #wire(
    ref: string,
    effectType: string,
    payload: Readonly<Record<string, unknown>>,
    stableIds: Readonly<Record<string, string>>,
  ): Promise<Wire> {
    if (this.#runtime !== null) {
      return classifyActivity(await this.#runtime.runActivity(ref, effectType, payload));
    }
    const adapter = this.#adapter as RefdestAdapter;
    const result = await adapter.dispatch(
      { operationId: ref, effectType, payload, clientRef: ref, idempotencyKey: ref, stableIds },
      DEADLINE_MS,
    );
    return result.transportOutcome === "OK"
      ? "OK"
      : result.transportOutcome === "FAILED"
        ? "FAILED"
        : "LOST";
  }

  async #probe(ref: string): Promise<Probe> {
    const unit = this.#requireUnit();
    if (unit.destination.tier === "C3") return "UNAVAILABLE";
    const adapter = this.#adapter as RefdestAdapter;
    const status = await adapter.statusQuery({ kind: "client_ref", value: ref }, DEADLINE_MS);
    return status.result === "PRESENT" ? "PRESENT" : status.result === "ABSENT" ? "ABSENT" : "INDETERMINATE";
  }
}

function classifyActivity(
  outcome: Awaited<ReturnType<B5DurableJournalRuntime["runActivity"]>>,
): Wire {
  if (outcome.kind === "response_lost") return "LOST";
  if (outcome.status >= 200 && outcome.status < 300) return "OK";
  if (outcome.status === 400 || outcome.status === 429) return "FAILED";
  return "LOST";
}
