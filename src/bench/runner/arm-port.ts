/**
 * bench/runner/arm-port — the runner's view of an arm, structurally the arm contract
 * (docs: notes/contract-bench, src/bench/arms/arm.ts): the runner depends on these shapes, not
 * on the arms' module, so it can be exercised with a small fake arm and the CLI wires the real
 * registry. Episodes carry no oracle labels. Imports: bench/fault-model, bench/metrics.
 */
import type { Cell, EffectClass, FaultKind, Tier } from "../fault-model.js";
import type { ArmOutcome, ArmScoringFlags } from "../metrics/score-unit.js";

export interface ArmSpecPort {
  readonly id: string;
  readonly version: string;
  readonly flags: ArmScoringFlags;
  readonly realWorld: string;
  readonly knownDeviations: readonly string[];
  readonly config: Readonly<Record<string, unknown>>;
  /** Non-null when the arm is not operationalized (B7): the runner refuses it. */
  readonly refused: string | null;
}

export interface ArmUnitContextPort {
  readonly unitSeed: number;
  readonly cell: Cell;
  readonly destination: { readonly tier: Tier; readonly baseUrl: string };
  readonly workDir: string;
  readonly postgresUrl: string | null;
}

export interface EpisodePort {
  readonly trial_index: number;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly effect_type: string;
  readonly effect_class: EffectClass;
  readonly scope: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly authority_ref: string;
  readonly fault: FaultKind | null;
  readonly retries: number;
  readonly resynth_parameters: Readonly<Record<string, unknown>> | null;
  readonly resynth_stable_ids: Readonly<Record<string, string>> | null;
  readonly authority_expired: boolean;
  readonly branch_cancelled: boolean;
  readonly branch_ref: string | null;
}

export interface ArmLogEntryPort {
  readonly at: number;
  readonly action: string;
  readonly ref?: string;
  readonly [k: string]: unknown;
}

export interface TrialReportPort {
  readonly trial_index: number;
  readonly arm_outcome: ArmOutcome;
  readonly dispatch_attempted: boolean;
  readonly detail: {
    readonly log: readonly ArmLogEntryPort[];
    readonly oracle_claim?: "unique" | "absent";
    readonly [k: string]: unknown;
  };
}

export interface ArmDriverPort {
  readonly spec: ArmSpecPort;
  beginUnit(context: ArmUnitContextPort): Promise<void>;
  runEpisode(episode: EpisodePort): Promise<TrialReportPort>;
  endUnit(): Promise<void>;
}
