/**
 * Splits a command line into argv the way a POSIX shell splits words (single quotes,
 * double quotes with `\"` and `\\`, backslash escapes) but without any expansion. Shell
 * operators outside quotes are refused: Definition-of-Done commands run without a shell.
 */
export function splitArgv(command: string): { argv: string[] } | { error: string } {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (command[i + 1] === '"' || command[i + 1] === '\\'))
        word += command[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>`'.includes(c) || (c === '$' && command[i + 1] === '(')) {
      return { error: `shell operator "${c}" outside quotes` };
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return { error: `unterminated ${quote} quote` };
  if (inWord) argv.push(word);
  return { argv };
}
