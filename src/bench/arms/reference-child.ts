/**
 * bench/arms/reference-child — the process arm R kills for the crash fault
 * (crash-after-effect-before-response). It opens the engine on the unit's database, runs
 * recovery, registers the trial's contract and dispatches it with the engine's crash point
 * armed at `adapter.post_call` (IRREVON_TEST_HOOKS=1, IRREVON_CRASH_AT set by the parent), so
 * the process SIGKILLs itself after the destination committed and before the receipt is
 * written. The parent may start it ahead of need: the modules load at once, the input is read
 * afterwards. Input: one line of JSON `{target, contract}` on stdin. Output: `REGISTERED <json>`,
 * then nothing (killed) — or `SURVIVED <json>` when the seam was never reached.
 * Imports: bench/arms/reference-engine, the package entry.
 */
import { IrrevonError, type IntentContractInput } from "../../index.js";
import { openBenchEngine, type EngineTarget } from "./reference-engine.js";

interface ChildInput {
  readonly target: EngineTarget;
  readonly contract: IntentContractInput;
}

/** The first line on stdin (the parent writes it when the crash trial starts). */
function readInputLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString("utf8");
      const end = buffered.indexOf("\n");
      if (end < 0) return;
      process.stdin.off("data", onData);
      process.stdin.pause();
      resolve(buffered.slice(0, end));
    };
    process.stdin.on("data", onData);
    process.stdin.once("end", () => {
      reject(new IrrevonError("config_invalid", "stdin closed before the input line: write one JSON line {target, contract}", { details: { field: "stdin" } }));
    });
  });
}

async function main(): Promise<void> {
  const input = JSON.parse(await readInputLine()) as ChildInput;
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
