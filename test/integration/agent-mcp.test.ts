/**
 * The MCP binding (irrevon/mcp) driven by the real TypeScript SDK: an MCP client talks to an
 * McpServer over the SDK's InMemoryTransport; the client plays the model. A lost response plus
 * a re-worded retry leaves ONE order at the destination and the client gets the original
 * result; a new order id makes a second order; a deny-listed effect type comes back as
 * `isError: true` with the denial and nothing sent; a lost reply at a C3 destination comes
 * back as `ambiguous` with `isError: false`; the listed annotations are truthful; a bad
 * definition is refused at registration.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerGuardedTool } from "../../src/agent/mcp.js";
import { isIrrevonError } from "../../src/core/errors.js";
import {
  createRequests,
  destinationOrders,
  loseNextNotifyResponse,
  EU_ORDER,
  FIRST_CALL,
  loseNextCreateResponse,
  NEW_ORDER,
  openAgentFixture,
  pauseEuOrders,
  placeOrder,
  placeOrderEu,
  placeOrderLegacy,
  REWORDED_RETRY,
  type AgentFixture,
} from "./agent-support.js";

interface Session {
  readonly client: Client;
  readonly server: McpServer;
}

async function connect(f: AgentFixture): Promise<Session> {
  const server = new McpServer({ name: "shop", version: "1.0.0" });
  registerGuardedTool(server, f.irrevon, placeOrder);
  registerGuardedTool(server, f.irrevon, placeOrderEu);
  registerGuardedTool(server, f.irrevon, placeOrderLegacy);
  const client = new Client({ name: "agent", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, server };
}

/** One tools/call; returns the structured result, the flag and the first text block. */
async function call(session: Session, args: Record<string, unknown>, name = "place_order") {
  const result = await session.client.callTool({ name, arguments: args });
  const content = result.content as readonly { type: string; text?: string }[];
  return {
    isError: result.isError === true,
    structured: result.structuredContent as Record<string, unknown> | undefined,
    text: content[0]?.text ?? "",
  };
}

describe("irrevon/mcp with the real MCP SDK (Client ⇄ McpServer, in memory)", () => {
  let f: AgentFixture;
  let session: Session;
  beforeAll(async () => {
    f = await openAgentFixture();
    session = await connect(f);
  });
  afterAll(async () => {
    await session.client.close();
    await session.server.close();
    await f.close();
  });

  it("lists the tool with truthful annotations and the zod input schema", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "place_order",
      "place_order_eu",
      "place_order_legacy",
    ]);
    const tool = tools.find((t) => t.name === "place_order");
    expect(tool?.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
      readOnlyHint: false,
    });
    expect(tool?.inputSchema.required).toEqual(
      expect.arrayContaining(["order_id", "customer_ref", "items"]),
    );
    expect(tool?.outputSchema?.required).toEqual(
      expect.arrayContaining(["status", "message", "effect_id", "replayed"]),
    );
  });

  it("a lost response and a re-worded retry make ONE order; a new order id makes a second", async () => {
    const ordersBefore = destinationOrders(f.refdest).length;
    const createsBefore = createRequests(f.refdest);
    loseNextCreateResponse(f.refdest);
    const first = await call(session, FIRST_CALL);
    expect(first.isError).toBe(false);
    expect(first.structured).toMatchObject({ status: "committed", replayed: false });
    expect(first.structured?.["destination_ref"]).toEqual(expect.any(String));

    const retry = await call(session, REWORDED_RETRY);
    expect(retry.isError).toBe(false);
    expect(retry.structured).toMatchObject({
      status: "committed",
      replayed: true,
      effect_id: first.structured?.["effect_id"],
      destination_ref: first.structured?.["destination_ref"],
      changed_fields: ["note", "shipping"],
    });
    expect(retry.text).toBe(retry.structured?.["message"]);

    const second = await call(session, NEW_ORDER);
    expect(second.isError).toBe(false);
    expect(second.structured).toMatchObject({ status: "committed", replayed: false });
    expect(second.structured?.["effect_id"]).not.toBe(first.structured?.["effect_id"]);

    // Ground truth: exactly two new orders, and the retry never reached the destination.
    const orders = destinationOrders(f.refdest).slice(ordersBefore);
    expect(orders.map((o) => o.destination_ref).sort()).toEqual(
      [first.structured?.["destination_ref"], second.structured?.["destination_ref"]].sort(),
    );
    expect(createRequests(f.refdest) - createsBefore).toBe(2);
  });

  it("a deny-listed effect type is an error result with the denial; nothing is sent", async () => {
    await pauseEuOrders(f.irrevon);
    const ordersBefore = destinationOrders(f.refdest).length;
    const createsBefore = createRequests(f.refdest);
    const denied = await call(session, EU_ORDER, "place_order_eu");
    expect(denied.isError).toBe(true);
    expect(denied.structured).toMatchObject({
      status: "denied",
      check: "deny_list",
      reason: "deny_listed",
    });
    expect(denied.text).toBe(denied.structured?.["message"]);
    expect(destinationOrders(f.refdest)).toHaveLength(ordersBefore);
    expect(createRequests(f.refdest)).toBe(createsBefore);
  });

  it("a lost reply at a C3 destination is ambiguous, NOT an error; the retry collapses onto it", async () => {
    loseNextNotifyResponse(f.refdestC3);
    const lost = await call(session, FIRST_CALL, "place_order_legacy");
    // The effect may have happened: not an error (an error invites a retry), and the text says so.
    expect(lost.isError).toBe(false);
    expect(lost.structured).toMatchObject({ status: "ambiguous", replayed: false });
    expect(lost.text).toContain("do not retry");

    const retry = await call(session, REWORDED_RETRY, "place_order_legacy");
    expect(retry.isError).toBe(false);
    expect(retry.structured).toMatchObject({
      status: "ambiguous",
      replayed: true,
      effect_id: lost.structured?.["effect_id"],
    });
    // The destination holds the one effect the lost call made; the retry sent nothing.
    expect(f.refdestC3.truthDump().effects).toHaveLength(1);
    expect(f.refdestC3.requestLog().filter((e) => e.op === "notify")).toHaveLength(1);
  });

  it("arguments that fail the schema are a tool error naming the field; nothing is written", async () => {
    const records = async (): Promise<number> => {
      const { rows } = await f.ledger.app.query<{ n: string }>(
        "SELECT count(*) AS n FROM effect_records",
      );
      return Number(rows[0]?.n);
    };
    const before = await records();
    const createsBefore = createRequests(f.refdest);
    const { order_id: _omitted, ...withoutOrderId } = NEW_ORDER;
    const refused = await call(session, withoutOrderId);
    expect(refused.isError).toBe(true);
    expect(refused.structured).toBeUndefined();
    expect(refused.text).toContain("order_id");
    expect(await records()).toBe(before);
    expect(createRequests(f.refdest)).toBe(createsBefore);
  });

  it("refuses a definition whose stable ids are not fields of the schema", () => {
    const server = new McpServer({ name: "shop", version: "1.0.0" });
    let code: string | undefined;
    try {
      registerGuardedTool(server, f.irrevon, {
        ...placeOrder,
        stableIds: ["order_number"] as never,
      });
    } catch (error) {
      code = isIrrevonError(error) ? error.code : String(error);
    }
    expect(code).toBe("stable_id_not_in_schema");
  });
});
