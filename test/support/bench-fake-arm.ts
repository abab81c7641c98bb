/**
 * test/support/bench-fake-arm — a tiny stand-in for the arms (the runner's tests must not
 * depend on them): "fake-naive" sends every episode's parameters to the destination and, under
 * a response-lost fault, sends them again (a fresh-reference retry, so it duplicates);
 * "fake-careful" sends once and claims `unique`. Faults are enacted by the arm itself, so
 * `installFault` only records what it was asked. Not a test file.
 */
import type {
  ArmDriverPort,
  EpisodePort,
  TrialReportPort,
} from "../../src/bench/runner/arm-port.js";
import type { BenchBackend } from "../../src/bench/runner/run-slot.js";

function fakeArm(id: "fake-naive" | "fake-careful"): ArmDriverPort {
  let baseUrl = "";
  const send = async (episode: EpisodePort, attempt: number): Promise<void> => {
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
  };
  const careful = id === "fake-careful";
  return {
    spec: {
      id,
      version: "0.0.1",
      realWorld: "test stand-in",
      knownDeviations: [],
      config: { id },
      refused: null,
      flags: { ambiguityConcept: careful, classifies: careful, sendsStableKey: careful },
    },
    beginUnit: async (context) => {
      baseUrl = context.destination.baseUrl;
    },
    runEpisode: async (episode): Promise<TrialReportPort> => {
      const log = [{ at: 1, action: "send" }];
      await send(episode, 1);
      if (!careful && episode.fault === "response-lost") {
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

/** A backend over the two fake arms. `failInstall` makes every fault installation throw. */
export function fakeBackend(options: { failInstall?: boolean } = {}): BenchBackend {
  return {
    createArm: (id) => fakeArm(id as "fake-naive" | "fake-careful"),
    installFault: async () => {
      if (options.failInstall === true) throw new Error("refdest control unreachable (test)");
    },
    profileFor: (cell) => ({ tier: cell.tier, lagSeconds: 0 }),
    episodeFor: (trial, injections, variants) => {
      const injection = injections.find((i) => i.trial_index === trial.trial_index);
      void variants;
      return {
        trial_index: trial.trial_index,
        stable_ids: trial.stable_ids,
        effect_type: trial.effect_type,
        effect_class: "IRREVERSIBLE",
        scope: trial.scope,
        parameters: trial.parameters,
        authority_ref: trial.authority_ref,
        fault: injection?.fault ?? null,
        retries: injection?.param.retries ?? 0,
        resynth_parameters: null,
        resynth_stable_ids: null,
        authority_expired: false,
        branch_cancelled: false,
        branch_ref: null,
      };
    },
  };
}
