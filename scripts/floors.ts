/**
 * The floors of the house, lowest first: an import runs down (a file may import its own room or a room
 * on a lower floor). test/architecture.test.ts checks every import against them, and `npm run docs`
 * writes docs/architecture.md's table from them (test/docs-generated.test.ts: never stale). One source.
 */
export interface Room {
  /** Its name in the architecture test's messages. */
  area: string;
  /** Its folder (ending in /) or file, from the package root. */
  path: string;
  /** What it holds (Markdown, one table cell). */
  holds: string;
}

export const FLOORS: Room[][] = [
  [
    {
      area: 'protocol',
      path: 'harness/core/protocol/',
      holds:
        "the protocols a client under test speaks, as data and codecs, and the only part of the harness a client may import: the NDJSON adapter protocol's types, the card view, media types, extension URIs, the A2A v1.0 data model as data (`proto-v1.ts`), its protobuf wire and the gRPC service (`proto-wire.ts`, `grpc-service.ts`). Imports nothing outside itself",
    },
  ],
  [
    {
      area: 'core',
      path: 'harness/core/',
      holds: 'pure data and reasoning: scenarios, transcripts, results, verdicts, the card validators and canonical form. No `node:` import',
    },
  ],
  [
    {
      area: 'oracle',
      path: 'harness/core/oracle/',
      holds:
        'the oracle: one rule a file under `rules/<family>/`, the registry (`rules.ts`), the shared graders (`graders.ts`), evidence and assertions, and what the client genuinely knew when it acted (`knowledge.ts`: news of a task against false alarms, the acts they tie to)',
    },
    { area: 'faults', path: 'harness/faults.ts', holds: 'every fault class the CLI maps to an exit code' },
  ],
  [
    {
      area: 'properties',
      path: 'harness/properties/',
      holds:
        'the property families: generators of cards, profiles, intents and runtimes, and the rules each family grades (pure, like core; their runner is `runner/properties/`)',
    },
  ],
  [
    { area: 'pki', path: 'harness/pki/', holds: "the run's certificates" },
    {
      area: 'peers/runtime',
      path: 'peers/runtime/',
      holds: 'the neutral peer runtime: tasks, operations as a table, intake, streams, push, the auth gate, signing. Knows no wire',
    },
    {
      area: 'clients',
      path: 'clients/',
      holds: "the built-in clients (reference, naive, SDK adapters). See only core's protocol folder: never the oracle, the runner or the peers",
    },
    {
      area: 'reports',
      path: 'reports/',
      holds: "renderers from `results.json` alone: HTML, JUnit, Markdown; the matrix's page, summary and badges from its model (`harness/core/matrix.ts`)",
    },
  ],
  [
    {
      area: 'net',
      path: 'harness/net/',
      holds:
        "the TLS/mTLS listeners (`peer-host.ts`, HTTP/1.1), the contract of a binding's own transport beside them (`transport.ts`: gRPC's HTTP/2 listeners are one, in its wire's folder), what every listener records of a request (`request-record.ts`), the push dispatcher, the lag governor",
    },
  ],
  [
    {
      area: 'peers/wires',
      path: 'peers/wires/',
      holds:
        "one folder per binding and dialect (`jsonrpc-v1/`, `jsonrpc-v03/`, `httpjson-v1/`, `grpc-v1/`), each one `Wire` and, where the binding needs listeners of its own, its `Transport` (gRPC's `host.ts`); `jsonrpc/` is the envelope both JSON-RPC wires share; `error-map.ts` is spec §5.4's one table; `index.ts` is the one registry",
    },
    {
      area: 'adapters',
      path: 'harness/adapters/',
      holds:
        'the client adapter contract, the NDJSON subprocess transport, and which process holds a connection (`process-group.ts`): the runner hands it to the listeners as a filter (`ForeignConnection`), so `net` imports nothing of it',
    },
  ],
  [{ area: 'peers', path: 'peers/', holds: 'the factories (`index.ts`), the endpoint loop every wire goes through, the peer composer' }],
  [
    {
      area: 'runner/infrastructure',
      path: 'harness/runner/infrastructure/',
      holds: 'run folders, environments (listeners and PKI for a lane), mounting a peer, heap, package root',
    },
  ],
  [{ area: 'runner/load', path: 'harness/runner/load/', holds: 'the catalogue, vendor scenario modules (in a worker), JSON schemas, `define*`' }],
  [
    {
      area: 'runner/judge',
      path: 'harness/runner/judge/',
      holds:
        'expectations, policy, merge, confirmation of a lagged failure; the matrix of several clients (`matrix.ts`), their tiers (`tiers.ts`, docs/tiers.md) and `report --compare` (`compare.ts`)',
    },
  ],
  [
    {
      area: 'runner/engine',
      path: 'harness/runner/engine/',
      holds:
        "a run: select, lanes, prepare / drive / grade one scenario, the control exchange; `doctor`'s control run and `serve`'s peers (`doctor.ts`, `serve.ts`)",
    },
  ],
  [
    {
      area: 'runner/properties',
      path: 'harness/runner/properties/',
      holds: "a property run: the families' cases on the engine's lanes, shrinking, replay (`run.ts`, `cases.ts`)",
    },
  ],
  [
    {
      area: 'cli',
      path: 'harness/cli/',
      holds:
        'the command: `main.ts` (the program and the exit codes), one file per command under `commands/` and what commands share (options, output, reporters, config)',
    },
  ],
  [
    { area: 'index', path: 'harness/index.ts', holds: 'the public entry (package.json `exports`)' },
    { area: 'scenarios', path: 'scenarios/', holds: 'the built-in scenarios' },
    { area: 'scripts', path: 'scripts/', holds: 'the build, the doc generators, the baselines' },
    { area: 'bench', path: 'bench/', holds: 'the bench (`npm run bench`)' },
  ],
];

/** docs/architecture.md's floors table. */
export function floorsTable(): string {
  const rows = FLOORS.flatMap((rooms, floor) => rooms.map((r) => `| ${floor} | \`${r.path}\` | ${r.holds} |`));
  return ['| floor | area | what it holds |', '|---|---|---|', ...rows].join('\n');
}
