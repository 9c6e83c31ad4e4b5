import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { type Catalog, DEFAULT_COMPLEXITY_ROUTES } from '@switchyard/catalog';
import { configFilesIn, RECOMMENDED_CONFIG_FILE } from '@switchyard/config';
import { type PermissionLevel, SwitchyardError } from '@switchyard/core';
import pc from 'picocolors';
import { printJson } from '../output.js';
import { probeBwrap } from '../sandbox-check.js';
import { detectInstalledCatalog, writeCatalogFile } from './catalog-init.js';
import {
  applyChoices,
  cloudTargetsInLocalRoutes,
  defaultChoices,
  INIT_ROLES,
  type InitChoices,
  ROLE_QUESTIONS,
} from './init-catalog.js';
import { type ProposedSetup, proposeSetup } from './init-setup.js';

/** Options of `switchyard init`. */
export interface InitCommandOptions {
  workspace?: string;
  yes?: boolean;
  fast?: string;
  standard?: string;
  complex?: string;
  review?: string;
  /** What agents may do without asking: edit, edit+shell or all. */
  permissions?: PermissionLevel;
  catalog: string;
  force?: boolean;
  json?: boolean;
  /** `bwrap`: contain every agent attempt in a bubblewrap sandbox; `none`: do not. */
  sandbox?: 'bwrap' | 'none';
  /** false (`--no-setup`): propose no worktree set-up from the lockfiles found. */
  setup?: boolean;
}

