import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretValuesOf } from './redact.js';
import {
  catalogReferencedNames,
  maskSecretsInFile,
  redactDeep,
  redactedCopy,
} from './secret-set.js';

const secret = { name: 'API_TOKEN', value: 'tok-0123456789abcdefghijklmnop' };

describe('secret masking', () => {
  it('masks every occurrence in place, same length, across read windows', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sy-mask-')), 'stdout.raw');
    const filler = 'x'.repeat((1 << 20) - 10); // the second secret straddles the 1 MiB window
    const text = `${secret.value}\n${filler}${secret.value}${filler}${secret.value}`;
    writeFileSync(file, text);
    expect(maskSecretsInFile(file, [secret])).toBe(3);
    const masked = readFileSync(file, 'utf8');
    expect(masked.length).toBe(text.length);
    expect(masked).not.toContain(secret.value);
    expect(masked.startsWith('[redacted:API_TOKEN]**********\n')).toBe(true);
  });

  it('finds every ${VAR} a catalog expands and redacts nested strings', () => {
    expect(
      catalogReferencedNames({
        targets: { a: { runtime: { environment: { K: '${ONE}', L: 'x${TWO:-d}y' } } } },
      }).sort(),
    ).toEqual(['ONE', 'TWO']);
    expect(redactDeep({ a: [`k=${secret.value}`], n: 1 }, [secret])).toEqual({
      a: ['k=[redacted:API_TOKEN]'],
      n: 1,
    });
  });

  it('copies and redacts in one walk what a clone then redactDeep gives, the input left alone', () => {
    const state = {
      id: 't',
      attempts: [{ argv: ['--key', secret.value], pid: 3, end: undefined }],
    };
    const before = structuredClone(state);
    for (const secrets of [[secret], []]) {
      const copy = redactedCopy(state, secrets);
      expect(copy).toStrictEqual(redactDeep(structuredClone(state), secrets));
      expect(copy.attempts[0]).not.toBe(state.attempts[0]);
    }
    expect(redactedCopy(state, [secret]).attempts[0]!.argv[1]).toBe('[redacted:API_TOKEN]');
    expect(state).toStrictEqual(before);
  });

  it('keeps the working-folder variables (PWD reads like a password abbreviation)', () => {
    const env = { PWD: '/work/project/src', OLDPWD: '/work/project', DB_PWD: 'hunter2hunter2' };
    expect(secretValuesOf(env).map((s) => s.name)).toEqual(['DB_PWD']);
  });
});
