import { describe, expect, it } from 'vitest';
import { redactStoreUrl } from './store-url.js';

describe('redactStoreUrl', () => {
  it('drops the password of the user part', () => {
    expect(redactStoreUrl('postgres://sy:pw@db:5432/switchyard')).toBe(
      'postgres://sy@db:5432/switchyard',
    );
  });

  it('drops a password given as a query parameter, which the PostgreSQL client reads too', () => {
    const shown = redactStoreUrl(
      'postgres://sy@db/x?schema=team&password=S3cret&sslpassword=K3y&PassWord=Other',
    );
    expect(shown).not.toMatch(/S3cret|K3y|Other/);
    expect(shown).toBe('postgres://sy@db/x?schema=team');
  });

  it('drops both from a value that is not a URL', () => {
    const shown = redactStoreUrl('postgres://sy:S3cret@[::1/x?password=S3cret&schema=a');
    expect(shown).not.toContain('S3cret');
    expect(shown).toContain('schema=a');
  });
});

describe('redactStoreUrl with a password holding characters a URL reserves', () => {
  it.each([
    ['a slash (base64)', 'postgres://sy:Zm9v/YmFy+cXV4@db/x', 'Zm9v/YmFy+cXV4'],
    ['a slash after digits (reads as a port)', 'postgres://sy:123/x@db:5432/x', '123/x'],
    ['a question mark', 'postgres://sy:a?b=c@db/x', 'a?b=c'],
    ['a hash', 'postgres://sy:a#b@db/x', 'a#b'],
    ['an at sign', 'postgres://sy:p@ss@db/x', 'p@ss'],
    ['an at sign and a slash', 'postgres://sy:p@s/s@db/x?password=Q9', 'p@s/s'],
  ])('drops the password with %s', (_what, value, password) => {
    const shown = redactStoreUrl(value);
    expect(shown).not.toContain(password);
    expect(shown).not.toContain('Q9');
    expect(shown).toMatch(/^postgres:\/\/sy@db(:5432)?\/x$/);
  });

  it('keeps a URL whose query holds an at sign and no password', () => {
    expect(redactStoreUrl('postgres://sy@db/x?application_name=a@b')).toBe(
      'postgres://sy@db/x?application_name=a@b',
    );
  });
});
