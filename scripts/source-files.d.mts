/** The source files under `dir` whose names match `kind` (TypeScript by default). */
export function sourceFilesUnder(dir: string, kind?: RegExp, out?: string[]): string[];

/** The source files of every package and plugin of the repository at `root` (their src/). */
export function packageSourceFiles(root: string, kind?: RegExp): string[];
