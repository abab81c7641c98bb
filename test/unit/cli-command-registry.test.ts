/**
 * The lazy command registry (src/cli/commands/index.ts): the help term and description kept
 * for each command match what its module registers, so `irrevon --help` (which loads no
 * command module) shows exactly what the commands are; `invokedCommand` picks the command to
 * load, including after `help`.
 */
import { Command, Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, invokedCommand } from "../../src/cli/commands/index.js";

describe("command registry", () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    "%s: the registry's help term and description are the module's",
    async (_name, entry) => {
      const program = new Command();
      (await entry.load()).register(program);
      const registered = program.commands.find((c) => c.name() === entry.name);
      expect(registered).toBeDefined();
      if (registered === undefined) return;
      expect(new Help().subcommandTerm(registered)).toBe(entry.term);
      expect(registered.description()).toBe(entry.description);
    },
    // Loading a command module loads the engine, drivers and Hono: slow on a loaded machine.
    180_000,
  );

  it("picks the invoked command, also after `help`, and none for root options", () => {
    expect(invokedCommand(["demo", "--seed", "7"])?.name).toBe("demo");
    expect(invokedCommand(["help", "inspect"])?.name).toBe("inspect");
    expect(invokedCommand(["--help"])).toBeUndefined();
    expect(invokedCommand(["--version"])).toBeUndefined();
    expect(invokedCommand(["nope"])).toBeUndefined();
  });
});
