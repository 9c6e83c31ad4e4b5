/**
 * Dotted paths of the keys and string values of a loaded config that hold a NUL character
 * (at most `limit`). A NUL ends a path or argv at the operating system: `"catalog.json\0x"`
 * would be read as another file, or fail as an internal error. Walked without recursion, each
 * object once (YAML aliases share objects: an alias bomb costs its size, not its expansion).
 */
export function nulValuePaths(value: unknown, limit = 20): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  const shown = (text: string) => text.replaceAll('\u0000', '\\0');
  while (stack.length > 0 && found.length < limit) {
    const { value: here, path } = stack.pop() as { value: unknown; path: string };
    if (typeof here === 'string') {
      if (here.includes('\u0000')) found.push(path || '(root)');
      continue;
    }
    if (typeof here !== 'object' || here === null || seen.has(here)) continue;
    seen.add(here);
    for (const [key, child] of Object.entries(here)) {
      const childPath = path ? `${path}.${shown(key)}` : shown(key);
      if (key.includes('\u0000')) found.push(childPath);
      stack.push({ value: child, path: childPath });
    }
  }
  return found;
}
