/**
 * cli/commands/identity — `irrevon identity [FILE|-] [--json]`: validates an intent
 * contract and prints its `intent_id`, step-0 `operation_id` and the canonical preimage.
 * Touches no database. Bad input (including bad JSON) is a typed error and exit 2.
 */
import type { Command } from "commander";
import { validateIntentContract } from "../../core/contract.js";
import { operationId } from "../../core/identity.js";
import { emitResult } from "../output.js";
import { parseJsonText, readInputText } from "../read-input.js";

interface IdentityOptions {
  readonly json?: boolean;
}

/** Registers the `identity` command. */
export function register(program: Command): void {
  program
    .command("identity")
    .description(
      "derive intent_id, operation_id (step 0) and the canonical preimage of an intent contract",
    )
    .argument("[file]", "intent contract JSON file, or - for stdin (the default)")
    .option("--json", "print a JSON document on stdout instead of the human form on stderr")
    .action(async (file: string | undefined, options: IdentityOptions) => {
      const contract = parseJsonText(await readInputText(file));
      const intent = validateIntentContract(contract);
      const { intentId, canonical, identityVersion } = intent.identity;
      const operation = operationId(intentId, 0);
      emitResult(
        options.json === true,
        {
          intent_id: intentId,
          operation_id: operation,
          canonical,
          identity_version: identityVersion,
        },
        [
          `intent_id     ${intentId}`,
          `operation_id  ${operation}`,
          `canonical     ${canonical}`,
        ].join("\n"),
      );
    });
}
