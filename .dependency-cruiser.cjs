/**
 * Layering rules (docs/architecture: style guide "Dependency direction").
 * Run by `npm run layering`, part of `npm test`.
 */
module.exports = {
  forbidden: [
    { name: "core-imports-nothing", severity: "error", from: { path: "^src/core/" }, to: { path: "^src/(?!core/)" } },
    { name: "db-only-core", severity: "error", from: { path: "^src/db/" }, to: { path: "^src/(?!core/|db/)" } },
    { name: "ledger-only-core-db", severity: "error", from: { path: "^src/ledger/" }, to: { path: "^src/(?!core/|db/|ledger/)" } },
    { name: "adapters-only-core", severity: "error", from: { path: "^src/adapters/" }, to: { path: "^src/(?!core/|adapters/)" } },
    { name: "refdest-only-core", severity: "error", from: { path: "^src/refdest/" }, to: { path: "^src/(?!core/|refdest/)" } },
    { name: "engine-layering", severity: "error", from: { path: "^src/engine/" }, to: { path: "^src/(?!core/|db/|ledger/|adapters/|engine/)" } },
    {
      name: "identity-never-sees-raw-model-arguments",
      comment: "I1: the identity code cannot import the module that holds raw model arguments (taint).",
      severity: "error",
      from: { path: "^src/core/identity\\.ts$" },
      to: { path: "^src/core/(taint|contract)" },
    },
    {
      name: "advisory-never-on-authority-path",
      comment: "I9: nothing on the authority path imports advisory, directly or indirectly.",
      severity: "error",
      // The CLI's dispatch modules and the bench commands are exempt as *sources*: `irrevon bench
      // run` reaches arm R, which uses the package entry (src/index.ts, which re-exports advisory)
      // as a user would. Every other command module is still checked on its own.
      from: {
        path: "^src/(core|db|ledger|engine|adapters|refdest|cli|workbench)/",
        pathNot: "^src/cli/(main|run)\\.ts$|^src/cli/commands/(index|bench|bench-run)\\.ts$",
      },
      to: { path: "^src/advisory/", reachable: true },
    },
    { name: "top-layers-not-imported", severity: "error", from: { path: "^src/(?!cli/|workbench/|bench/|testing/|index\\.ts)" }, to: { path: "^src/(cli|workbench|bench|testing)/" } },
    {
      name: "bench-arms-blind-to-truth",
      comment: "Bench arms never see oracle labels, fixture truth, metrics, statistics or the oracles; they get episodes from the runner.",
      severity: "error",
      from: { path: "^src/bench/arms/" },
      to: { path: "^src/bench/(fixtures|metrics|stats|oracles|runner|verdict|integrity|report|analysis|faults)/" },
    },
    {
      name: "bench-reference-arm-public-api-only",
      comment: "Arm R measures the product as a user gets it: the engine only through the package entry (src/index.ts).",
      severity: "error",
      from: { path: "^src/bench/arms/reference" },
      to: { path: "^src/(core|db|ledger|engine|adapters|advisory)/" },
    },
    {
      name: "bench-arms-no-destination-control",
      comment: "Bench arms reach the reference destination only over its public HTTP API (through an adapter), never its control API, truth log or in-process object.",
      severity: "error",
      from: { path: "^src/bench/arms/" },
      to: { path: "^src/refdest/" },
    },
    {
      name: "openai-agents-only-in-its-binding",
      comment: "irrevon/openai-agents: @openai/agents is an optional peer; only its binding file imports it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/agent/openai-agents\\.ts$" },
      to: { path: "node_modules/@openai/agents" },
    },
    {
      name: "langchain-only-in-its-binding",
      comment: "irrevon/langchain: @langchain/core is an optional peer; only its binding file imports it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/agent/langchain\\.ts$" },
      to: { path: "node_modules/(@langchain/|langchain/)" },
    },
    {
      name: "agent-bindings-not-in-main-entry",
      comment: "The main entry never loads a framework binding (they are subpath exports).",
      severity: "error",
      from: { path: "^src/(?!agent/(openai-agents|langchain)\\.ts$)" },
      to: { path: "^src/agent/(openai-agents|langchain|binding-support)\\.ts$" },
    },
    {
      name: "agent-no-storage-or-destination",
      comment: "Agent tools go through irrevon.run(): src/agent never imports the ledger, the database or the reference destination.",
      severity: "error",
      from: { path: "^src/agent/" },
      to: { path: "^src/(ledger|db|refdest)/" },
    },
    { name: "agent-not-imported-below", severity: "error", from: { path: "^src/(core|db|ledger|engine|adapters|refdest|advisory)/" }, to: { path: "^src/agent/" } },
    {
      name: "agent-frameworks-only-in-their-binding",
      comment: "The core stays framework-free: only a binding file (irrevon/ai, irrevon/mcp, …) imports its framework, and nothing in src imports a binding.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/agent/(ai|mcp|openai-agents|langchain)\\.ts$" },
      to: { path: "(^src/agent/(ai|mcp|openai-agents|langchain)\\.ts$|node_modules/(ai|@ai-sdk|@modelcontextprotocol|@openai/agents|@langchain|langchain)/)" },
    },
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
