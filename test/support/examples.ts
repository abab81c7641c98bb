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
