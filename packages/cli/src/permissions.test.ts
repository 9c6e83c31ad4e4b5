import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ResolvedCatalog, validateCatalog } from '@switchyard/catalog';
import { loadPlugins, PluginSet } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS } from './builtin-plugins.js';
import { permittedCatalog } from './permissions.js';

// The built-in agent plugins, loaded as a run loads them, turn `permissions` into flags.
let plugins: PluginSet;
beforeAll(async () => {
  plugins = new PluginSet(
    await loadPlugins({
      entries: [],
      fallbackDir: dirname(fileURLToPath(import.meta.url)),
      builtins: BUILTIN_PLUGINS,
    }),
  );
});
afterAll(() => plugins.dispose());

const resolved = (raw: unknown): ResolvedCatalog => {
  const { catalog, problems } = validateCatalog(raw, { checkExecutables: false });
  expect(problems).toEqual([]);
  return { catalog: catalog!, revision: 'r', source: { kind: 'flag' } };
};

const bundled = () =>
  JSON.parse(readFileSync(assetPath('default-execution-catalog.json'), 'utf8')) as {
    targets: Record<string, { permissions?: string; agent: string }>;
  };

describe('permissions through the agents’ plugins', () => {
  it('the bundled catalog says "permissions" and starts every CLI with the flags it had', () => {
    const { resolved: run, problems } = permittedCatalog(resolved(bundled()), plugins);
    expect(problems).toEqual([]);
    const argv = (id: string) => run.catalog.targets[id]!.runtime.command;
    expect(argv('claude-opus').slice(-2)).toEqual(['--permission-mode', 'acceptEdits']);
    expect(run.catalog.targets['claude-opus']!.runtime.resume_command?.slice(-2)).toEqual([
      '--permission-mode',
      'acceptEdits',
    ]);
    expect(argv('codex-gpt-5').slice(0, 4)).toEqual([
      'codex',
      'exec',
      '--sandbox',
      'workspace-write',
    ]);
    // `exec resume` takes no --sandbox of its own: the flags stay before the subcommand.
    const resume = run.catalog.targets['codex-gpt-5']!.runtime.resume_command!;
    expect(resume.indexOf('--sandbox')).toBeLessThan(resume.indexOf('resume'));
    expect(argv('gemini-pro').slice(-2)).toEqual(['--approval-mode', 'auto_edit']);
    expect(argv('qwen-coder-plus').slice(-2)).toEqual(['--approval-mode', 'auto-edit']);
    expect(argv('copilot-gpt-5').at(-1)).toBe('--allow-all-tools');
  });

  it('each level of each known agent, and a target of an agent no plugin knows', () => {
    const raw = bundled();
    const flags = (level: string) => {
      for (const target of Object.values(raw.targets)) target.permissions = level;
      const run = permittedCatalog(resolved(raw), plugins).resolved.catalog.targets;
      return (id: string) => run[id]!.runtime.command.join(' ');
    };
    const shell = flags('edit+shell');
    expect(shell('claude-sonnet')).toMatch(/--permission-mode acceptEdits --allowedTools Bash$/);
    expect(shell('codex-gpt-5')).toContain(
      'exec --sandbox workspace-write -c sandbox_workspace_write.network_access=true --json',
    );
    expect(shell('gemini-pro')).toMatch(/--allowed-tools run_shell_command$/);
    expect(shell('copilot-gpt-5')).toMatch(/--allow-tool write --allow-tool shell$/);
    const all = flags('all');
    expect(all('claude-sonnet')).toMatch(/--dangerously-skip-permissions$/);
    expect(all('codex-oss')).toContain('exec --dangerously-bypass-approvals-and-sandbox --oss');
    expect(all('qwen-local')).toMatch(/--approval-mode yolo$/);

    const stranger = bundled();
    stranger.targets['gemini-pro']!.agent = 'my-own-agent';
    const { problems } = permittedCatalog(resolved(stranger), plugins);
    expect(problems).toMatchObject([
      { path: 'targets.gemini-pro.permissions', message: expect.stringContaining('my-own-agent') },
    ]);
  });
});
