/**
 * bench/runner/real-backend — wires the runner to the real arms (src/bench/arms). Refuses an
 * unknown arm id naming the known ones. Imports: core/errors, bench/{arms,runner}.
 */
import { IrrevonError } from "../../core/errors.js";
import { ARM_IDS, type ArmDriver, type ArmId } from "../arms/arm.js";
import { settleUnitDatabaseDrops } from "../arms/reference-engine.js";
import { createArm } from "../arms/registry.js";
import type { BenchBackend } from "./run-slot.js";

/** True when `id` names an arm of the registry. */
export function isArmId(id: string): id is ArmId {
  return (ARM_IDS as readonly string[]).includes(id);
}

/** The backend over the registry's arms. */
export const REAL_BACKEND: BenchBackend = {
  createArm(id: string): ArmDriver<string> {
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
  // R keeps one ledger per process across units and drops unit databases in the background.
  finish: () => settleUnitDatabaseDrops(),
};