/** True when a person can answer questions: both ends are a terminal. */
function interactive(opts: InitCommandOptions): boolean {
  return !opts.yes && !opts.json && process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/**
 * `switchyard init`: detect the agent CLIs, choose a target per kind of work (asking on a
 * terminal), write the catalog and `switchyard.config.json`. Nothing is written before every
 * choice is known and checked.
 */
export async function runInit(opts: InitCommandOptions): Promise<void> {
  const dir = resolve(opts.workspace ?? process.cwd());
  const catalogFile = resolve(dir, opts.catalog);
  const configFile = resolve(dir, RECOMMENDED_CONFIG_FILE);
  refuseExisting(dir, catalogFile, configFile, opts.force === true);
  const detected = await detectInstalledCatalog(dir);
  const chosen = await chooseCatalog(detected, opts);
  const { derived } = detected;
  const existing = existsSync(configFile)
    ? (JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>)
    : {};
  // A worktree holds only tracked files: its dependencies come from a set-up (asked first on a
  // terminal; an `isolation` the user wrote already is left alone).
  let setup = existing.isolation === undefined && opts.setup !== false ? proposeSetup(dir) : [];
  if (setup.length > 0 && interactive(opts) && !(await confirmSetup(setup))) setup = [];
  const leaks = cloudTargetsInLocalRoutes(chosen.catalog).filter(
    (l) => !derived?.placeholders.some((p) => l.endsWith(`: ${p}`)),
  );
  if (leaks.length > 0)
    throw new SwitchyardError('SY_INTERNAL', 'A cloud target ended up in a local route.', {
      hint: leaks.join('; '),
    });

  const { revision } = await writeCatalogFile(catalogFile, chosen.catalog, 'compact');
  const config = existing;
  config.executionCatalog = `./${relative(dir, catalogFile)}`;
  if (setup.length > 0) config.isolation = { setup: setup.map((s) => s.command) };
  config.routing ??= { complexity: { ...DEFAULT_COMPLEXITY_ROUTES } };
  if (chosen.sandbox === 'bwrap') config.sandbox = { mode: 'bwrap' };
  else if (chosen.sandbox === 'none' && config.sandbox !== undefined) config.sandbox = 'none';
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  printInitResult({ catalogFile, configFile, revision, detected, chosen, config, setup }, opts);
}

/** Another config file of the project, or (without --force) files init would overwrite. */
function refuseExisting(dir: string, catalogFile: string, configFile: string, force: boolean) {
  const others = configFilesIn(dir).filter((f) => f !== configFile);
  if (others.length > 0)
    throw new SwitchyardError('SY_USAGE', `${others[0]} already configures this project.`, {
      file: others[0],
      hint: `add "executionCatalog": "./${relative(dir, catalogFile)}" to it by hand, or remove it and run init again`,
    });
  if (!force)
    for (const file of [catalogFile, configFile])
      if (existsSync(file))
        throw new SwitchyardError('SY_USAGE', `${file} already exists.`, {
          file,
          hint: 'pass --force to overwrite the catalog and update the config',
        });
}

type Detected = Awaited<ReturnType<typeof detectInstalledCatalog>>;

/** The catalog init writes, and the choices that made it. */
interface ChosenCatalog {
  catalog: Catalog;
  choices: InitChoices;
  sandbox: 'bwrap' | 'none' | undefined;
  permissions: PermissionLevel;
  /** A bwrap that works here, when one was looked for. */
  usable: { command: string; version?: string } | undefined;
}

/**
 * A target per kind of work (the flags, else the defaults, asked on a terminal), the sandbox
 * (offered only where bwrap works; asked for by the flag, it must work) and the permissions.
 */
async function chooseCatalog(
  { agents, derived, template }: Detected,
  opts: InitCommandOptions,
): Promise<ChosenCatalog> {
  const flags: InitChoices = {};
  for (const role of INIT_ROLES) if (opts[role]) flags[role] = opts[role];
  if (!derived && Object.keys(flags).length > 0)
    throw new SwitchyardError(
      'SY_USAGE',
      'No agent CLI is installed here, so no target can be chosen.',
      {
        hint: `install one of ${agents.map((a) => a.command).join(', ')} (on PATH), or run init without target flags to write a template`,
      },
    );
  let choices: InitChoices = {};
  let catalog: Catalog = template;
  const bwrap = opts.sandbox === 'none' ? undefined : await probeBwrap({ version: true });
  if (opts.sandbox === 'bwrap' && bwrap && 'problem' in bwrap)
    throw new SwitchyardError(
      'SY_SANDBOX_UNAVAILABLE',
      `--sandbox bwrap: ${bwrap.problem}; nothing was written`,
      { hint: bwrap.hint },
    );
  const usable = bwrap && !('problem' in bwrap) ? bwrap : undefined;
  let sandbox: 'bwrap' | 'none' | undefined = opts.sandbox;
  let permissions: PermissionLevel = opts.permissions ?? 'edit';
  if (derived) {
    choices = { ...defaultChoices(derived.catalog), ...flags };
    if (interactive(opts)) {
      const {
        sandbox: asked,
        permissions: level,
        ...roles
      } = await ask(
        derived.catalog,
        choices,
        flags,
        usable && !opts.sandbox ? usable : undefined,
        !opts.permissions,
      );
      choices = roles;
      sandbox = asked ?? sandbox;
      permissions = level ?? permissions;
    }
    catalog = applyChoices(derived.catalog, choices);
  }
  catalog = withPermissions(catalog, permissions);
  return { catalog, choices, sandbox, permissions, usable };
}

/** What init wrote: one JSON document, or the summary. */
function printInitResult(
  written: {
    catalogFile: string;
    configFile: string;
    revision: string;
    detected: Detected;
    chosen: ChosenCatalog;
    config: Record<string, unknown>;
    setup: ProposedSetup[];
  },
  opts: InitCommandOptions,
): void {
  const { catalogFile, configFile, revision, config, setup } = written;
  const { agents, derived } = written.detected;
  const { choices, permissions, usable } = written.chosen;
  const installed = agents.filter((a) => a.path);
  if (opts.json) {
    printJson({
      catalog: catalogFile,
      config: configFile,
      revision,
      template: !derived,
      agents: installed.map(({ agent, command, path, version }) => ({
        agent,
        command,
        path,
        ...(version ? { version } : {}),
      })),
      choices,
      permissions,
      routing: config.routing,
      sandbox: config.sandbox ?? 'none',
      setup,
      ...(usable ? { bwrap: usable } : {}),
    });
    return;
  }
  const lines = derived
    ? [
        `${pc.green('✓')} wrote ${catalogFile} (revision ${revision.slice(0, 12)})`,
        `${pc.green('✓')} wrote ${configFile}`,
        `  agent CLIs  ${installed.map((a) => a.command).join(', ')}`,
        ...INIT_ROLES.map((r) => `  ${r.padEnd(11)} ${choices[r] ?? pc.dim('(catalog default)')}`),
        `  ${'permissions'.padEnd(11)} ${permissions} ${pc.dim(`(${PERMISSION_TEXT[permissions]})`)}`,
        `  ${'sandbox'.padEnd(11)} ${sandboxLine(config.sandbox, usable)}`,
        `  ${'setup'.padEnd(11)} ${setupLine(setup, config.isolation !== undefined)}`,
        '',
        'Plans may now say `complexity: routine | standard | complex` instead of a route.',
        'Next: switchyard catalog validate && switchyard run --dry-run',
      ]
    : [
        `${pc.yellow('!')} wrote ${catalogFile} as a template: no agent CLI is installed here`,
        `${pc.green('✓')} wrote ${configFile}`,
        `  Install one of ${agents.map((a) => a.command).join(', ')} (on PATH) and run`,
        `  "switchyard init --force" to choose from what is installed.`,
      ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** What the summary says of the worktrees' set-up. */
function setupLine(setup: readonly ProposedSetup[], configured: boolean): string {
  if (setup.length > 0)
    return setup.map((s) => `${s.command.join(' ')} ${pc.dim(`(from ${s.lockfile})`)}`).join('; ');
  return pc.dim(
    configured
      ? 'as isolation in the config says'
      : 'none (no lockfile found: add isolation.setup if a worktree needs one)',
  );
}

/** On a terminal: write the proposed set-up? */
async function confirmSetup(setup: readonly ProposedSetup[]): Promise<boolean> {
  const { confirm, isCancel } = await import('@clack/prompts');
  const answer = await confirm({
    message: `Set up each task's worktree with ${setup.map((s) => `\`${s.command.join(' ')}\``).join(' then ')} (from ${setup.map((s) => s.lockfile).join(', ')})?`,
    initialValue: true,
  });
  return !isCancel(answer) && answer === true;
}

/** What the summary says of the sandbox. */
function sandboxLine(
  config: unknown,
  usable: { command: string; version?: string } | undefined,
): string {
  if (config !== undefined && config !== 'none') return 'bwrap (every agent attempt contained)';
  return usable
    ? pc.dim(`none (bubblewrap works here: switchyard init --force --sandbox bwrap)`)
    : pc.dim('none (bubblewrap is not usable here)');
}

/**
 * One question per role on the terminal; a role given by a flag is not asked. When `bwrap`
 * works here (and no flag chose), one more: run the agents sandboxed?
 */
async function ask(
  catalog: Catalog,
  defaults: InitChoices,
  flags: InitChoices,
  bwrap?: { command: string; version?: string },
  askForPermissions = false,
): Promise<InitChoices & { sandbox?: 'bwrap' | 'none'; permissions?: PermissionLevel }> {
  const { cancel, confirm, intro, isCancel, outro, select } = await import('@clack/prompts');
  intro(`switchyard init — ${basename(process.cwd())}`);
  const options = Object.entries(catalog.targets).map(([id, t]) => ({
    value: id,
    label: id,
    hint: `${t.agent} ${t.model}${t.execution_class === 'local_model' ? ', local' : ''}`,
  }));
  const out: InitChoices = { ...defaults };
  for (const role of INIT_ROLES) {
    if (flags[role]) continue;
    const answer = await select({
      message: ROLE_QUESTIONS[role],
      options,
      ...(defaults[role] ? { initialValue: defaults[role] } : {}),
    });
    if (isCancel(answer)) {
      cancel('Nothing was written.');
      throw new SwitchyardError('SY_USAGE', 'init cancelled; nothing was written.');
    }
    out[role] = answer;
  }
  let sandbox: 'bwrap' | 'none' | undefined;
  if (bwrap) {
    const answer = await confirm({
      message: `Run every agent in a bubblewrap sandbox (${bwrap.version ?? bwrap.command} works here)? It sees the file system read-only except its worktree and its own CLI's folders; ~/.ssh, ~/.aws and other credential folders are hidden.`,
      initialValue: true,
    });
    if (isCancel(answer)) {
      cancel('Nothing was written.');
      throw new SwitchyardError('SY_USAGE', 'init cancelled; nothing was written.');
    }
    sandbox = answer ? 'bwrap' : 'none';
  }
  const permissions = askForPermissions ? await askPermissions() : undefined;
  outro('Writing the catalog and the project config.');
  return { ...out, ...(sandbox ? { sandbox } : {}), ...(permissions ? { permissions } : {}) };
}

