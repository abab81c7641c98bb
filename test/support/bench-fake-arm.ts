/**
 * test/support/bench-fake-arm — a tiny stand-in for the arms (the runner's tests must not
 * depend on them), driven by the runner through the same trial driver as the real arms, so the
 * destination enacts the faults: "fake-naive" sends every episode's parameters and, when the
 * response is lost (the socket closes after the commit), sends them again under a fresh
 * reference (so it duplicates); "fake-careful" sends once and claims `unique`. With
 * `breakHistory`, each arm puts a directory where its slot's `history.json` goes when the unit
 * begins: the runner cannot write the history document, a harness failure. Not a test file.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ArmDriver, Episode, TrialReport } from "../../src/bench/arms/arm.js";
import type { BenchBackend } from "../../src/bench/runner/run-slot.js";

type FakeId = "fake-naive" | "fake-careful";

function fakeArm(id: FakeId, breakHistory: boolean): ArmDriver<FakeId> {
  let baseUrl = "";
  /** One send; false when the response never arrived. */
  const send = async (episode: Episode, attempt: number): Promise<boolean> => {
    try {
      const res = await fetch(`${baseUrl}/effects`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          effect_type: episode.effect_type,
          payload: episode.parameters,
          client_ref: `${id}-t${episode.trial_index}-n${attempt}`,
        }),
      });
      await res.text();
      return true;
    } catch {
      return false;
    }
  };
  const careful = id === "fake-careful";
  return {
    spec: {
      id,
      version: "0.0.2",
      realWorld: "test stand-in",
      knownDeviations: [],
      config: { id },
      refused: null,
      flags: { ambiguityConcept: careful, classifies: careful, sendsStableKey: careful },
    },
    beginUnit: async (context) => {
      baseUrl = context.destination.baseUrl;
      if (breakHistory) mkdirSync(join(context.workDir, "..", "history.json"), { recursive: true });
    },
    runEpisode: async (episode): Promise<TrialReport> => {
      const log = [{ at: 1, action: "send" }];
      const answered = await send(episode, 1);
      if (!careful && !answered) {
        await send(episode, 2);
        log.push({ at: 2, action: "retry" });
      }
      return {
        trial_index: episode.trial_index,
        arm_outcome: "committed",
        dispatch_attempted: true,
        detail: careful ? { log, oracle_claim: "unique" } : { log },
      };
    },
    endUnit: async () => undefined,
  };
}

/** A backend over the two fake arms. */
export function fakeBackend(options: { breakHistory?: boolean } = {}): BenchBackend {
  return { createArm: (id) => fakeArm(id as FakeId, options.breakHistory === true) };
}
