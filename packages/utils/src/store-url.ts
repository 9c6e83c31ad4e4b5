/**
 * A store URL without its password, for anything a person or a log sees (the user stays: a
 * command printed in a hint must still name it).
 */
export function redactStoreUrl(value: string): string {
  try {
    const url = new URL(value);
    url.password = '';
    return url.href;
  } catch {
    return value.replace(/\/\/([^@/:]*):[^@/]*@/, '//$1@');
  }
}
