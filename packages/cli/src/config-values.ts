/** One resolved setting and where its value came from. */
export interface ConfigValue {
  /** Dotted path: `routing.complexity.standard`. */
  key: string;
  /** The resolved value; null for an optional section that is not set. */
  value: unknown;
  from: 'flag' | 'env' | 'file' | 'default';
  /** The flag, variable or file that set it. */
  source?: string;
}

/** Where a value came from instead of the file or the default (a flag, a variable). */
export type ConfigOverride = Omit<ConfigValue, 'key'>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every setting of the resolved config, section by section down to its leaves (an array is one
 * value), each with its origin: an override (flag, environment), the config file when the file
 * names that path, else the default. `sections` are the schema's top-level keys, so a section
 * the file does not set (`notify`, `isolation`) is listed too, as null. Pure.
 */
export function configValues(input: {
  config: Record<string, unknown>;
  /** The file's own object, before defaults. */
  raw: Record<string, unknown> | undefined;
  /** The config file as shown (relative to the workspace root). */
  file: string | undefined;
  sections: readonly string[];
  overrides: ReadonlyMap<string, ConfigOverride>;
}): ConfigValue[] {
  const values: ConfigValue[] = [];
  const inFile = (path: readonly string[]) => {
    let node: unknown = input.raw;
    for (const key of path) {
      if (!isPlainObject(node) || !(key in node)) return false;
      node = node[key];
    }
    return true;
  };
  const visit = (path: string[], value: unknown) => {
    const key = path.join('.');
    const override = input.overrides.get(key);
    if (override) {
      values.push({ key, ...override });
      return;
    }
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [child, v] of Object.entries(value)) visit([...path, child], v);
      return;
    }
    const from = inFile(path) ? 'file' : 'default';
    values.push({
      key,
      value: value ?? null,
      from,
      ...(from === 'file' && input.file ? { source: input.file } : {}),
    });
  };
  for (const section of input.sections) visit([section], input.config[section]);
  return values;
}
