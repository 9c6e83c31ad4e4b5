// `switchyard --version` alone answers before the command tree loads: building the program
// imports commander, every command module and core (~50 ms), which a version check (an
// install script, a CI log line) does not need. Plain code, no static imports: bin.ts bundles it.

/** True when the arguments ask only for the version (`--version` or `-v`, nothing else). */
export function asksOnlyVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
}

/** The `version` of the package.json beside this file's folder (src/ and dist/ alike). */
export async function packageVersion(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
