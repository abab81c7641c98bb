/**
 * test/support/bench-units — drives generated fixture units through `driveUnit` and counts,
 * from the destination's truth log, the effects each trial caused (by the reference the arm
 * sent, `-t<i>-` for ladder arms and the effect id for R, else by the order id the payload
 * carries). Test-only: arms never see any of this.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArmId, TrialReport } from "../../src/bench/arms/arm.js";
import { driveUnit } from "../../src/bench/faults/drive-unit.js";
import type { GeneratedSplit } from "../../src/bench/fixtures/dev-split.js";
import type { FaultSchedule, VariantSet, Workload } from "../../src/bench/fixtures/documents.js";
import type { TruthDump } from "../../src/refdest/wire-types.js";

export const TEST_PG_URL = process.env["IRREVON_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface UnitDocs {
  readonly workload: Workload;
  readonly schedule: FaultSchedule;
  readonly variants: VariantSet | null;
}

/** The documents of one unit of a generated split (`cellId`, replicate). */
export function unitOf(split: GeneratedSplit, cellId: string, replicate = 0): UnitDocs {
  const docs = split.artifacts.map((a) => a.document);
  const workload = docs.find((d): d is Workload => d.format === "irrevonbench/workload/v1" && d.cell_id === cellId && d.replicate_index === replicate);
  if (workload === undefined) throw new Error(`no unit ${cellId} r${replicate}`);
  const schedule = docs.find((d): d is FaultSchedule => d.format === "irrevonbench/fault-schedule/v1" && d.workload_id === workload.workload_id);
  if (schedule === undefined) throw new Error(`no schedule for ${workload.workload_id}`);
  const variants =
    docs.find((d): d is VariantSet => d.format === "irrevonbench/variants/v1" && d.variants[0]?.base_workload_id === workload.workload_id) ?? null;
  return { workload, schedule, variants };
}

/** Effects per trial index, attributed as the file header says; unattributed ones under -1. */
export function effectsPerTrial(unit: UnitDocs, reports: readonly TrialReport[], truth: TruthDump): number[] {
  const counts = unit.workload.trials.map(() => 0);
  let orphans = 0;
  for (const effect of truth.effects) {
    const ref = effect.client_ref ?? "";
    const byRef = /-t(\d+)-/.exec(ref);
    let trial = byRef === null ? -1 : Number(byRef[1]);
    if (trial < 0 && ref !== "") {
      trial = reports.find((r) => typeof r.detail["effect_id"] === "string" && ref.startsWith(`${r.detail["effect_id"] as string}:`))?.trial_index ?? -1;
    }
    if (trial < 0) {
      const payload = effect.payload as Record<string, unknown>;
      const orderId = payload["order_id"] ?? payload["purchase_order"];
      trial = unit.workload.trials.findIndex((t) => t.stable_ids["order_id"] === orderId);
    }
    if (trial >= 0 && trial < counts.length) counts[trial] = (counts[trial] ?? 0) + 1;
    else orphans += 1;
  }
  return orphans > 0 ? [...counts, -orphans] : counts;
}

export interface DrivenUnit {
  readonly reports: TrialReport[];
  readonly counts: number[];
  readonly duplicates: number;
  readonly outcomes: string[];
  readonly truth: TruthDump;
}

/** Runs one unit for one arm and summarises it. */
export async function drive(arm: ArmId, unit: UnitDocs, postgresUrl: string | null = null): Promise<DrivenUnit> {
  const workDir = mkdtempSync(join(tmpdir(), "irrevon-bench-unit-"));
  const { reports, truth } = await driveUnit({ arm, ...unit, workDir, postgresUrl });
  const counts = effectsPerTrial(unit, reports, truth);
  return {
    reports,
    counts,
    duplicates: counts.reduce((n, c) => n + Math.max(0, c - 1), 0),
    outcomes: reports.map((r) => r.arm_outcome),
    truth,
  };
}
