// The PostgreSQL client also reads a password from the query (`?password=`, `?sslpassword=`).
const SECRET_PARAMETER = /pass/i;

/**
 * A store URL without its password, for anything a person or a log sees (the user stays: a
 * command printed in a hint must still name it).
 */
export function redactStoreUrl(value: string): string {
  try {
    const url = new URL(value);
    url.password = '';
    for (const key of [...url.searchParams.keys()])
      if (SECRET_PARAMETER.test(key)) url.searchParams.delete(key);
    return url.href;
  } catch {
    return value
      .replace(/\/\/([^@/:]*):[^@/]*@/, '//$1@')
      .replace(/([?&])[^=&#]*pass[^=&#]*=[^&#]*&?/gi, '$1')
      .replace(/[?&]$/, '');
  }
}
