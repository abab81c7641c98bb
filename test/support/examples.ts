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
