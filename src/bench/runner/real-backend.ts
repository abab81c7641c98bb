/**
 * bench/runner/real-backend — wires the runner to the real arms and faults (src/bench/arms,
 * src/bench/faults). Refuses an unknown arm id naming the known ones.
 * Imports: core/errors, bench/{arms,faults,runner}.
 */
import { IrrevonError } from "../../core/errors.js";
import { ARM_IDS, type ArmId } from "../arms/arm.js";
import { settleUnitDatabaseDrops } from "../arms/reference-engine.js";
import { createArm } from "../arms/registry.js";
import { episodeFor } from "../faults/episode.js";
import { installFault, refdestProfileFor } from "../faults/install-fault.js";
import type { ArmDriverPort } from "./arm-port.js";
import type { BenchBackend } from "./run-slot.js";

/** True when `id` names an arm of the registry. */
export function isArmId(id: string): id is ArmId {
  return (ARM_IDS as readonly string[]).includes(id);
}

/** The backend over the registry's arms. */
export const REAL_BACKEND: BenchBackend = {
  createArm(id: string): ArmDriverPort {
    if (!isArmId(id)) {
      throw new IrrevonError(
        "usage",
        `unknown arm ${JSON.stringify(id)}; known arms: ${ARM_IDS.join(", ")}`,
        {
          details: { field: "--arms", value: id },
        },
      );
    }
    return createArm(id);
  },
  installFault: (control, injection, tier) => installFault(control, injection, tier),
  episodeFor: (trial, injections, variants, unit) => episodeFor(trial, injections, variants, unit),
  profileFor: (cell) => refdestProfileFor(cell),
  // R keeps one ledger per process across units and drops unit databases in the background.
  finish: () => settleUnitDatabaseDrops(),
};
