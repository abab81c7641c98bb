/**
 * cli/commands/bench-integrity — `irrevon bench freeze` and `irrevon bench holdout`
 * (reference-bench §8; docs/bench.md, "Integrity"):
 *
 * - `freeze --stage A|B --draft-out FILE` writes a draft registration: the digests filled in,
 *   every human field `REQUIRED-HUMAN`, so it can never verify as written (refuses to overwrite);
 * - `freeze --stage A|B --verify` checks the committed registration against the repository
 *   now and lists every reason it fails (exit 3 when it does not verify);
 * - `holdout --out DIR --master-seed HEX` generates holdout material outside the repository
 *   (inside it: refused, exit 4) and prints the commitment a Stage-B registration records.
 * All logic lives in src/bench/integrity. Imports: bench, core, cli/{exit-codes,output}.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { freezeDraftText, verifyFreeze, type FreezeStage } from "../../bench/integrity/freeze.js";
import { generateHoldout, holdoutRefusal } from "../../bench/integrity/holdout.js";
import { repositoryRoot } from "../../bench/integrity/integrity.js";
import { IrrevonError } from "../../core/errors.js";
import { EXIT_CODES } from "../exit-codes.js";
import { emitResult, requestExit } from "../output.js";
import { checkOutputDir, checkOutputFile } from "../output-paths.js";

interface FreezeFlags {
  readonly stage: string;
  readonly draftOut?: string;
  readonly verify?: boolean;
  readonly json?: boolean;
}

interface HoldoutFlags {
  readonly out: string;
  readonly masterSeed: string;
  readonly json?: boolean;
}

function usage(field: string, message: string, value?: string): IrrevonError {
  return new IrrevonError("usage", message, {
    details: { field, ...(value === undefined ? {} : { value }) },
  });
}

function freeze(flags: FreezeFlags): void {
  const stage = flags.stage.toUpperCase();
  if (stage !== "A" && stage !== "B")
    throw usage(
      "--stage",
      `--stage must be A or B; got ${JSON.stringify(flags.stage)}`,
      flags.stage,
    );
  if ((flags.draftOut === undefined) === (flags.verify !== true))
    throw usage("--draft-out", "give exactly one of --draft-out FILE or --verify");
  const root = repositoryRoot(process.cwd());
  if (flags.draftOut !== undefined) {
    if (existsSync(flags.draftOut))
      throw usage(
        "--draft-out",
        `${flags.draftOut} exists: a draft never overwrites a registration; choose another path or remove it`,
        flags.draftOut,
      );
    checkOutputFile(flags.draftOut, "--draft-out", { createFolder: true });
    mkdirSync(dirname(flags.draftOut), { recursive: true });
    writeFileSync(flags.draftOut, freezeDraftText(stage as FreezeStage, root), "utf8");
    emitResult(
      flags.json === true,
      { stage, draft: flags.draftOut, verified: false },
      `wrote a draft Stage-${stage} registration to ${flags.draftOut}\nit cannot verify until a human replaces every REQUIRED-HUMAN field`,
    );
    return;
  }
  const result = verifyFreeze(stage as FreezeStage, root);
  if (!result.verified) requestExit(EXIT_CODES.declared_outcome.code);
  emitResult(
    flags.json === true,
    { ...result },
    result.verified
      ? `verified: Stage-${stage} registration ${result.path}`
      : [
          `NOT VERIFIED: Stage-${stage} registration ${result.path}`,
          ...result.reasons.map((r) => `  - ${r}`),
        ].join("\n"),
  );
}

function holdout(flags: HoldoutFlags): void {
  const root = repositoryRoot(process.cwd());
  const refusal = holdoutRefusal(flags.out, root, flags.masterSeed);
  if (refusal?.kind === "usage") throw usage(refusal.field, refusal.message);
  if (refusal !== null) {
    requestExit(EXIT_CODES.integrity.code);
    emitResult(
      flags.json === true,
      { refused: refusal.message, field: refusal.field },
      `refused: ${refusal.message}`,
    );
    return;
  }
  checkOutputDir(flags.out, "--out");
  const commitment = generateHoldout(flags.out, root, flags.masterSeed);
  emitResult(
    flags.json === true,
    { commitment },
    [
      `wrote ${commitment.artifact_count} holdout artifacts and archive-manifest.json to ${commitment.dir}`,
      `plaintext root hash ${commitment.plaintext_root_hash}`,
      "next (human steps): encrypt the archive offline, record its SHA-256 and the plaintext root hash in the Stage-B registration, keep the key and the plaintext out of the repository",
    ].join("\n"),
  );
}

/** Registers `freeze` and `holdout` under the `bench` command group. */
export function registerIntegrityCommands(bench: Command): void {
  bench
    .command("freeze")
    .description(
      "freeze registrations: write a draft (--draft-out) or verify the committed one (--verify)",
    )
    .requiredOption("--stage <A|B>", "which registration: A (design) or B (fixtures and holdout)")
    .option("--draft-out <file>", "write a draft registration (every human field REQUIRED-HUMAN)")
    .option(
      "--verify",
      "verify docs/registrations/stage-<a|b>-v1/registration.json (exit 3 if not)",
    )
    .option("--json", "print a JSON document on stdout instead of the human form on stderr")
    .action((flags: FreezeFlags) => freeze(flags));
  bench
    .command("holdout")
    .description(
      "generate holdout material from a private seed, outside the repository (inside: refused, exit 4)",
    )
    .requiredOption("--out <dir>", "a new, empty directory outside the repository")
    .requiredOption(
      "--master-seed <hex>",
      "a private 64-hex-digit seed (never the public dev seed)",
    )
    .option("--json", "print a JSON document on stdout instead of the human form on stderr")
    .action((flags: HoldoutFlags) => holdout(flags));
}
