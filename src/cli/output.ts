/**
 * cli/output — where CLI output goes. stdout carries only machine output (one JSON
 * document per command, with `--json`); everything meant for people — results in human
 * form, progress, warnings, errors without `--json` — goes to stderr, so `--json` output
 * can always be piped. Errors print as one line `irrevon: <code>: <message>`, or with
 * `--json` as the envelope `{schema_version:"1", error:{code,message,retryable,details}}`
 * on stdout. Imports: core/errors, cli/exit-codes.
 */
import { ErrorCode, IrrevonError, type ErrorCode as ErrorCodeT } from "../core/errors.js";
import { EXIT_CODES, exitCodeForError, type ExitCode } from "./exit-codes.js";

/** The payload schema version of every JSON document the CLI prints. */
export const CLI_SCHEMA_VERSION = "1";

/** Where output goes; replaceable so tests can capture it in-process. */
export interface OutputStreams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

let streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr };
let requestedExit: ExitCode = EXIT_CODES.ok.code;

/** Redirects output (tests); returns the previous streams. */
export function setOutputStreams(next: OutputStreams): OutputStreams {
  const previous = streams;
  streams = next;
  return previous;
}

/** Machine output: one compact JSON document and a newline on stdout. */
export function writeJson(value: unknown): void {
  streams.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Human output (results, progress, notes): stderr. */
export function writeHuman(text: string): void {
  streams.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Raw text on stderr (no newline added). */
export function writeStderr(text: string): void {
  streams.stderr.write(text);
}

/** Prints a command result: JSON on stdout with `--json`, otherwise the human form on stderr. */
export function emitResult(json: boolean, document: Record<string, unknown>, human: string): void {
  if (json) writeJson({ schema_version: CLI_SCHEMA_VERSION, ...document });
  else writeHuman(human);
}

/** A command that ran but reports a declared negative outcome sets exit code 3 this way. */
export function requestExit(code: ExitCode): void {
  requestedExit = code;
}

/** The exit code a command requested (read once by the runner, which then resets it). */
export function takeRequestedExit(): ExitCode {
  const code = requestedExit;
  requestedExit = EXIT_CODES.ok.code;
  return code;
}

/** The JSON error envelope. */
export function errorEnvelope(
  code: ErrorCodeT,
  message: string,
  retryable: boolean,
  details: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return { schema_version: CLI_SCHEMA_VERSION, error: { code, message, retryable, details } };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** Prints an error in the selected form and returns the exit code it maps to. */
export function reportError(error: unknown, json: boolean): ExitCode {
  const known = error instanceof IrrevonError;
  const code: ErrorCodeT = known ? error.code : ErrorCode.internal;
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (json) {
    writeJson(
      errorEnvelope(code, message, known ? error.retryable : false, known ? error.details : {}),
    );
  } else {
    streams.stderr.write(`irrevon: ${code}: ${message}\n`);
    if (!known && process.env["IRREVON_DEBUG"] && error instanceof Error && error.stack) {
      streams.stderr.write(`${error.stack}\n`);
    }
  }
  return exitCodeForError(code);
}
