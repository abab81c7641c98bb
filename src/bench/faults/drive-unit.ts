/**
 * bench/faults/drive-unit — runs ONE unit (a workload with its fault schedule and variants)
 * for ONE arm against a fresh in-process HTTP reference destination, and reads the
 * destination's truth back. The minimal unit driver behind the strength locks; the runner
 * calls it for every (unit, arm).
 *
 * Order per trial: clear any unconsumed fault entry, install the trial's faults, build the
 * label-free episode, run it. A crash-before-persist trial is never handed to the arm: it is
 * reported `arm-crashed` with `dispatch_attempted=false` (reference design §2.2). The
 * destination is seeded with the unit seed mod 2^31 and has the cell's profile (tier, read
 * lag). Imports: refdest, bench/{fault-model,fixtures/documents,arms,faults}.
 */
import { mkdirSync } from "node:fs";
import { RefdestControlClient } from "../../refdest/control-client.js";
import { startRefdestServer } from "../../refdest/http-server.js";
import { Refdest } from "../../refdest/refdest.js";
import type { TruthDump } from "../../refdest/wire-types.js";
import type { ArmDriver, ArmId, TrialReport } from "../arms/arm.js";
import { createArm } from "../arms/registry.js";
import type { FaultSchedule, VariantSet, Workload } from "../fixtures/documents.js";
import { episodeFor } from "./episode.js";
import { installFault, refdestProfileFor } from "./install-fault.js";

export interface DriveUnitInput {
  /** An arm id (a fresh driver is created) or a driver. */
  readonly arm: ArmId | ArmDriver;
  readonly workload: Workload;
  readonly schedule: FaultSchedule;
  readonly variants: VariantSet | null;
  /** Scratch directory of this (unit, arm); created when missing. */
  readonly workDir: string;
  /** Postgres server URL for R@postgres; null otherwise. */
  readonly postgresUrl: string | null;
}

export interface DriveUnitResult {
  readonly reports: TrialReport[];
  /** The destination's truth log after the unit. */
  readonly truth: TruthDump;
}

/** The unit seed an arm and the destination get: the workload seed mod 2^31. */
export function unitSeedOf(workload: Pick<Workload, "seed">): number {
  return Number(BigInt(workload.seed) % 2n ** 31n);
}

/** Runs one unit for one arm; see the file header. */
export async function driveUnit(input: DriveUnitInput): Promise<DriveUnitResult> {
  const { workload, schedule } = input;
  const driver = typeof input.arm === "string" ? createArm(input.arm) : input.arm;
  const unitSeed = unitSeedOf(workload);
  const profile = refdestProfileFor(workload.cell);
  const refdest = new Refdest({ tier: profile.tier, seed: unitSeed, lagSeconds: profile.lagSeconds });
  const server = await startRefdestServer(refdest, { port: 0 });
  const control = new RefdestControlClient(server.url, server.controlToken);
  mkdirSync(input.workDir, { recursive: true });
  try {
    await driver.beginUnit({
      unitSeed,
      cell: workload.cell,
      destination: { tier: profile.tier, baseUrl: server.url },
      workDir: input.workDir,
      postgresUrl: input.postgresUrl,
    });
    const reports: TrialReport[] = [];
    try {
      for (const trial of workload.trials) {
        const injections = schedule.injections.filter((i) => i.trial_index === trial.trial_index);
        if (injections.some((i) => i.fault === "crash-before-persist")) {
          reports.push({
            trial_index: trial.trial_index,
            arm_outcome: "arm-crashed",
            dispatch_attempted: false,
            detail: { log: [{ at: 0, action: "crash-before-persist: the runner never called the arm" }] },
          });
          continue;
        }
        await control.schedule([], { replace: true });
        for (const injection of injections) await installFault(control, injection, profile.tier);
        const episode = episodeFor(trial, injections, input.variants, {
          workload_id: workload.workload_id,
          effect_class: workload.cell.effect_class,
        });
        reports.push(await driver.runEpisode(episode));
      }
    } finally {
      await driver.endUnit();
    }
    return { reports, truth: await control.truth() };
  } finally {
    await server.close();
  }
}
