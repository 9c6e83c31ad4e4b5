import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The page's script and stylesheet, bundled at build time (no external resource). */
export interface PageAssets {
  script: string;
  style: string;
}

/** Reads the bundled page assets next to this module (dist), or from dist when run from src. */
export function loadPageAssets(): PageAssets {
  for (const base of ['./', '../dist/']) {
    const script = fileURLToPath(new URL(`${base}page.global.js`, import.meta.url));
    const style = fileURLToPath(new URL(`${base}page.css`, import.meta.url));
    if (existsSync(script) && existsSync(style))
      return { script: readFileSync(script, 'utf8'), style: readFileSync(style, 'utf8') };
  }
  throw new Error('the monitor page assets are missing: build @switchyard/monitor (pnpm build)');
}
