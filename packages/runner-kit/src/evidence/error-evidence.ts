/**
 * Shapes of terminal error evidence that hold for any agent CLI: where an HTTP status may be
 * read from, and which lines are never evidence (stack frames, object dumps). Classifier
 * plugins build their rules on these so a number or a word in prose never decides a class.
 */

// Each pattern's first group is a status; only forms whose syntax says "this is a status".
const STATUS_CARRIERS: readonly RegExp[] = [
  // "API Error: 429 {...}", "[API Error: 503 Overloaded…]", "Last error: 429 Rate limit…"
  /\b(?:API Error:?|(?:Last )?[Ee]rror:)\s*\[?(\d{3})\b/g,
  // "status: 429", "statusCode":429, "error_status": 529, "code: 404", "last status: 429"
  /\b(?:http_?status|status_?code|error_?status|api_error_status|status|code)["']?\s*[:=]\s*["']?(\d{3})\b/gi,
  // "(HTTP 404)", "HTTP 429", "HTTP/1.1 503"
  /\bHTTP(?:\/\d(?:\.\d)?)?[\s:]+(\d{3})\b/g,
  // "429 Too Many Requests", "unexpected status 401 Unauthorized"
  /\b(\d{3})\s+(?:Too Many Requests|Unauthorized|Forbidden|Not Found|Bad Request|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout|Overloaded)\b/gi,
  // "Request rejected (429)", "unexpected status 401"
  /\brejected \((\d{3})\)/gi,
  /\bunexpected status (\d{3})\b/gi,
];

/**
 * HTTP error statuses (400–599) a line states in a form that carries one — never a bare
 * number: `bytesRead: 429`, "fails with 429" or a port 50429 yield nothing.
 */
export function httpStatusesIn(line: string): number[] {
  const found: number[] = [];
  for (const carrier of STATUS_CARRIERS) {
    for (const m of line.matchAll(carrier)) {
      const status = Number(m[1]);
      if (status >= 400 && status <= 599 && !found.includes(status)) found.push(status);
    }
  }
  return found;
}

const STACK_FRAME = /^\s+at\s|^\s*at\s.*:\d+(?::\d+)?\)?\s*$|^\s*❯\s|^\s*File ".*", line \d+/;

/** A stack frame (JavaScript `at fn (file:1:2)`, vitest `❯ file:1:2`, Python `File "x", line 3`). */
export function isStackFrame(line: string): boolean {
  return STACK_FRAME.test(line);
}

const DUMP_LINE = /^\s+(?:\[[\w ]+\]|['"]?[\w$-]+['"]?):\s|^\s*[\]}[{)(]+[,;]?\s*$/;

/**
 * A line of an indented object dump as Node prints errors (`  code: 'UND_ERR_SOCKET',`,
 * `  [cause]: …`, `}`): its fields are not messages; only a status key in it may be read.
 */
export function isObjectDumpLine(line: string): boolean {
  return DUMP_LINE.test(line);
}
