/**
 * advisory/classifier-proposal — the only advisory type (reference §9): a similarity
 * classifier's suggestion of what to do about an effect. It is evidence for a human to
 * read, never an input to the gate, the ledger's write functions or resolution (I9).
 *
 * Nothing on the authority path imports this folder (a layering rule checks it); those
 * paths recognise and refuse advisory data with core/advisory-guard instead, which is why
 * `toPayload()` stamps the marker key.
 *
 * Imports: core only.
 */
import { ADVISORY_MARKER } from "../core/advisory-guard.js";
import { ContractInvalidError } from "../core/errors.js";
import { isIntentId } from "../core/identity.js";
import { valueKindOf } from "../core/preflight.js";
import { RESOLUTION_ACTIONS, type ResolutionAction } from "../core/state-tables.js";

/** The fields of a proposal. */
export interface ClassifierProposalInit {
  /** The effect (intent id) the proposal is about. */
  readonly subjectEffectId: string;
  /** What the classifier suggests a human do. */
  readonly proposedAction: ResolutionAction;
  /** In [0, 1]. */
  readonly confidence: number;
  readonly rationale: string;
}

/** The serialised form; the marker key lets core/advisory-guard refuse it anywhere. */
export interface ClassifierProposalPayload {
  readonly subject_effect_id: string;
  readonly proposed_action: ResolutionAction;
  readonly confidence: number;
  readonly rationale: string;
  readonly [ADVISORY_MARKER]: true;
}

function invalid(path: string, limit: string, value: unknown, message: string): never {
  throw new ContractInvalidError(message, path, limit, valueKindOf(value));
}

/** An advisory suggestion. Immutable. */
export class ClassifierProposal {
  readonly subjectEffectId: string;
  readonly proposedAction: ResolutionAction;
  readonly confidence: number;
  readonly rationale: string;

  constructor(init: ClassifierProposalInit) {
    if (!isIntentId(init.subjectEffectId)) {
      invalid(
        "$.subject_effect_id",
        "pattern",
        init.subjectEffectId,
        "subject must be a 64-hex effect id",
      );
    }
    if (!RESOLUTION_ACTIONS.includes(init.proposedAction)) {
      invalid("$.proposed_action", "enum", init.proposedAction, "unknown resolution action");
    }
    if (!(init.confidence >= 0 && init.confidence <= 1)) {
      invalid("$.confidence", "range", init.confidence, "confidence must be within [0, 1]");
    }
    if (typeof init.rationale !== "string")
      invalid("$.rationale", "type", init.rationale, "rationale must be text");
    this.subjectEffectId = init.subjectEffectId;
    this.proposedAction = init.proposedAction;
    this.confidence = init.confidence;
    this.rationale = init.rationale;
    Object.freeze(this);
  }

  /** The JSON form, stamped with `"__irrevon_advisory__": true`. */
  toPayload(): ClassifierProposalPayload {
    return {
      subject_effect_id: this.subjectEffectId,
      proposed_action: this.proposedAction,
      confidence: this.confidence,
      rationale: this.rationale,
      [ADVISORY_MARKER]: true,
    };
  }
}
