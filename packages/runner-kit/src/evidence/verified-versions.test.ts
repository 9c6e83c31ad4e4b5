import { defineClassifier, validatePlugin } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { onReleaseLine, parseCliVersion, unverifiedVersionWarning } from './verified-versions.js';

const classifier = (agents: string[] | '*', verifiedVersions?: string[]) =>
  defineClassifier({
    meta: { name: `c-${String(agents)}` },
    agents,
    ...(verifiedVersions ? { verifiedVersions } : {}),
    classify: () => undefined,
  });

describe('verified release lines', () => {
  it('reads the version a CLI prints', () => {
    expect(parseCliVersion('2.1.197 (Claude Code)\n')).toBe('2.1.197');
    expect(parseCliVersion('codex-cli 0.171.0')).toBe('0.171.0');
    expect(parseCliVersion('GitHub Copilot CLI 1.0.102.\n')).toBe('1.0.102');
    expect(parseCliVersion('no version here')).toBeUndefined();
  });

  it('matches release lines with x as any digits', () => {
    expect(onReleaseLine('2.1.197', '2.1.19x')).toBe(true);
    expect(onReleaseLine('2.1.332', '2.1.19x')).toBe(false);
    expect(onReleaseLine('0.171.0', '0.17x')).toBe(true);
    expect(onReleaseLine('0.61.3', '0.61.x')).toBe(true);
    expect(onReleaseLine('0.610.0', '0.61.x')).toBe(false);
  });

  it('warns only outside every verified line of the agent’s own classifiers', () => {
    const chain = [classifier(['claude-code'], ['2.1.19x', '2.1.33x']), classifier('*')];
    expect(unverifiedVersionWarning('claude-code', '2.2.0', chain)).toBe(
      'classifier rules were verified for claude-code 2.1.19x–2.1.33x; this is 2.2.0',
    );
    expect(unverifiedVersionWarning('claude-code', '2.1.335', chain)).toBeUndefined();
    expect(unverifiedVersionWarning('claude-code', undefined, chain)).toBeUndefined();
    expect(unverifiedVersionWarning('some-cli', '9.9.9', chain)).toBeUndefined();
  });

  it('a plugin’s release lines are validated when it loads', () => {
    expect(validatePlugin(classifier(['a'], ['2.1.19x', '0.61.x']))).toHaveProperty('plugin');
    const bad = validatePlugin(classifier(['a'], ['latest']));
    expect(bad).toHaveProperty('problems');
    expect((bad as { problems: string[] }).problems[0]).toMatch(/^verifiedVersions\.0/);
  });
});
