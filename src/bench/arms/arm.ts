/**
 * bench/arms/arm — the one interface every benchmark arm implements (reference design §3.1,
 * /work contract "bench arms <-> runner"). One driver instance serves one (unit, arm): the
 * runner calls `beginUnit`, then `runEpisode` per trial in order, then `endUnit`.
 *
 * An arm sees episodes, never fixtures: no oracle labels (`legitimate`,
 * `eligible_for_dispatch`), no read-back, no destination control API. The layering rule
 * `bench-arms-blind-to-truth` (.dependency-cruiser.cjs) enforces it.
 * Imports: bench/fault-model.
 */
import type {
  ArmOutcome,
  ArmScoringFlags,
  Cell,
  EffectClass,
  FaultKind,
  Tier,
} from "../fault-model.js";

export type { ArmOutcome, ArmScoringFlags } from "../fault-model.js";

/** Every arm, in ladder order; `R@…` is this engine on each database backend. */
export const ARM_IDS = [
  "B0",
  "B1",
  "B2",
  "B3",
  "B4",
  "B5",
  "B6",
  "B5+B3+B6",
  "B7",
  "R@pglite",
  "R@postgres",
] as const;
export type ArmId = (typeof ARM_IDS)[number];

/**
 * What an arm is, for the run manifest (`config_digest = canonicalDigest(config)`). `Id` is
 * an id of the registry; the runner takes any string (its tests drive small stand-in arms).
 */
export interface ArmSpec<Id extends string = ArmId> {
  readonly id: Id;
  readonly version: string;
  readonly flags: ArmScoringFlags;
  /** One line: the real-world practice the arm stands for. */
  readonly realWorld: string;
  readonly knownDeviations: readonly string[];
  readonly config: Readonly<Record<string, unknown>>;
  /** Why the arm cannot run (B7); null for a runnable arm. */
  readonly refused: string | null;
}

/** The destination of one unit, as an arm may see it: its tier and its public origin. */
export interface DestinationHandle {
  readonly tier: Tier;
  /** Origin of the HTTP reference destination (child processes reach it too). */
  readonly baseUrl: string;
}

/** Everything an arm gets for one unit. */
export interface ArmUnitContext {
  /** The unit seed mod 2^31. */
  readonly unitSeed: number;
  readonly cell: Cell;
  readonly destination: DestinationHandle;
  /** Scratch directory of this (unit, arm): journals, ledgers. */
  readonly workDir: string;
  /** Postgres server URL; required by R@postgres (which refuses without it). */
  readonly postgresUrl: string | null;
}

/** The episode script of one trial. It never carries oracle labels. */
export interface Episode {
  readonly trial_index: number;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly effect_type: string;
  readonly effect_class: EffectClass;
  readonly scope: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly authority_ref: string;
  /** The injected fault, visible to the arm (the reference design does the same). */
  readonly fault: FaultKind | null;
  /** Retry budget after the first attempt (default 1). */
  readonly retries: number;
  /** Parameters of the agent's reworded retry (re-synthesis, re-plan), else null. */
  readonly resynth_parameters: Readonly<Record<string, unknown>> | null;
  readonly resynth_stable_ids: Readonly<Record<string, string>> | null;
  readonly authority_expired: boolean;
  readonly branch_cancelled: boolean;
  readonly branch_ref: string | null;
}

/** One line of an arm's action log. */
export interface ArmLogEntry {
  /** Milliseconds since the episode started. */
  readonly at: number;
  readonly action: string;
  readonly ref?: string;
  readonly [k: string]: unknown;
}

/** What an arm reports for one trial. */
export interface TrialReport {
  readonly trial_index: number;
  readonly arm_outcome: ArmOutcome;
  readonly dispatch_attempted: boolean;
  readonly detail: {
    readonly log: readonly ArmLogEntry[];
    readonly oracle_claim?: "unique" | "absent";
    readonly [k: string]: unknown;
  };
}

/** One arm for one unit. */
export interface ArmDriver<Id extends string = ArmId> {
  readonly spec: ArmSpec<Id>;
  beginUnit(context: ArmUnitContext): Promise<void>;
  runEpisode(episode: Episode): Promise<TrialReport>;
  /**
   * Releases what the unit holds. Also called after a `beginUnit` that threw, so it must
   * release whatever that began (a child process, a database) and tolerate the rest missing.
   */
  endUnit(): Promise<void>;
}

/** An episode's action log with its clock. */
export class ActionLog {
  readonly entries: ArmLogEntry[] = [];
  readonly #started = Date.now();

  add(action: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.entries.push({ at: Date.now() - this.#started, action, ...fields });
  }
}
