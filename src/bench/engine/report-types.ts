/**
 * bench/engine/report-types — the shapes the engine benchmark's judges and report share: the
 * host, a judged figure, and everything one run measured. Imports: bench.
 */
import type { PhysicalLimitRun } from "./commit-floor.js";
import type { PerEffectResult } from "./per-effect.js";
import type { RecoveryRun } from "./recovery-bench.js";
import type { StartupResult } from "./startup.js";
import type { ThroughputRun } from "./throughput.js";

export interface HostInfo {
  readonly cpus: number;
  readonly node: string;
  readonly platform: string;
  readonly postgres: string | null;
  readonly pglite: string;
  readonly durability: Readonly<Record<string, string>> | null;
  /** 1-minute load average when the run started and ended (other work on the machine shows here). */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

/** One figure judged against its goal. */
export interface Target {
  readonly name: string;
  /** The goal, as stated in the issue. */
  readonly target: string;
  readonly measured: string;
  /** null: reported without a goal. */
  readonly met: boolean | null;
  /** Why the goal was not met, from figures of the same run (always set when `met` is false). */
  readonly explanation?: string;
}

/** Everything one run measured: what the judges and the section renderers read. */
export interface MeasuredRun {
  readonly command: string;
  readonly host: HostInfo;
  readonly perEffect: readonly PerEffectResult[];
  readonly throughput: readonly ThroughputRun[];
  readonly physicalLimit: readonly PhysicalLimitRun[];
  /** Recovery of N AMBIGUOUS effects, per backend (empty when skipped). */
  readonly recovery: readonly RecoveryRun[];
  /** Embedded open, demo and CLI start (null when the run skipped them). */
  readonly startup: StartupResult | null;
  /** Figures added through the hook (see the file header), by key. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** Judges some figures of a run against their goals. */
export type TargetJudge = (run: MeasuredRun) => Target[];
