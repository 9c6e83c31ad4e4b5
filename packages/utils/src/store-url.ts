// The PostgreSQL client also reads a password from the query (`?password=`, `?sslpassword=`).
const SECRET_PARAMETER = /pass/i;
const SECRET_QUERY = /([?&])[^=&#]*pass[^=&#]*=[^&#]*&?/gi;

/**
 * A store URL without its password, for anything a person or a log sees (the user stays: a
 * command printed in a hint must still name it).
 */
export function redactStoreUrl(value: string): string {
  const scheme = value.indexOf('://');
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // not a URL (a raw `/`, `?` or `#` in the password ends the host part early)
  }
  // A password holding a raw `/`, `?` or `#` can still parse, wrongly: `sy:123/x@db` reads as
  // host `sy`, port 123, path `/x@db`, with no password to drop. An `@` left after the host
  // part means the user part may run up to it: the text is redacted by hand then.
  if (url && !`${url.pathname}${url.search}${url.hash}`.includes('@')) {
    url.password = '';
    for (const key of [...url.searchParams.keys()])
      if (SECRET_PARAMETER.test(key)) url.searchParams.delete(key);
    return url.href;
  }
  if (scheme < 0) return dropSecretQuery(value);
  const rest = value.slice(scheme + 3);
  // The user part ends at the last `@` (a URL's own rule); the password is what follows the
  // first `:` in it. When that `@` was a query's, there is no `:` (or it drops a port and path):
  // showing less is the safe mistake.
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at < 0 || colon < 0 || colon > at) return dropSecretQuery(value);
  return dropSecretQuery(`${value.slice(0, scheme + 3)}${rest.slice(0, colon)}${rest.slice(at)}`);
}

function dropSecretQuery(value: string): string {
  return value.replace(SECRET_QUERY, '$1').replace(/[?&]$/, '');
}
