/**
 * cli/run — builds the commander program from the command registry and runs it, turning
 * every outcome into an exit code (docs/cli.md): usage errors from commander are one line
 * and exit 2; errors thrown by a command are printed by cli/output and mapped by
 * cli/exit-codes. Never calls process.exit, so output is flushed before the process ends.
 * Only the invoked command's module is loaded; the others are listed from the registry.
 */
import { Command, CommanderError, Help } from "commander";
import { ErrorCode } from "../core/errors.js";
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

function usageMessage(error: CommanderError): string {
  return error.message
    .replace(/^error:\s*/i, "")
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

function reportUsage(message: string, json: boolean): ExitCode {
  if (json) writeJson(errorEnvelope(ErrorCode.usage, message, false, {}));
  else writeStderr(`irrevon: ${ErrorCode.usage}: ${message} (see irrevon --help)\n`);
  return EXIT_CODES.usage.code;
}

/**
 * Runs the CLI on `args` (the arguments after the executable and script, like
 * `process.argv.slice(2)`) and resolves to the exit code.
 */
export async function runCli(args: readonly string[]): Promise<ExitCode> {
  const json = args.includes("--json");
  if (args.length === 0) return reportUsage("missing command", json);
  takeRequestedExit();
  try {
    await (await buildProgram(args)).parseAsync([...args], { from: "user" });
    return takeRequestedExit();
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; every other commander error is usage.
      if (error.exitCode === 0) return EXIT_CODES.ok.code;
      return reportUsage(usageMessage(error), json);
    }
    return reportError(error, json);
  }
}
