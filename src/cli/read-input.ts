/**
 * cli/read-input — reads a JSON document from a file or stdin for commands that take
 * `[FILE|-]`, and turns unreadable or unparsable input into typed errors (exit 2) that name
 * the problem. Imports: core.
 */
import { open } from "node:fs/promises";
import { ContractInvalidError, ErrorCode, IrrevonError } from "../core/errors.js";
import { scanJsonText } from "../core/json-text-scan.js";
import { CONTRACT_BOUNDS } from "../core/preflight.js";

/** Larger input is refused before parsing (the contract budget is far smaller anyway). */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** The refusal of input beyond MAX_INPUT_BYTES (exit 2). */
function tooLarge(): ContractInvalidError {
  return new ContractInvalidError(
    `input is larger than ${MAX_INPUT_BYTES} bytes`,
    "$",
    "max_input_bytes",
    "other",
    {
      limit_value: MAX_INPUT_BYTES,
    },
  );
}

/**
 * Reads `stream` whole, or refuses it (`max_input_bytes`) as soon as it holds more than
 * MAX_INPUT_BYTES: nothing beyond the limit is kept, whatever the source (a pipe, a device
 * such as /dev/zero, a file growing while read).
 */
async function readBounded(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Opens FILE for reading (an error opening it is reported by the caller, as reading is). */
async function fileStream(file: string): Promise<AsyncIterable<unknown>> {
  const handle = await open(file, "r");
  return handle.createReadStream({ highWaterMark: 1024 * 1024 });
}

/** Reads FILE, or stdin for `-`/no argument. A terminal on stdin with no FILE is a usage error. */
export async function readInputText(file: string | undefined): Promise<string> {
  const fromStdin = file === undefined || file === "-";
  if (fromStdin && file === undefined && process.stdin.isTTY) {
    throw new IrrevonError(
      ErrorCode.usage,
      "no input: pass FILE, or pipe the document on stdin (or use -)",
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readBounded(fromStdin ? process.stdin : await fileStream(file));
  } catch (error) {
    if (error instanceof ContractInvalidError) throw error;
    const reason =
      (error as NodeJS.ErrnoException).code ??
      (error instanceof Error ? error.message : String(error));
    throw new IrrevonError(ErrorCode.usage, `cannot read ${file ?? "stdin"}: ${reason}`, {
      details: { file: file ?? "-", reason },
      cause: error,
    });
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ContractInvalidError("input is not valid UTF-8", "$", "utf8", "other");
  }
}

/**
 * Parses JSON text strictly. Nesting deeper than the contract depth bound is refused before
 * parsing (`max_depth`); a syntax error becomes ContractInvalidError `json_syntax` with the
 * parser's reason; a member name that occurs twice in one object is refused as
 * `duplicate_key` naming the path and the key (`details.key`). All are exit 2.
 */
export function parseJsonText(text: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim().length === 0) {
    throw new ContractInvalidError(
      "input is empty: expected a JSON document",
      "$",
      "json_syntax",
      "undefined",
    );
  }
  // Bounded before parsing: JSON.parse would build every level of a deep document first.
  const duplicate = scanJsonText(body, { maxDepth: CONTRACT_BOUNDS.maxDepth });
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ContractInvalidError(
      `input is not valid JSON: ${reason}`,
      "$",
      "json_syntax",
      "other",
      { reason },
    );
  }
  // JSON.parse keeps the last of two equal member names without a word: refuse instead.
  if (duplicate !== null) throw duplicate;
  return value;
}
