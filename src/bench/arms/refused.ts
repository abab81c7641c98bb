/**
 * bench/arms/refused — an arm that cannot be run (B7). Every episode is reported `refused`
 * with the spec's reason; nothing is sent. Imports: bench/arms/arm.
 */
import type { ArmDriver, ArmSpec, ArmUnitContext, Episode, TrialReport } from "./arm.js";

export class RefusedArm implements ArmDriver {
  readonly spec: ArmSpec;

  constructor(spec: ArmSpec) {
    this.spec = spec;
  }

  beginUnit(_context: ArmUnitContext): Promise<void> {
    return Promise.resolve();
  }

  runEpisode(episode: Episode): Promise<TrialReport> {
    return Promise.resolve({
      trial_index: episode.trial_index,
      arm_outcome: "refused",
      dispatch_attempted: false,
      detail: { log: [{ at: 0, action: "refused", reason: this.spec.refused ?? "" }] },
    });
  }

  endUnit(): Promise<void> {
    return Promise.resolve();
  }
}
