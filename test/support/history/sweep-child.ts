/**
 * test/support/history/sweep-child — a child process that runs the engine's orphan sweep, so
 * the crash suite can SIGKILL it at sweep.pre_finding (src/testing/engine-child has no SWEEP
 * verb). Same environment as the engine child (IRREVON_DATABASE_URL or IRREVON_DATA_DIR,
 * IRREVON_REFDEST_URL, IRREVON_WORKER_ID, crash-point variables); the orphan grace period is
 * 0 so two runs are enough. Protocol: prints `READY`, answers `SWEEP` with
 * `RESULT <report json>` (errors as `{"error":{code,…}}`), stops at `EXIT`.
 */
import { createInterface } from "node:readline";
import { refdestDeclaration } from "../../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../../src/adapters/refdest-adapter.js";
import { isIrrevonError } from "../../../src/core/errors.js";
import { openIrrevon } from "../../../src/engine/irrevon.js";

function required(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === "") throw new Error(`${name} is required`);
  return v;
}

async function main(): Promise<number> {
  const adapter = new RefdestAdapter({
    baseUrl: required("IRREVON_REFDEST_URL"),
    declaration: refdestDeclaration("C2"),
  });
  const url = process.env["IRREVON_DATABASE_URL"];
  const irrevon = await openIrrevon({
    database: url ? { url } : { dataDir: required("IRREVON_DATA_DIR") },
    adapters: [adapter],
    config: { orphanGraceSeconds: 0, probeDeadlineMs: 5_000 },
    workerId: required("IRREVON_WORKER_ID"),
  });
  process.stdout.write("READY\n");
  for await (const raw of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const line = raw.trim();
    if (line === "EXIT") break;
    if (line !== "SWEEP") continue;
    try {
      const report = await irrevon.sweep(adapter.adapterId);
      process.stdout.write(`RESULT ${JSON.stringify(report)}\n`);
    } catch (e) {
      const error = isIrrevonError(e) ? e.toEnvelope() : { code: "internal", message: String(e) };
      process.stdout.write(`RESULT ${JSON.stringify({ error })}\n`);
    }
  }
  await irrevon.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`sweep-child: ${String(e)}\n`);
    process.exit(1);
  },
);
