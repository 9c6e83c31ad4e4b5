import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretValuesOf } from './redact.js';
import { catalogReferencedNames, maskSecretsInFile, redactDeep } from './secret-set.js';

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

  it('keeps the working-folder variables (PWD reads like a password abbreviation)', () => {
    const env = { PWD: '/work/project/src', OLDPWD: '/work/project', DB_PWD: 'hunter2hunter2' };
    expect(secretValuesOf(env).map((s) => s.name)).toEqual(['DB_PWD']);
  });
});
