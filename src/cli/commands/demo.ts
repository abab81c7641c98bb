/**
 * cli/commands/demo — `irrevon demo`: the flagship demo (see cli/demo/run-demo). Embedded
 * PGlite in a fresh demo directory (`.irrevon/demo`) by default, a Postgres server with
 * `--database-url`. Prints the numbered sequence on stderr, writes an artifact JSON, and
 * with `--json` prints one summary object on stdout. Exit 0 iff the contrast holds, else 3.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { IrrevonError } from "../../core/errors.js";
import { checkDemoDir, runDemo, type DemoEvent, type DemoLeg } from "../demo/run-demo.js";
import { loadConfig } from "../config.js";
import { EXIT_CODES } from "../exit-codes.js";
import { CLI_SCHEMA_VERSION, requestExit, writeHuman, writeJson } from "../output.js";
import { checkOutputFile } from "../output-paths.js";

interface DemoFlags {
  readonly seed?: string;
  readonly config?: string;
  readonly leg: string;
  readonly databaseUrl?: string;
  readonly json?: boolean;
  readonly artifact: string | false;
  readonly dir: string;
  readonly serve?: boolean;
  readonly port: string;
}

function describeEvent(e: DemoEvent): string {
  const d = e.detail;
  const text: Record<string, () => string> = {
    registered: () => `effect ${String(d["effect_id"]).slice(0, 12)}… · lifecycle ${String(d["lifecycle"])}`,
    dispatch_response_lost: () => `destination committed, response dropped · ${String(d["transport_outcome"])} · lifecycle ${String(d["lifecycle"])}`,
    crash: () => `engine process killed (${String(d["signal"])})`,
    recovered: () => `new engine process · scanned ${String(d["scanned"])} · adjudicated ${String(d["adjudicated"])} · asked the destination [${((d["destination_calls"] as string[] | undefined) ?? []).join(", ")}] · creates ${String(d["creates_during_recovery"])}`,
    settled_confirmed_unique: () => `${String(d["lifecycle"])} · ${String(d["classification"])}`,
    resynthesis_collapsed: () => `re-synthesized parameters → same effect id: ${String(d["same_effect_id"])} · replayed ${String(d["replayed"])} · variant ${String(d["parameter_variant"])}`,
    duplicate_rejected: () => `retry ${String(d["outcome"])} by ${String(d["deny_check"])} · decision ${String(d["decision_id"])}`,
    b5_response_lost: () => `durable-journal runtime: activity ${String(d["operation_id"])} · ${String(d["outcome"])}`,
    b5_restart: () => `runtime restarts and replays its journal (${String(d["journal_entries"])} entries)`,
    b5_retried: () => `retried ${((d["operation_ids"] as string[] | undefined) ?? []).join(", ")} — key sent, the C2 destination ignores it`,
    b5_duplicate: () => `destination effects ${String(d["destination_effects"])}`,
  };
  return `${String(e.n).padStart(2)}  ${e.name.padEnd(26)} ${text[e.name]?.() ?? JSON.stringify(d)}`;
}

/** Registers the `demo` command. */
export function register(program: Command): void {
  program
    .command("demo")
    .description("run the flagship demo: a lost response, a crash, recovery by evidence, a re-synthesized retry denied; vs a durable-journal runtime")
    .option("--seed <n>", "seed of the reference destination (default: [demo] seed of the configuration, else 42)")
    .option("--config <file>", "configuration file for [demo] seed (default: $IRREVON_CONFIG or the nearest irrevon.toml)")
    .option("--leg <leg>", "irrevon | b5 | both", "both")
    .option("--database-url <url>", "run the Irrevon leg on a Postgres server (a fresh database irrevon_demo_s<seed>)")
    .option("--dir <dir>", "demo working directory, recreated on every run", ".irrevon/demo")
    .option("--artifact <file>", "where to write the artifact JSON", "irrevon-demo-artifact.json")
    .option("--no-artifact", "do not write an artifact")
    .option("--serve", "afterwards, keep the demo ledger open and serve the read-only workbench on it")
    .option("--port <n>", "workbench port with --serve", "5180")
    .option("--json", "print one summary object on stdout")
    .action(async (flags: DemoFlags) => {
      if (flags.seed !== undefined && !/^\d{1,9}$/.test(flags.seed)) throw new IrrevonError("usage", "--seed must be an integer from 0 to 999999999", { details: { flag: "--seed" } });
      if (flags.leg !== "irrevon" && flags.leg !== "b5" && flags.leg !== "both") {
        throw new IrrevonError("usage", "--leg must be irrevon, b5 or both", { details: { flag: "--leg" } });
      }
      if (flags.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(flags.databaseUrl)) {
        throw new IrrevonError("usage", "--database-url must start with postgres:// or postgresql://", { details: { flag: "--database-url" } });
      }
      if (!/^\d{1,5}$/.test(flags.port) || Number(flags.port) > 65_535) {
        throw new IrrevonError("usage", "--port must be an integer from 0 to 65535", { details: { flag: "--port" } });
      }
      // The flag, else the configuration's [demo] seed (a configuration that does not parse is
      // refused, as for every command that reads it), else 42.
      const seed = flags.seed !== undefined ? Number(flags.seed) : loadConfig(flags.config).config.demo.seed;
      checkDemoDir(resolve(flags.dir));
      if (flags.artifact !== false) checkOutputFile(flags.artifact, "--artifact");
      const json = flags.json === true;
      if (!json) writeHuman("irrevon demo — order 9410 against the reference destination (C2: queryable, no idempotency keys)");
      const { summary, events, ledger } = await runDemo({
        seed,
        leg: flags.leg as DemoLeg,
        workDir: resolve(flags.dir),
        ...(flags.databaseUrl === undefined ? {} : { databaseUrl: flags.databaseUrl }),
        onEvent: (e) => {
          if (e.n === 1 || (e.leg === "b5" && e.name === "b5_response_lost")) writeHuman(e.leg === "irrevon" ? "— Irrevon leg —" : "— B5 contrast leg: durable journal + stable operation id —");
          writeHuman(describeEvent(e));
        },
      });
      const artifactPath = flags.artifact === false ? null : resolve(flags.artifact);
      const document = {
        schema_version: CLI_SCHEMA_VERSION,
        seed: summary.seed,
        effect_id: summary.effect_id,
        irrevon_leg: summary.irrevon_leg,
        b5_leg: summary.b5_leg,
        contrast_holds: summary.contrast_holds,
        database: summary.database,
        artifact_path: artifactPath,
      };
      if (artifactPath !== null) writeFileSync(artifactPath, `${JSON.stringify({ schema_version: CLI_SCHEMA_VERSION, events, summary: document }, null, 2)}\n`);
      if (json) writeJson(document);
      else {
        const i = summary.irrevon_leg;
        const b = summary.b5_leg;
        writeHuman("");
        if (i !== null) writeHuman(`Irrevon leg: ${i.destination_effects} destination effect · ${i.reconciled} + ${i.classification} · duplicate rejected: ${String(i.duplicate_rejected)}`);
        if (b !== null) writeHuman(`B5 leg:      ${b.destination_effects} destination effects · duplicate created: ${String(b.duplicate_created)}`);
        writeHuman(`contrast holds: ${String(summary.contrast_holds)}`);
        if (summary.effect_id !== null) writeHuman(`inspect it:  npx irrevon inspect ${summary.effect_id}`);
        if (artifactPath !== null) writeHuman(`artifact:    ${artifactPath}`);
      }
      if (!summary.contrast_holds) requestExit(EXIT_CODES.declared_outcome.code);
      if (flags.serve === true && ledger !== null) {
        // Imported only here: the workbench (Hono, pino) is half the demo's own start-up.
        const { serveUntilStopped } = await import("./serve.js");
        await serveUntilStopped({
          location: ledger,
          describe: summary.database,
          port: Number(flags.port),
          isDemo: true,
          quiet: json,
          json: false,
          announce: (url) => writeHuman(`workbench: ${new URL(`/effects/${summary.effect_id ?? ""}`, url).toString()} · read-only · loopback-only · Ctrl-C to stop`),
        });
      }
    });
}
