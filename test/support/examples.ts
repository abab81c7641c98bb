/**
 * test/support/examples — what each runnable example prints, shared by the from-source test
 * (test/process/example-quickstart) and the packed-tarball test (test/process/package-tarball).
 */
import { expect } from "vitest";

/** The lines examples/quickstart prints. */
export const QUICKSTART_LINES: readonly unknown[] = [
  "first call committed reconciled",
  "retry committed replayed changed=items,line_items,shipping,shipping_method",
  "same destination ref true",
  expect.stringMatching(
    /^model sees .*do not retry\..*changed: items, line_items, shipping, shipping_method/,
  ),
  "destination effects 1",
];

const DONE =
  "        model reads: Done: the action was completed and the destination confirmed it.";
const REPLAYED =
  "        model reads: This action was already completed earlier and was not repeated; do not retry. Your parameters differ from the recorded ones (changed: note, shipping); they were not applied.";

/** The lines examples/ai prints (AI SDK mock model: lost reply, re-worded retry, new order). */
export const AI_LINES: readonly unknown[] = [
  "turn 1: place_order → committed effect 0bb7e8d64711",
  DONE,
  "turn 2: place_order → committed (replayed) effect 0bb7e8d64711",
  REPLAYED,
  "turn 3: place_order → committed effect f5591d16a446",
  DONE,
  "model: Orders 9410 and 9411 are placed.",
  "destination saw 2 create requests, answered: dropped, 201",
  "destination holds 2 orders after 3 tool calls",
];

/** The lines examples/mcp prints (in-memory MCP client: the same story, plus the flags). */
export const MCP_LINES: readonly unknown[] = [
  'tools: place_order {"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true}',
  "order 9410: committed effect 0bb7e8d64711 isError=false",
  DONE,
  "re-worded retry: committed (replayed) effect 0bb7e8d64711 isError=false",
  REPLAYED,
  "order 9411: committed effect f5591d16a446 isError=false",
  DONE,
  "destination saw 2 create requests, answered: dropped, 201",
  "destination holds 2 orders after 3 tool calls",
];

const AGENT_RETRY_MESSAGE = expect.stringMatching(
  /^model read \(call_2\): .*do not retry\..*changed: note/,
);
/** The lines examples/openai-agents prints. */
export const OPENAI_AGENTS_LINES: readonly unknown[] = [
  "call_1 committed replayed=false",
  "call_2 committed replayed=true changed=note",
  "call_3 committed replayed=false",
  "retry read the original destination ref true",
  AGENT_RETRY_MESSAGE,
  "destination effects 2",
  "final answer: Orders 9410 and 9411 are placed.",
];

/** The lines examples/langchain prints. */
export const LANGCHAIN_LINES: readonly unknown[] = [
  "call_1 committed replayed=false evidence=reconciled",
  "call_2 committed replayed=true changed=note evidence=reconciled",
  "call_3 committed replayed=false evidence=receipt",
  "retry read the original destination ref true",
  AGENT_RETRY_MESSAGE,
  "destination effects 2",
  "final answer: Orders 9410 and 9411 are placed.",
];
