/**
 * cli/commands — the command registry. Each command lives in its own file exporting
 * `register(program)`; adding a command means adding one entry here. A command's module (and
 * with it PGlite, node-postgres, Hono, zod, the engine) is imported only when that command
 * runs: `irrevon --help` lists every command from the name, help term and description kept
 * here. test/unit/cli-command-registry.test.ts checks they match what each module registers.
 */
import type { Command } from "commander";

/** Registers a command on the root program. */
export type RegisterCommand = (program: Command) => void;

/** One command: what the root help shows, and how to load the real registration. */
export interface CommandEntry {
  readonly name: string;
  /** The command as the root help lists it: name, `[options]`, arguments. */
  readonly term: string;
  readonly description: string;
  readonly load: () => Promise<{ readonly register: RegisterCommand }>;
}

/** Every command, in `--help` order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "init",
    term: "init [options]",
    description: "write irrevon.toml and create and migrate the ledger",
    load: () => import("./init.js"),
  },
  {
    name: "migrate",
    term: "migrate [options]",
    description:
      "apply pending ledger migrations (journaled, hash-checked, one transaction per file)",
    load: () => import("./migrate.js"),
  },
  {
    name: "demo",
    term: "demo [options]",
    description:
      "run the flagship demo: a lost response, a crash, recovery by evidence, a re-synthesized retry denied; vs a durable-journal runtime",
    load: () => import("./demo.js"),
  },
  {
    name: "inspect",
    term: "inspect [options] <effect_id>",
    description: "show everything the ledger knows about one effect, with an integrity check",
    load: () => import("./inspect.js"),
  },
  {
    name: "doctor",
    term: "doctor [options]",
    description: "check configuration, adapters, identity, database, roles, declarations and clock",
    load: () => import("./doctor.js"),
  },
  {
    name: "identity",
    term: "identity [options] [file]",
    description:
      "derive intent_id, operation_id (step 0) and the canonical preimage of an intent contract",
    load: () => import("./identity.js"),
  },
  {
    name: "refdest",
    term: "refdest [options]",
    description:
      "run the reference destination (C1/C2/C3, fault-injectable, deterministic) on loopback",
    load: () => import("./refdest.js"),
  },
  {
    name: "serve",
    term: "serve [options]",
    description:
      "serve the read-only workbench on 127.0.0.1 (GET/HEAD only, stable-id values as digests)",
    load: () => import("./serve.js"),
  },
  {
    name: "worker",
    term: "worker [options]",
    description:
      "run the background loop: recovery, reconcile, sweeps, audits (until SIGTERM/SIGINT)",
    load: () => import("./worker.js"),
  },
  {
    name: "findings",
    term: "findings",
    description: "classification findings and their resolution status",
    load: () => import("./findings.js"),
  },
  {
    name: "resolve",
    term: "resolve [options] <action> <finding_id>",
    description: "decide about a finding: accept | escalate | compensate | redispatch",
    load: () => import("./resolve.js"),
  },
  {
    name: "deny",
    term: "deny",
    description: "the commit gate's deny list",
    load: () => import("./deny.js"),
  },
  {
    name: "branch",
    term: "branch",
    description: "agent branches the gate checks",
    load: () => import("./branch.js"),
  },
  {
    name: "bench",
    term: "bench",
    description:
      "IrrevonBench: fixtures, the runner (run, smoke), paired statistics and the kill verdict (analyze), reports",
    load: () => import("./bench.js"),
  },
];

/**
 * The command `args` invoke: the first argument that is not an option (the root program's
 * only options are --help and --version), or the one after `help`.
 */
export function invokedCommand(args: readonly string[]): CommandEntry | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return COMMANDS.find((c) => c.name === name);
}
