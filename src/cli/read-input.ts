/**
 * cli/read-input — reads a JSON document from a file or stdin for commands that take
 * `[FILE|-]`, and turns unreadable or unparsable input into typed errors (exit 2) that name
 * the problem. Imports: core.
 */
import { readFile } from "node:fs/promises";
import { ContractInvalidError, ErrorCode, IrrevonError } from "../core/errors.js";
import { scanJsonText } from "../core/json-text-scan.js";
import { CONTRACT_BOUNDS } from "../core/preflight.js";

/** Larger input is refused before parsing (the contract budget is far smaller anyway). */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) break;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
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
    bytes = fromStdin ? await readStdin() : await readFile(file);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ??
      (error instanceof Error ? error.message : String(error));
    throw new IrrevonError(ErrorCode.usage, `cannot read ${file ?? "stdin"}: ${reason}`, {
      details: { file: file ?? "-", reason },
      cause: error,
    });
  }
  if (bytes.length > MAX_INPUT_BYTES) {
    throw new ContractInvalidError(
      `input is larger than ${MAX_INPUT_BYTES} bytes`,
      "$",
      "max_input_bytes",
      "other",
      {
        limit_value: MAX_INPUT_BYTES,
      },
    );
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
