/**
 * cli/run — builds the commander program from the command registry and runs it, turning
 * every outcome into an exit code (docs/cli.md): usage errors from commander are one line
 * and exit 2; errors thrown by a command are printed by cli/output and mapped by
 * cli/exit-codes. Never calls process.exit, so output is flushed before the process ends.
 * Only the invoked command's module is loaded; the others are listed from the registry.
 */
import { Command, CommanderError, Help } from "commander";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { COMMANDS, invokedCommand } from "./commands/index.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { errorEnvelope, reportError, takeRequestedExit, writeJson, writeStderr } from "./output.js";
import { packageVersion } from "./version.js";

/**
 * The root program. The command `args` invoke is registered from its module; every other
 * command is a placeholder with the registry's help term and description (no action), which
 * is all the root help shows. `args` undefined registers every command for real.
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const program = new Command();
  const placeholders = new Map<Command, string>();
  const defaultHelp = new Help();
  program
    .name("irrevon")
    .description("Exactly-once-or-evidence for irreversible effects: an append-only effect ledger.")
    .version(packageVersion(), "--version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    // Both settings are inherited by commands added afterwards, so they must come first.
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .configureHelp({
      subcommandTerm: (cmd) => placeholders.get(cmd) ?? defaultHelp.subcommandTerm(cmd),
    });
  program.hook("preAction", (_program, action) => refuseOptionsAsValues(action));
  const invoked = args === undefined ? undefined : invokedCommand(args);
  for (const entry of COMMANDS) {
    if (args === undefined || entry === invoked) {
      (await entry.load()).register(program);
    } else {
      placeholders.set(program.command(entry.name).description(entry.description), entry.term);
    }
  }
  return program;
}

/**
 * An option that takes a value swallows the next word, even when that word is another option
 * (`demo --artifact --json` would write a file named "--json"). A value that is one of the
 * command's own options is refused as a usage error naming both.
 */
function refuseOptionsAsValues(action: Command): void {
  const flags = new Set<string>();
  for (let c: Command | null = action; c !== null; c = c.parent)
    for (const o of c.options) for (const f of [o.long, o.short]) if (f !== undefined) flags.add(f);
  for (const option of action.options) {
    if (!option.required && !option.optional) continue;
    const value: unknown = action.getOptionValue(option.attributeName());
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === "string" && flags.has(v.split("=")[0] ?? v))
        throw new IrrevonError(
          ErrorCode.usage,
          `${option.long ?? option.flags} needs a value, but the next word is the option ${v}; give ${option.long ?? option.flags} its value first`,
          { details: { flag: option.long ?? option.flags, value: v } },
        );
    }
  }
}

/** The commands `args` name from the root, in order: `deny add --scope s` → [deny, add]. */
function invokedPath(program: Command | undefined, args: readonly string[]): Command[] {
  const path: Command[] = [];
  let at = program;
  for (const word of args) {
    if (word.startsWith("-") || at === undefined) break;
    const next = at.commands.find((c) => c.name() === word);
    if (next === undefined) break;
    path.push(next);
    at = next;
  }
  return path;
}

/** `irrevon deny add --help` for `deny add …`; `irrevon --help` when no command was named. */
function helpFor(path: readonly Command[]): string {
  return path.length === 0
    ? "irrevon --help"
    : `irrevon ${path.map((c) => c.name()).join(" ")} --help`;
}

/** A command group named without its subcommand (`irrevon findings`, `irrevon deny --json`). */
function isGroupAlone(path: readonly Command[]): boolean {
  const last = path[path.length - 1];
  return last !== undefined && last.commands.length > 0;
}

function usageMessage(error: CommanderError): string {
  return error.message
    .replace(/^error:\s*/i, "")
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

function reportUsage(message: string, json: boolean, help = "irrevon --help"): ExitCode {
  if (json) writeJson(errorEnvelope(ErrorCode.usage, message, false, {}));
  else writeStderr(`irrevon: ${ErrorCode.usage}: ${message} (see ${help})\n`);
  return EXIT_CODES.usage.code;
}

/**
 * Runs the CLI on `args` (the arguments after the executable and script, like
 * `process.argv.slice(2)`) and resolves to the exit code.
 */
export async function runCli(args: readonly string[]): Promise<ExitCode> {
  const json = args.includes("--json");
  if (args.filter((a) => !a.startsWith("-")).length === 0 && !args.some(isHelpOrVersion))
    return reportUsage("missing command", json);
  takeRequestedExit();
  let program: Command | undefined;
  try {
    program = await buildProgram(args);
    await program.parseAsync([...args], { from: "user" });
    return takeRequestedExit();
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; every other commander error is usage.
      if (error.exitCode === 0) return EXIT_CODES.ok.code;
      // A command group without its subcommand (with or without --json, which only its
      // subcommands take): say which words are missing, not commander's "(outputHelp)".
      const path = invokedPath(program, args);
      if (isGroupAlone(path)) {
        const group = path.map((c) => c.name()).join(" ");
        return reportUsage(`irrevon ${group} needs a subcommand`, json, helpFor(path));
      }
      // `irrevon help nosuch`: commander printed the root help for a name it does not know.
      if (error.code === "commander.help") {
        const name = args.filter((a) => !a.startsWith("-"))[1] ?? "";
        return reportUsage(`unknown command '${name}'`, json);
      }
      return reportUsage(usageMessage(error), json, helpFor(path));
    }
    return reportError(error, json);
  }
}

function isHelpOrVersion(arg: string): boolean {
  return arg === "-h" || arg === "--help" || arg === "--version";
}
