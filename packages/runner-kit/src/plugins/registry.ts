import { SwitchyardError } from '@switchyard/core';

/** Plugins of one kind by unique name, in registration order. */
export class Registry<T extends { meta: { name: string } }> {
  readonly #items = new Map<string, T>();
  constructor(readonly kind: string) {}

  register(item: T): void {
    if (this.#items.has(item.meta.name)) {
      throw new SwitchyardError(
        'SY_PLUGIN_DUPLICATE',
        `${this.kind} plugin "${item.meta.name}" is registered twice.`,
        {
          hint: 'Remove the duplicate entry from `plugins` in the switchyard config (built-in plugins load by default).',
        },
      );
    }
    this.#items.set(item.meta.name, item);
  }

  get(name: string): T {
    const item = this.#items.get(name);
    if (!item) {
      throw new SwitchyardError(
        'SY_PLUGIN_NOT_FOUND',
        `${this.kind} plugin "${name}" is not registered.`,
        {
          hint: `Known ${this.kind} plugins: ${[...this.#items.keys()].join(', ') || 'none'}. Add it to \`plugins\` in the switchyard config.`,
        },
      );
    }
    return item;
  }

  has(name: string): boolean {
    return this.#items.has(name);
  }

  list(): T[] {
    return [...this.#items.values()];
  }
}
