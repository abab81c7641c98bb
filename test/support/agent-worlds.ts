/**
 * test/support/agent-worlds — what the agent-binding suites share: an engine on a cloned
 * PGlite ledger wired to two in-process reference destinations (real clock, no crash points),
 * the order tool's definition, and a scripted `@openai/agents` Model (no network, no key).
 * Not a test file.
 */
import { Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { z } from "zod";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { GuardedToolDefinition } from "../../src/agent/guarded-tool.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { openTestLedger } from "./databases.js";

export interface AgentWorld {
  readonly irrevon: Irrevon;
  /** C2, no read lag: a lost response is reconciled within run()'s budget. */
  readonly prompt: Refdest;
  readonly promptAdapterId: string;
  /** C2 with an hour of read lag: a lost response stays AMBIGUOUS for the whole test. */
  readonly lagging: Refdest;
  readonly laggingAdapterId: string;
  /** Effects the destinations stored for this effect id (any step). */
  effectsFor(effectId: unknown): number;
  /** Create requests the destinations received for this effect id, whatever their outcome. */
  createsFor(effectId: unknown): number;
  /** Create requests both destinations received in all. */
  totalCreates(): number;
  close(): Promise<void>;
}

function destination(lagSeconds: number): { refdest: Refdest; adapter: RefdestAdapter } {
  const refdest = createRefdest({ tier: "C2", seed: 7, lagSeconds });
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration: refdestDeclaration("C2", { lagSeconds }),
    transport: createInProcessTransport(refdest),
  });
  return { refdest, adapter };
}

/**
 * One ledger (a clone of the migrated PGlite image) and one engine per suite, with two
 * destinations. Tests keep apart by scope and count destination effects by effect id (the
 * destination's client_ref is the operation id `<effect id>:<step>`).
 */
export async function openAgentWorld(): Promise<AgentWorld> {
  const ledger = await openTestLedger("pglite");
  const prompt = destination(0);
  const lagging = destination(3_600);
  const irrevon = await openIrrevon({
    database: ledger.app,
    adapters: [prompt.adapter, lagging.adapter],
    config: { rereadGapSeconds: 0 },
    crashPoints: NO_CRASH_POINTS,
  });
  const refdests = [prompt.refdest, lagging.refdest];
  const ofEffect = (effectId: unknown) => (clientRef: string | null) =>
    typeof effectId === "string" && clientRef?.startsWith(`${effectId}:`) === true;
  return {
    irrevon,
    prompt: prompt.refdest,
    promptAdapterId: prompt.adapter.adapterId,
    lagging: lagging.refdest,
    laggingAdapterId: lagging.adapter.adapterId,
    effectsFor: (effectId) =>
      refdests.flatMap((r) => r.truthDump().effects).filter((e) => ofEffect(effectId)(e.client_ref))
        .length,
    createsFor: (effectId) =>
      refdests
        .flatMap((r) => r.requestLog())
        .filter((e) => e.op === "create" && ofEffect(effectId)(e.client_ref)).length,
    totalCreates: () =>
      refdests.flatMap((r) => r.requestLog()).filter((e) => e.op === "create").length,
    async close() {
      await irrevon.close();
      await ledger.close();
    },
  };
}

/** The order tool's schema: the order id is the identity; items and note are parameters. */
export const orderSchema = z.object({
  order_id: z.string().describe("The shop's order number"),
  items: z.array(z.object({ sku: z.string(), quantity: z.number() })),
  note: z.string().describe("Free-text instructions for the warehouse"),
});

/** The guarded order tool as both suites define it, on one adapter and scope. */
export function orderTool(
  adapterId: string,
  scope: string,
): GuardedToolDefinition<typeof orderSchema> {
  return {
    name: "place_order",
    description: "Places the customer's order with the warehouse.",
    inputSchema: orderSchema,
    stableIds: ["order_id"],
    effectType: "order.create",
    adapterId,
    scope,
    authorityRef: "auth_task_18",
  };
}

type OutputItems = ModelResponse["output"];

/** A model turn: a tool call. */
export function callTool(callId: string, name: string, args: unknown): OutputItems {
  return [
    { type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" },
  ];
}

/** A model turn: a final text answer. */
export function answer(text: string): OutputItems {
  return [
    {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text }],
    },
  ];
}

/**
 * A Model that answers from a script, one turn per request, and keeps every request so a test
 * can read what the model was shown (the tool outputs).
 */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #turns: OutputItems[];

  constructor(turns: readonly OutputItems[]) {
    this.#turns = [...turns];
  }

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.#turns.shift();
    if (output === undefined) return Promise.reject(new Error("the script has no more turns"));
    return Promise.resolve({ usage: new Usage(), output });
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("ScriptedModel does not stream");
  }

  /** The text output the model was shown for tool call `callId` (from the last request). */
  toolOutput(callId: string): string | undefined {
    const last = this.requests[this.requests.length - 1];
    if (last === undefined || typeof last.input === "string") return undefined;
    for (const item of last.input) {
      if (item.type !== "function_call_result" || item.callId !== callId) continue;
      const output = item.output;
      if (typeof output === "string") return output;
      if (!Array.isArray(output) && output.type === "text") return output.text;
    }
    return undefined;
  }
}
