/**
 * engine/worker-health — the worker's health file: one JSON document, replaced atomically
 * (written to a temporary file in the same directory, then renamed) after every cycle, so a
 * reader never sees half a document. A probe (systemd, Kubernetes, a script) reads `at` and
 * the gauges; `state` is "stopped" after a clean shutdown. Imports: ledger.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";
import type { LedgerGauges } from "../ledger/worker-gauges.js";

/** The health document (`schema_version` 1). */
export interface WorkerHealth {
  readonly schema_version: "1";
  readonly worker_id: string;
  readonly state: "running" | "stopped";
  /** When it was written (ISO 8601, wall clock). */
  readonly at: string;
  /** Cycles completed so far. */
  readonly cycle: number;
  readonly open_executions: number;
  readonly ambiguous_executions: number;
  readonly oldest_open_age_s: number;
  readonly open_findings: number;
  readonly last_cycle: {
    readonly duration_ms: number;
    readonly adjudicated: number;
    readonly escalated: number;
    readonly errors: number;
  } | null;
}

/** Builds the document from gauges. */
export function healthDocument(input: {
  readonly workerId: string;
  readonly state: WorkerHealth["state"];
  readonly cycle: number;
  readonly gauges: LedgerGauges;
  readonly lastCycle: WorkerHealth["last_cycle"];
}): WorkerHealth {
  return {
    schema_version: "1",
    worker_id: input.workerId,
    state: input.state,
    at: new Date().toISOString(),
    cycle: input.cycle,
    open_executions: input.gauges.openExecutions,
    ambiguous_executions: input.gauges.ambiguousExecutions,
    oldest_open_age_s: input.gauges.oldestOpenAgeSeconds,
    open_findings: input.gauges.openFindings,
    last_cycle: input.lastCycle,
  };
}

/** Replaces `path` with `health` atomically (creating the directory). */
export function writeHealthFile(path: string, health: WorkerHealth): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temporary = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(health)}\n`, { mode: 0o644 });
  renameSync(temporary, path);
}
