/**
 * bench/faults/drive-unit — the ONE home of "how a unit's trials are driven": the runner
 * (bench/runner/run-slot, which adds its write-ahead manifest, journal and attempts) and the
 * strength locks (`driveUnit`) both call `openUnitDestination` and `driveTrials`, so they
 * cannot disagree about the destination profile or the per-trial steps.
 *
 * Destination of a unit: a fresh in-process HTTP reference destination with the cell's
 * profile (tier, read lag) seeded with the unit seed mod 2^31.
 *
 * Per trial, in order: a crash-before-persist trial is never handed to the arm (reported
 * `arm-crashed`, `dispatch_attempted=false`; reference design §2.2); otherwise clear any
 * unconsumed fault entry, install the trial's faults, build the label-free episode and run
 * it. An arm that throws (in `beginUnit` or `runEpisode`) is the arm's own failure: the trial
 * is reported `arm-crashed` and scored. After each trial the destination's truth log is read
 * and every client reference that reached the destination for the first time is recorded as
 * that trial's (`trialRefs`): the read-back oracle uses it to tell apart intents whose
 * payloads are equal (the new-intent fault). A failure of the harness itself (the destination
 * control API, the `onTrial` callback) propagates.
 * Imports: refdest, bench/{fault-model,fixtures/documents,fixtures/seeds,arms,faults}.
 */
import { mkdirSync } from "node:fs";
import { RefdestControlClient } from "../../refdest/control-client.js";
import { startRefdestServer } from "../../refdest/http-server.js";
import { Refdest } from "../../refdest/refdest.js";
import type { TruthDump } from "../../refdest/wire-types.js";
import type { ArmDriver, ArmId, TrialReport } from "../arms/arm.js";
import { createArm } from "../arms/registry.js";
import type { Tier } from "../fault-model.js";
import type { FaultSchedule, Injection, VariantSet, Workload } from "../fixtures/documents.js";
import { unitSeed31 } from "../fixtures/seeds.js";
import { episodeFor } from "./episode.js";
import { installFault, refdestProfileFor } from "./install-fault.js";

/** The documents of one unit. */
export interface UnitDocuments {
  readonly workload: Workload;
  readonly schedule: FaultSchedule;
  readonly variants: VariantSet | null;
}

/** A unit's running reference destination. */
export interface UnitDestination {
  readonly tier: Tier;
  /** Public origin (arms and child processes reach it over HTTP). */
  readonly url: string;
  readonly control: RefdestControlClient;
  close(): Promise<void>;
}

export interface DriveTrialsInput extends UnitDocuments {
  readonly driver: ArmDriver<string>;
  readonly destination: UnitDestination;
  /** Scratch directory of this (unit, arm); created when missing. */
  readonly workDir: string;
  /** Postgres server URL for R@postgres; null otherwise. */
  readonly postgresUrl: string | null;
  /** Called after each trial with its report and fault (the runner journals it here). */
  readonly onTrial?: (report: TrialReport, fault: Injection["fault"] | null) => void;
}

export interface DrivenTrials {
  /** One report per trial, in trial order. */
  readonly reports: TrialReport[];
  /** Client reference → the trial during which it first reached the destination. */
  readonly trialRefs: ReadonlyMap<string, number>;
}

export interface DriveUnitInput extends UnitDocuments {
  /** An arm id (a fresh driver is created) or a driver. */
  readonly arm: ArmId | ArmDriver<string>;
  readonly workDir: string;
  readonly postgresUrl: string | null;
}

export interface DriveUnitResult extends DrivenTrials {
  /** The destination's truth log after the unit. */
  readonly truth: TruthDump;
}

/** The unit seed an arm and the destination get: the workload seed mod 2^31. */
export function unitSeedOf(workload: Pick<Workload, "seed">): number {
  return unitSeed31(BigInt(workload.seed));
}

