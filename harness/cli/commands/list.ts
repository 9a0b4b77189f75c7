/** `list`: the scenarios, the built-in clients, the rules or the property families. */
import type { Command } from 'commander';
import { rulesText } from '../../core/oracle/describe.js';
import { dutyLevel } from '../../core/oracle/rule.js';
import { RULES } from '../../core/oracle/rules.js';
import type { Binding, Dialect } from '../../core/protocol/types.js';
import { UsageError } from '../../faults.js';
import { load, scenarioFiles } from '../context.js';
import { print, printJson } from '../io.js';
import {
  bindingOption,
  configOption,
  noConfigOption,
  dialectOption,
  grepOption,
  noBuiltinOption,
  ruleOption,
  scenarioIdOption,
  scenariosOption,
  type Grep,
} from '../options.js';

/** The options of `list`, as commander gives them. */
interface ListOpts {
  clients?: boolean;
  rules?: boolean;
  families?: boolean;
  scenarios?: string[];
  builtin: boolean;
  json?: boolean;
  rule?: string[];
  dialect?: Dialect;
  binding?: Binding[];
  scenario?: string[];
  grep?: Grep;
}

export function register(program: Command): void {
  program
    .command('list')
    .description(
      'list the scenarios (or, with --clients, the built-in clients; with --rules, the rules and their sources; with --families, the property families)',
    )
    .option('--clients', 'print the built-in clients, one per line')
    .option('--families', 'print the property families: id, rules, title')
    .option('--rules', 'print every rule with its sources (quoted, with section and level) and how it grades')
    .addOption(configOption())
    .addOption(noConfigOption())
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .addOption(ruleOption())
    .addOption(dialectOption())
    .addOption(bindingOption())
    .addOption(scenarioIdOption())
    .addOption(grepOption())
    .option('--json', 'print JSON')
    .action(listAction);
}

async function listAction(opts: ListOpts): Promise<void> {
  if (opts.families) return listFamilies(opts.json);
  if (opts.rules) return listRules(opts.json);
  if (opts.clients) return listClients(opts.json);
  return listScenarios(opts);
}

async function listFamilies(json?: boolean): Promise<void> {
  const { ALL_FAMILIES, BY_NAME_ONLY } = await load.families();
  const byName = (f: (typeof ALL_FAMILIES)[number]) => BY_NAME_ONLY.includes(f);
  if (json) printJson(ALL_FAMILIES.map((f) => ({ id: f.id, title: f.title, rules: f.rules, spec: f.spec, ...(byName(f) ? { byNameOnly: true } : {}) })));
  else
    for (const f of ALL_FAMILIES)
      print(`${f.id.padEnd(14)} ${f.rules.join(',').padEnd(90)} ${f.title}${byName(f) ? ' (run only by name: --family ' + f.id + ')' : ''}\n`);
}

function listRules(json?: boolean): void {
  if (!json) {
    print(rulesText());
    return;
  }
  printJson(
    RULES.map((r) => ({
      id: r.id,
      title: r.title,
      family: r.family,
      scope: r.scope,
      level: dutyLevel(r) ?? null,
      sources: r.sources,
      limits: r.limits ?? [],
      grades: r.grades,
      notBinding: r.notBinding,
      ...(r.otherwise ? { otherwise: r.otherwise } : {}),
    })),
  );
}

async function listClients(json?: boolean): Promise<void> {
  const { BUILTIN_CLIENTS } = await load.clients();
  if (json) printJson(BUILTIN_CLIENTS.map(({ name, description, caughtBy, atLeast }) => ({ name, description, ...(caughtBy ? { caughtBy, atLeast } : {}) })));
  else print(BUILTIN_CLIENTS.map((c) => c.name).join('\n') + '\n');
}

async function listScenarios(opts: ListOpts): Promise<void> {
  const { tellOver } = await import('../../core/card-binding.js');
  const all = tellOver(await (await load.catalogue()).loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin)), opts.binding ?? []);
  // The filters `run` takes, with the same answer when they select nothing (exit 2, one line).
  const { filterCatalogue, filtersProblem } = await load.select();
  const pick = { ...(opts.scenario ? { ids: opts.scenario } : {}), ...(opts.grep ? { grep: opts.grep } : {}) };
  const empty = filtersProblem(all, opts.rule, opts.dialect, pick);
  if (empty) throw new UsageError(empty);
  const catalogue = filterCatalogue(all, opts.rule, opts.dialect, pick);
  if (opts.json) {
    // Where each scenario's peer answers: the dialect it speaks and the binding of its card's main interface.
    const { scenarioBinding } = await import('../../core/card-binding.js');
    printJson(
      catalogue.map((e) => ({
        id: e.scenario.id,
        rule: e.scenario.rule,
        title: e.scenario.title,
        expect: e.scenario.expect,
        dialect: e.scenario.peer.dialect ?? 'a2a-v1',
        binding: scenarioBinding(e.scenario),
      })),
    );
    return;
  }
  for (const e of catalogue) print(`${e.scenario.id.padEnd(52)} ${e.scenario.rule.padEnd(22)} ${e.scenario.expect}\n`);
}
