/**
 * A deep copy of plain data (what JSON holds: plain objects, arrays, strings, numbers,
 * booleans, null, plus undefined), each string passed through `mapString` when given. The
 * result equals `structuredClone(value)` (with `mapString` applied to every string of it), in
 * one walk and without structuredClone's serialize-and-parse: a task's state is copied on
 * every write of it, a memoized parse result on every read. Any other object (a Map, a Date,
 * a class instance, an object without a prototype) goes through `structuredClone`, and the
 * plain data that gives is walked as above; a function throws structuredClone's error.
 */
export function copyPlainData<T>(value: T, mapString?: (text: string) => string): T {
  if (typeof value === 'string') return (mapString ? mapString(value) : value) as T;
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
    return value;
  }
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlainData(value[i], mapString);
    return out as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) {
    const cloned: unknown = structuredClone(value);
    const plain =
      Array.isArray(cloned) ||
      (typeof cloned === 'object' &&
        cloned !== null &&
        Object.getPrototypeOf(cloned) === Object.prototype);
    return (plain && mapString ? copyPlainData(cloned, mapString) : cloned) as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyPlainData((value as Record<string, unknown>)[key], mapString);
    // An own "__proto__" key (JSON.parse makes one) stays a key, as structuredClone keeps it.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: copy,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copy;
  }
  return out as T;
}
