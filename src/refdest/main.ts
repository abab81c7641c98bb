/**
 * refdest/main — the `irrevon refdest` entry: `--tier C1|C2|C3 --seed N --port P
 * [--lag-seconds N] [--enrichment-quirk] [--json]`. Binds 127.0.0.1 only, prints exactly one
 * ready line on stdout (`REFDEST READY <port>`, or one JSON object with --json that also carries
 * the control token), and stops cleanly with exit 0 on SIGTERM/SIGINT.
 * The control token is random per instance; a parent that wants to know it without --json sets
 * IRREVON_REFDEST_CONTROL_TOKEN (32–256 URL-safe characters) in the child's environment.
 * Exit codes: 0 stopped cleanly · 1 could not serve (e.g. port in use) · 2 usage.
 * Runnable directly (`npx tsx src/refdest/main.ts …`); the CLI calls runRefdestMain. Imports: core.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isIrrevonError } from "../core/errors.js";
import { startRefdestServer } from "./http-server.js";
import { Refdest } from "./refdest.js";
import { REFDEST_TIERS, type RefdestTier } from "./wire-types.js";

export const REFDEST_TOKEN_ENV = "IRREVON_REFDEST_CONTROL_TOKEN";

export interface RefdestMainIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Stops the server like a signal would (tests, embedding). */
  readonly signal?: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * How a failure to start is reported (a usage error: exit 2; the port cannot be taken: 1).
   * Default: one `refdest:` line on stderr (with the usage for a usage error). The CLI's
   * `irrevon refdest --json` passes its error document writer.
   */
  readonly reportFailure?: (failure: { readonly usage: boolean; readonly message: string }) => void;
}

const USAGE =
  "usage: irrevon refdest --tier C1|C2|C3 [--seed N] [--port P] [--lag-seconds N] [--enrichment-quirk] [--json]\n";

class UsageError extends Error {}

function intOption(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,16}$/.test(text) || Number(text) > max)
    throw new UsageError(`--${name} must be an integer in [0, ${max}]`);
  return Number(text);
}

function parse(argv: readonly string[], env: Readonly<Record<string, string | undefined>>) {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        tier: { type: "string" },
        seed: { type: "string" },
        port: { type: "string" },
        "lag-seconds": { type: "string" },
        "enrichment-quirk": { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const tier = values.tier ?? "C2";
  if (!(REFDEST_TIERS as readonly string[]).includes(tier))
    throw new UsageError("--tier must be C1, C2 or C3");
  const token = env[REFDEST_TOKEN_ENV];
  if (token !== undefined && !/^[A-Za-z0-9._~-]{32,256}$/.test(token)) {
    throw new UsageError(`${REFDEST_TOKEN_ENV} must be 32-256 URL-safe characters`);
  }
  return {
    help: values.help ?? false,
    tier: tier as RefdestTier,
    seed: intOption("seed", values.seed, 42, Number.MAX_SAFE_INTEGER),
    port: intOption("port", values.port, 0, 65_535),
    lagSeconds: intOption("lag-seconds", values["lag-seconds"], 0, 10 * 365 * 86_400),
    enrichmentQuirk: values["enrichment-quirk"] ?? false,
    json: values.json ?? false,
    token,
  };
}

/** Run the reference destination until SIGTERM/SIGINT (or `io.signal`); resolves to the exit code. */
export async function runRefdestMain(
  argv: readonly string[],
  io: RefdestMainIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let opts: ReturnType<typeof parse>;
  try {
    opts = parse(argv, io.env ?? process.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (io.reportFailure !== undefined) io.reportFailure({ usage: true, message: e.message });
    else io.stderr.write(`refdest: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const refdest = new Refdest({
    tier: opts.tier,
    seed: opts.seed,
    lagSeconds: opts.lagSeconds,
    enrichmentQuirk: opts.enrichmentQuirk,
    ...(opts.token === undefined ? {} : { controlToken: opts.token }),
  });
  let server;
  try {
    server = await startRefdestServer(refdest, { port: opts.port });
  } catch (e) {
    const code = isIrrevonError(e) ? e.code : ((e as NodeJS.ErrnoException).code ?? "error");
    const message = `cannot listen on 127.0.0.1:${opts.port} (${code})`;
    if (io.reportFailure !== undefined) io.reportFailure({ usage: false, message });
    else io.stderr.write(`refdest: ${message}\n`);
    return 1;
  }
  const ready = opts.json
    ? JSON.stringify({
        schema_version: "1",
        event: "refdest_ready",
        port: server.port,
        url: server.url,
        tier: opts.tier,
        seed: opts.seed,
        lag_seconds: opts.lagSeconds,
        control_token: server.controlToken,
      })
    : `REFDEST READY ${server.port}`;
  io.stdout.write(ready + "\n");

  const running = server;
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      io.signal?.removeEventListener("abort", stop);
      running.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    if (io.signal?.aborted === true) stop();
    else io.signal?.addEventListener("abort", stop, { once: true });
  });
}

function isDirectRun(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isDirectRun()) {
  runRefdestMain(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`refdest: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
