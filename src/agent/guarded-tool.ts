/**
 * agent/guarded-tool — the framework-neutral core every agent binding wraps: a tool whose
 * input is a zod object schema, some of whose top-level fields are the identity (stable ids)
 * and the rest the model-written parameters. `execute` validates the input, splits the two and
 * calls `irrevon.run`, so a repeated call of the same business intent collapses onto the first
 * one. `toolResultForModel` turns a RunResult into the JSON object a framework hands back to
 * the model. Definition errors are raised when the tool is defined, before a model sees it.
 * Imports: core, engine (types and run results only).
 */
import type { ZodObject, ZodRawShape, infer as ZodInfer } from "zod";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { EFFECT_CLASSES, type EffectClass } from "../core/state-tables.js";
import type { Irrevon } from "../engine/irrevon.js";
import type { RunResult } from "../engine/run-result.js";

/** What a guarded tool is made of. */
export interface GuardedToolDefinition<S extends ZodObject<ZodRawShape>> {
  readonly name: string;
  readonly description: string;
  /** A zod object schema (zod 4). */
  readonly inputSchema: S;
  /** Names of top-level fields of inputSchema whose values are the identity (stable ids). */
  readonly stableIds: readonly (keyof ZodInfer<S> & string)[];
  readonly effectType: string;
  readonly adapterId: string;
  readonly scope: string | ((input: ZodInfer<S>) => string);
  readonly authorityRef: string | ((input: ZodInfer<S>) => string);
  readonly effectClass?: EffectClass;
  readonly reconcileWithinMs?: number;
}

/** A defined guarded tool. */
export interface GuardedTool<S extends ZodObject<ZodRawShape>> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  /** Truthful MCP-style hints: destructiveHint true unless effectClass is IDEMPOTENT/REVERSIBLE; idempotentHint true (the guard makes repeats collapse). */
  readonly annotations: {
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: true;
  };
  /** Validates input with the schema, splits stable ids from tainted parameters, calls irrevon.run. */
  execute(input: ZodInfer<S>, context?: { readonly signal?: AbortSignal }): Promise<RunResult>;
}

/** The JSON-safe object a framework hands back to the model for a result. */
export interface ToolResultForModel {
  status: RunResult["status"];
  message: string;
  effect_id: string;
  replayed: boolean;
  destination_ref?: string | null;
  response?: Readonly<Record<string, unknown>> | null;
  check?: string;
  reason?: string;
  retryable?: boolean;
  changed_fields?: readonly string[];
}

function invalid(field: string, message: string): IrrevonError {
  return new IrrevonError(ErrorCode.tool_definition_invalid, message, { details: { field } });
}

function requireText(value: unknown, field: string): void {
  if (typeof value !== "string" || value.trim() === "")
    throw invalid(field, `guarded tool ${field} must be a non-empty string`);
}

function requireTextOrFunction(value: unknown, field: string): void {
  if (typeof value === "function") return;
  requireText(value, field);
}

/** The top-level field names of a zod object schema (duck-typed: the caller's zod copy may differ from ours). */
function schemaFields(schema: unknown): string[] {
  const shape = (schema as { shape?: unknown } | null)?.shape;
  if (
    typeof (schema as { safeParse?: unknown } | null)?.safeParse !== "function" ||
    typeof shape !== "object" ||
    shape === null
  )
    throw invalid(
      "inputSchema",
      "guarded tool inputSchema must be a zod object schema (z.object({...}))",
    );
  return Object.keys(shape);
}

