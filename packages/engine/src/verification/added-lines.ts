import { diffLines, parsePatch } from 'diff';

/** One line a change added, with its line number in the new file. */
export interface AddedLine {
  line: number;
  text: string;
}

/** What one file of a change added (a deleted file adds nothing and is not listed). */
export interface ChangedFile {
  /** Workspace-relative path. */
  path: string;
  added: AddedLine[];
}

/**
 * The files of a unified diff (`git diff`, repository-relative `a/`/`b/` names) with the lines
 * each added, as workspace-relative paths: `prefix` is the workspace's folder inside the
 * repository ('' at its root); files outside it are left out. Binary files are listed with no
 * lines; deleted files are left out.
 */
export function addedLinesOfPatch(patch: string, prefix = ''): ChangedFile[] {
  const files: ChangedFile[] = [];
  const base = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
  for (const part of parsePatch(patch)) {
    const name = unquote(part.newFileName ?? '');
    if (name === '/dev/null' || name === '') continue;
    const repoPath = name.replace(/^b\//, '');
    if (!repoPath.startsWith(base)) continue;
    const added: AddedLine[] = [];
    for (const hunk of part.hunks) {
      let line = hunk.newStart;
      for (const text of hunk.lines) {
        if (text.startsWith('+')) added.push({ line: line++, text: text.slice(1) });
        else if (text.startsWith(' ')) line += 1;
      }
    }
    files.push({ path: repoPath.slice(base.length), added });
  }
  return files;
}

/** The lines `after` adds to `before` (a file that did not exist: every line). */
export function addedLinesBetween(before: string | undefined, after: string): AddedLine[] {
  const added: AddedLine[] = [];
  let line = 1;
  for (const change of diffLines(before ?? '', after)) {
    const lines = change.value.split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (change.added) for (const text of lines) added.push({ line: line++, text });
    else if (!change.removed) line += lines.length;
  }
  return added;
}

/** A git path quoted with C escapes (`"a/caf\303\251.ts"`, core.quotePath), as plain text. */
function unquote(name: string): string {
  const path = name.replace(/\t.*$/, '');
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  const escapes: Record<string, number> = {
    n: 10,
    t: 9,
    '"': 34,
    '\\': 92,
    a: 7,
    b: 8,
    f: 12,
    r: 13,
    v: 11,
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(escapes[body[i + 1] ?? ''] ?? 92);
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