/** What each permission level lets an agent do, in the words `init` asks with. */
const PERMISSION_TEXT: Record<PermissionLevel, string> = {
  edit: 'edit files; commands need approval, so they do not run',
  'edit+shell': 'edit files and run commands (tests, installs)',
  all: 'everything, without asking',
};

/** Every target with the chosen level (the agents' plugins turn it into flags). */
function withPermissions(catalog: Catalog, level: PermissionLevel): Catalog {
  return {
    ...catalog,
    targets: Object.fromEntries(
      Object.entries(catalog.targets).map(([id, t]) => [id, { ...t, permissions: level }]),
    ),
  };
}

/** What agents may do without asking, asked on the terminal. */
async function askPermissions(): Promise<PermissionLevel> {
  const { cancel, isCancel, select } = await import('@clack/prompts');
  const answer = await select<PermissionLevel>({
    message: 'What may agents do without asking?',
    options: (Object.keys(PERMISSION_TEXT) as PermissionLevel[]).map((value) => ({
      value,
      label: value,
      hint: PERMISSION_TEXT[value],
    })),
    initialValue: 'edit',
  });
  if (isCancel(answer)) {
    cancel('Nothing was written.');
    throw new SwitchyardError('SY_USAGE', 'init cancelled; nothing was written.');
  }
  return answer;
}
