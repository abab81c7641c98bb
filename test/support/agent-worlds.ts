/**
 * test/support/agent-worlds — what the agent-binding suites share: an engine on a cloned
 * PGlite ledger wired to an in-process reference destination (real clock, no crash points),
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
  readonly destination: Refdest;
  readonly adapterId: string;
  /** Creates the destination stored (its truth dump). */
  createdEffects(): number;
  /** Create requests the destination received, whatever their outcome. */
  createRequests(): number;
  close(): Promise<void>;
}

/** C2 answers status queries (a lost response is reconciled); C3 cannot (stays AMBIGUOUS). */
export async function openAgentWorld(tier: "C2" | "C3" = "C2"): Promise<AgentWorld> {
  const ledger = await openTestLedger("pglite");
  const destination = createRefdest({ tier, seed: 7 });
  const declaration = refdestDeclaration(tier);
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration,
    transport: createInProcessTransport(destination),
  });
  const irrevon = await openIrrevon({
    database: ledger.app,
    adapters: [adapter],
    config: { rereadGapSeconds: 0 },
    crashPoints: NO_CRASH_POINTS,
  });
  return {
    irrevon,
    destination,
    adapterId: declaration.adapter,
    createdEffects: () => destination.truthDump().effects.length,
    createRequests: () => destination.requestLog().filter((entry) => entry.op === "create").length,
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

/** The guarded order tool as both suites define it. */
export function orderTool(adapterId: string): GuardedToolDefinition<typeof orderSchema> {
  return {
    name: "place_order",
    description: "Places the customer's order with the warehouse.",
    inputSchema: orderSchema,
    stableIds: ["order_id"],
    effectType: "order.create",
    adapterId,
    scope: "acme-store/prod",
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