/** Starts the unit's reference destination with its cell's profile (tier, read lag). */
export async function openUnitDestination(workload: Workload): Promise<UnitDestination> {
  const profile = refdestProfileFor(workload.cell);
  const refdest = new Refdest({
    tier: profile.tier,
    seed: unitSeedOf(workload),
    lagSeconds: profile.lagSeconds,
  });
  const server = await startRefdestServer(refdest, { port: 0 });
  return {
    tier: profile.tier,
    url: server.url,
    control: new RefdestControlClient(server.url, server.controlToken),
    close: () => server.close(),
  };
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function armCrashed(trialIndex: number, action: string, reason?: string): TrialReport {
  const entry = reason === undefined ? { at: 0, action } : { at: 0, action, reason };
  return {
    trial_index: trialIndex,
    arm_outcome: "arm-crashed",
    dispatch_attempted: false,
    detail: { log: [entry] },
  };
}

/** Drives every trial of a unit through one arm against its destination; see the file header. */
export async function driveTrials(input: DriveTrialsInput): Promise<DrivenTrials> {
  const { workload, schedule, driver, destination } = input;
  const reports: TrialReport[] = [];
  const trialRefs = new Map<string, number>();
  const seen = new Set<string>();
  mkdirSync(input.workDir, { recursive: true });
  const record = (report: TrialReport, fault: Injection["fault"] | null): void => {
    reports.push(report);
    input.onTrial?.(report, fault);
  };
  try {
    await driver.beginUnit({
      unitSeed: unitSeedOf(workload),
      cell: workload.cell,
      destination: { tier: destination.tier, baseUrl: destination.url },
      workDir: input.workDir,
      postgresUrl: input.postgresUrl,
    });
  } catch (e) {
    for (const t of workload.trials)
      record(armCrashed(t.trial_index, "arm-crashed", `beginUnit: ${message(e)}`), null);
    // Whatever the arm started before it failed is still its to release (ArmDriver.endUnit):
    // a crash child left running would keep the run's process alive after its report.
    await driver.endUnit().catch(() => undefined);
    return { reports, trialRefs };
  }
  try {
    for (const trial of workload.trials) {
      const injections = schedule.injections.filter((i) => i.trial_index === trial.trial_index);
      const fault = injections[0]?.fault ?? null;
      if (injections.some((i) => i.fault === "crash-before-persist")) {
        record(
          armCrashed(trial.trial_index, "crash-before-persist: the runner never called the arm"),
          fault,
        );
        continue;
      }
      await destination.control.schedule([], { replace: true });
      for (const injection of injections)
        await installFault(destination.control, injection, destination.tier);
      const episode = episodeFor(trial, injections, input.variants, {
        workload_id: workload.workload_id,
        effect_class: workload.cell.effect_class,
      });
      let report: TrialReport;
      try {
        report = await driver.runEpisode(episode);
      } catch (e) {
        report = armCrashed(trial.trial_index, "arm-crashed", message(e));
      }
      for (const effect of (await destination.control.truth()).effects) {
        if (seen.has(effect.destination_ref)) continue;
        seen.add(effect.destination_ref);
        const ref = effect.client_ref;
        if (ref !== null && ref !== "" && !trialRefs.has(ref))
          trialRefs.set(ref, trial.trial_index);
      }
      record(report, fault);
    }
  } finally {
    // An arm's failure to release its unit is its own and is not scored: it changes no effect.
    await driver.endUnit().catch(() => undefined);
  }
  return { reports, trialRefs };
}

/** Runs one unit for one arm on a fresh destination (the strength locks' entry). */
export async function driveUnit(input: DriveUnitInput): Promise<DriveUnitResult> {
  const driver = typeof input.arm === "string" ? createArm(input.arm) : input.arm;
  const destination = await openUnitDestination(input.workload);
  try {
    const driven = await driveTrials({ ...input, driver, destination });
    return { ...driven, truth: await destination.control.truth() };
  } finally {
    await destination.close();
  }
}
