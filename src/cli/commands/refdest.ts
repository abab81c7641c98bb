/**
 * cli/commands/refdest — `irrevon refdest`: runs the deterministic reference destination on
 * 127.0.0.1 until SIGTERM/SIGINT. It prints one ready line (`REFDEST READY <port>`, or a JSON
 * object with `--json`) on stdout. The control API token is read from
 * IRREVON_REFDEST_CONTROL_TOKEN or generated per instance.
 */
import type { Command } from "commander";
import { runRefdestMain } from "../../refdest/main.js";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { reportError, requestExit } from "../output.js";
import type { ExitCode } from "../exit-codes.js";

interface RefdestFlags {
  readonly tier: string;
  readonly seed?: string;
  readonly port?: string;
  readonly lagSeconds?: string;
  readonly enrichmentQuirk?: boolean;
  readonly json?: boolean;
}

/** Registers the `refdest` command. */
export function register(program: Command): void {
  program
    .command("refdest")
    .description("run the reference destination (C1/C2/C3, fault-injectable, deterministic) on loopback")
    .option("--tier <tier>", "C1 (idempotency keys), C2 (queryable), C3 (opaque)", "C2")
    .option("--seed <n>", "seed of destination refs (default 42)")
    .option("--port <port>", "port on 127.0.0.1 (0 = any free port)", "0")
    .option("--lag-seconds <n>", "read lag: created effects stay invisible to status/list for N virtual seconds")
    .option("--enrichment-quirk", "enrich stored payloads (a real-API quirk)")
    .option("--json", "print the ready line as a JSON object")
    .action(async (flags: RefdestFlags) => {
      const argv = ["--tier", flags.tier, "--port", flags.port ?? "0"];
      if (flags.seed !== undefined) argv.push("--seed", flags.seed);
      if (flags.lagSeconds !== undefined) argv.push("--lag-seconds", flags.lagSeconds);
      if (flags.enrichmentQuirk === true) argv.push("--enrichment-quirk");
      if (flags.json === true) argv.push("--json");
      const json = flags.json === true;
      const code = await runRefdestMain(argv, {
        stdout: process.stdout,
        stderr: process.stderr,
        // Like every command: with --json a failure is the error document on stdout.
        reportFailure: ({ usage, message }) => {
          reportError(
            new IrrevonError(usage ? ErrorCode.usage : ErrorCode.internal, message, {
              details: usage ? {} : { reason: "listen" },
            }),
            json,
          );
        },
      });
      requestExit(code as ExitCode);
    });
}