function checkDefinition(definition: GuardedToolDefinition<ZodObject<ZodRawShape>>): void {
  if (typeof definition !== "object" || definition === null)
    throw invalid("definition", "a guarded tool definition must be an object");
  requireText(definition.name, "name");
  requireText(definition.description, "description");
  requireText(definition.effectType, "effectType");
  requireText(definition.adapterId, "adapterId");
  requireTextOrFunction(definition.scope, "scope");
  requireTextOrFunction(definition.authorityRef, "authorityRef");
  const fields = schemaFields(definition.inputSchema);
  if (!Array.isArray(definition.stableIds) || definition.stableIds.length === 0)
    throw invalid(
      "stableIds",
      "a guarded tool names at least one stable-id field of its input schema",
    );
  for (const id of definition.stableIds) {
    if (typeof id !== "string" || !fields.includes(id))
      throw new IrrevonError(
        ErrorCode.stable_id_not_in_schema,
        `stable id ${JSON.stringify(String(id))} is not a top-level field of the input schema (fields: ${fields.join(", ")})`,
        { details: { field: String(id), schema_fields: fields } },
      );
  }
  if (definition.effectClass !== undefined && !EFFECT_CLASSES.includes(definition.effectClass))
    throw invalid("effectClass", `effectClass must be one of ${EFFECT_CLASSES.join(", ")}`);
}

/** A stable-id value as text: strings as-is, finite numbers stringified, anything else refused. */
function stableIdText(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  // The value itself is never echoed: it may be sensitive.
  throw invalid(name, `stable id ${name} must be a string or a finite number`);
}

/** Defines a guarded tool; throws stable_id_not_in_schema / tool_definition_invalid for a bad definition. */
export function defineGuardedTool<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
): GuardedTool<S> {
  checkDefinition(definition as unknown as GuardedToolDefinition<ZodObject<ZodRawShape>>);
  const stableIdNames = new Set<string>(definition.stableIds);
  const effectClass = definition.effectClass ?? "IRREVERSIBLE";
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    annotations: {
      destructiveHint: effectClass !== "IDEMPOTENT" && effectClass !== "REVERSIBLE",
      idempotentHint: true,
      openWorldHint: true,
    },
    async execute(input, context) {
      const parsed = definition.inputSchema.safeParse(input);
      if (!parsed.success) {
        const errors = parsed.error.issues.map((i) => ({
          path: i.path.map(String).join("."),
          message: i.message,
        }));
        throw new IrrevonError(
          ErrorCode.payload_invalid,
          `tool ${definition.name} input invalid at ${errors[0]?.path || "(root)"}: ${errors[0]?.message ?? "invalid"}`,
          { details: { tool: definition.name, field: errors[0]?.path ?? "", errors } },
        );
      }
      const value = parsed.data as ZodInfer<S>;
      const record = value as Record<string, unknown>;
      const stableIds: Record<string, string> = {};
      const parameters: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(record)) {
        if (stableIdNames.has(key)) stableIds[key] = stableIdText(key, v);
        else if (v !== undefined) parameters[key] = v;
      }
      for (const name of stableIdNames) {
        if (!(name in stableIds))
          throw invalid(name, `stable id ${name} is missing from the input`);
      }
      const scope =
        typeof definition.scope === "function" ? definition.scope(value) : definition.scope;
      const authorityRef =
        typeof definition.authorityRef === "function"
          ? definition.authorityRef(value)
          : definition.authorityRef;
      return irrevon.run({
        effectType: definition.effectType,
        scope,
        stableIds,
        parameters,
        adapterId: definition.adapterId,
        effectClass,
        authorityRef,
        ...(definition.reconcileWithinMs === undefined
          ? {}
          : { reconcileWithinMs: definition.reconcileWithinMs }),
        ...(context?.signal === undefined ? {} : { signal: context.signal }),
      });
    },
  };
}

/** The JSON-safe object a framework hands back to the model for a result. */
export function toolResultForModel(result: RunResult): ToolResultForModel {
  const out: ToolResultForModel = {
    status: result.status,
    message: result.modelMessage,
    effect_id: result.effectId,
    replayed: result.replayed,
  };
  switch (result.status) {
    case "committed":
      out.destination_ref = result.destinationRef;
      out.response = result.response;
      break;
    case "denied":
      out.check = result.check;
      out.reason = result.reason;
      break;
    case "failed":
      out.retryable = result.retryable;
      out.reason = result.reason;
      break;
    case "ambiguous":
      break;
  }
  if (result.variant !== null) out.changed_fields = result.variant.changedFields;
  return out;
}
