/**
 * bench/arms/reference-child — the process arm R kills for the crash fault
 * (crash-after-effect-before-response). It opens the engine on the unit's database, runs
 * recovery, registers the trial's contract and dispatches it with the engine's crash point
 * armed at `adapter.post_call` (IRREVON_TEST_HOOKS=1, IRREVON_CRASH_AT set by the parent), so
 * the process SIGKILLs itself after the destination committed and before the receipt is
 * written. Input: IRREVON_BENCH_CHILD = JSON `{target, contract}`. Output: `REGISTERED <json>`,
 * then nothing (killed) — or `SURVIVED <json>` when the seam was never reached.
 * Imports: bench/arms/reference-engine, the package entry.
 */
import { IrrevonError, type IntentContractInput } from "../../index.js";
import { openBenchEngine, type EngineTarget } from "./reference-engine.js";

interface ChildInput {
  readonly target: EngineTarget;
  readonly contract: IntentContractInput;
}

async function main(): Promise<void> {
  const raw = process.env["IRREVON_BENCH_CHILD"];
  if (raw === undefined) {
    throw new IrrevonError("config_invalid", "IRREVON_BENCH_CHILD is required (JSON {target, contract})", { details: { variable: "IRREVON_BENCH_CHILD" } });
  }
  const input = JSON.parse(raw) as ChildInput;
  const engine = await openBenchEngine(input.target);
  await engine.recover();
  const registered = await engine.register(input.contract);
  process.stdout.write(`REGISTERED ${JSON.stringify(registered)}\n`);
  const outcome = await engine.dispatch(registered.effectId);
  process.stdout.write(`SURVIVED ${JSON.stringify(outcome)}\n`);
  await engine.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`reference-child: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
