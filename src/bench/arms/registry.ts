/**
 * bench/arms/registry — every arm's spec and `createArm(id)`, the one way the runner gets a
 * driver. Specs are data (flags, real-world practice, known deviations, config); the
 * manifest records `config_digest = canonicalDigest(spec.config)`.
 * Imports: bench/arms/{arm,conventional,refused,reference}, bench/fault-model.
 */
import { IrrevonError } from "../../core/errors.js";
import type { ArmScoringFlags } from "../fault-model.js";
import { ARM_IDS, type ArmDriver, type ArmId, type ArmSpec } from "./arm.js";
import { LadderArm, type LadderStrategy } from "./conventional.js";
import { ReferenceArm, REFERENCE_CONFIG } from "./reference.js";
import { RefusedArm } from "./refused.js";

export { ARM_IDS } from "./arm.js";

const LADDER_VERSION = "0.1.0";
const B4_DEVIATION =
  "B4 (an idempotency-key header from the client library) is mechanically identical to B3 on the reference destination: the key is the same stable workflow ref";

function flags(ambiguityConcept: boolean, classifies: boolean, sendsStableKey: boolean): ArmScoringFlags {
  return { ambiguityConcept, classifies, sendsStableKey };
}

interface LadderEntry {
  readonly strategy: LadderStrategy;
  readonly realWorld: string;
  readonly deviations: readonly string[];
}

const NONE = { argHashDedup: false, durableJournal: false, statusCheck: false } as const;

const LADDER: Readonly<Record<Exclude<ArmId, "B7" | "R@pglite" | "R@postgres">, LadderEntry>> = {
  B0: {
    strategy: { ref: "anon", ...NONE },
    realWorld: "a plain tool call retried by the agent loop, with no reference at all",
    deviations: [],
  },
  B1: {
    strategy: { ref: "anon", ...NONE, argHashDedup: true },
    realWorld: "an in-memory cache of argument hashes that drops a repeated tool call",
    deviations: ["the cache lives in process memory and is lost on a restart"],
  },
  B2: {
    strategy: { ref: "agent", ...NONE },
    realWorld: "a reference the agent invents per attempt (changes when the agent rewords or restarts)",
    deviations: [],
  },
  B3: {
    strategy: { ref: "workflow", ...NONE },
    realWorld: "a stable workflow-step reference sent as client reference and idempotency key",
    deviations: [],
  },
  B4: {
    strategy: { ref: "workflow", ...NONE },
    realWorld: "the client library's idempotency-key header set from the workflow step",
    deviations: [B4_DEVIATION],
  },
  B5: {
    strategy: { ref: "workflow", ...NONE, durableJournal: true },
    realWorld: "a durable-execution runtime (Temporal/DBOS/Restate style) replaying a journaled activity",
    deviations: ["the runtime is a file journal (src/bench/baselines/b5-durable-journal.ts), not a product"],
  },
  B6: {
    strategy: { ref: "workflow", ...NONE, statusCheck: true },
    realWorld: "look the reference up at the destination before every retry",
    deviations: [],
  },
  "B5+B3+B6": {
    strategy: { ref: "workflow", argHashDedup: false, durableJournal: true, statusCheck: true },
    realWorld: "durable runtime + stable reference + status check before retry: the preselected primary comparator",
    deviations: [],
  },
};

/** The spec of one arm. */
export function armSpec(id: ArmId): ArmSpec {
  if (id === "B7") {
    return {
      id,
      version: LADDER_VERSION,
      flags: flags(true, true, true),
      realWorld: "an LLM judge deciding whether a retry would duplicate",
      knownDeviations: [],
      config: { kind: "refused" },
      refused:
        "not operationalized: it needs a model with budget parity to R's advisory classifier, and no model is pinned for the benchmark",
    };
  }
  if (id === "R@pglite" || id === "R@postgres") {
    const backend = id === "R@pglite" ? "pglite" : "postgres";
    return {
      id,
      version: "0.1.0",
      flags: flags(true, true, true),
      realWorld: "this engine (Irrevon) through its public API",
      knownDeviations: [
        "stale authority is enacted with an authority stamp backdated past the freshness policy",
        "the crash fault is a real SIGKILL of an engine child process at the adapter.post_call seam; the other faults run in-process",
        "units without a crash fault share one ledger per process and backend, each in a namespace of its own (scope, authority and branch references prefixed with `u<unit seed>n<k>/`); crash units keep a database of their own",
      ],
      config: { ...REFERENCE_CONFIG, backend },
      refused: null,
    };
  }
  const entry = LADDER[id];
  const s = entry.strategy;
  return {
    id,
    version: LADDER_VERSION,
    flags: flags(s.statusCheck || s.durableJournal, false, s.ref === "workflow"),
    realWorld: entry.realWorld,
    knownDeviations: entry.deviations,
    config: { kind: "conventional-ladder", ...s, retry_policy: "max(1, retries) retries" },
    refused: null,
  };
}

/** A fresh driver for one (unit, arm). */
export function createArm(id: ArmId): ArmDriver {
  if (!(ARM_IDS as readonly string[]).includes(id)) {
    throw new IrrevonError("usage", `unknown arm '${String(id)}': use one of ${ARM_IDS.join(", ")}`, { details: { field: "arm", value: String(id) } });
  }
  const spec = armSpec(id);
  if (id === "B7") return new RefusedArm(spec);
  if (id === "R@pglite" || id === "R@postgres") return new ReferenceArm(spec);
  return new LadderArm(spec, LADDER[id].strategy);
}
