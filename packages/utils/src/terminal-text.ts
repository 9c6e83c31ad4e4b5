import { copyPlainData } from './plain-copy.js';

// C0 controls but tab and newline (ESC starts cursor, screen and title sequences; CR and
// backspace overwrite what was printed), DEL, C1 controls (CSI and OSC as one byte), and the
// bidirectional overrides and isolates, which reorder what a line shows.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string): string => {
  const code = c.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
};

/**
 * Text an agent or its provider wrote (evidence, review findings, questions quoting them),
 * made safe to print on a terminal: every control character that could move the cursor,
 * clear the screen, set the window title or reorder the line is shown as its escape
 * (`\x1b`, `\u202e`) instead of acting. Tab and newline stay.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** A copy of plain data (an event, a report) with every string passed through {@link terminalText}. */
export function terminalSafe<T>(value: T): T {
  return copyPlainData(value, terminalText);
}
