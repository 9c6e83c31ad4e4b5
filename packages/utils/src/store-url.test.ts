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
