import { parseArgs } from 'node:util';
import { isMockFault, MOCK_FAULTS } from './faults.js';
import { startMockProvider } from './server.js';

const HELP = `switchyard-mock-provider: a mock LLM provider with fault injection (127.0.0.1).

Usage: switchyard-mock-provider [--port N] [--fault F] [--retry-after S] [--reply TEXT]

Speaks Anthropic Messages (/v1/messages), OpenAI Responses (/v1/responses) and Chat
Completions (/v1/chat/completions), and Gemini (/v1beta/models/M:generateContent,
:streamGenerateContent). A request picks a fault by path prefix (/fault/<fault>/...) or the
x-mock-fault header; otherwise --fault applies.

Faults: ${MOCK_FAULTS.join(', ')}

Examples:
  switchyard-mock-provider --port 8787
  ANTHROPIC_BASE_URL=http://127.0.0.1:8787/fault/rate-limit claude -p hi
`;

/** Runs the CLI; prints the URL as the first stdout line and serves until SIGINT/SIGTERM. */
export async function runMockProviderCli(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        fault: { type: 'string' },
        'retry-after': { type: 'string' },
        reply: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const problems: string[] = [];
  const fault = (values.fault as string | undefined) ?? 'none';
  if (!isMockFault(fault))
    problems.push(`--fault: unknown fault "${fault}" (one of ${MOCK_FAULTS.join(', ')})`);
  const port = Number(values.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push('--port: must be 0..65535');
  const retryAfter = Number(values['retry-after'] ?? 30);
  if (!Number.isFinite(retryAfter) || retryAfter < 0)
    problems.push('--retry-after: must be seconds >= 0');
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    return 2;
  }
  const provider = await startMockProvider({
    fault: fault as (typeof MOCK_FAULTS)[number],
    port,
    retryAfterSeconds: retryAfter,
    replyText: values.reply as string | undefined,
  });
  process.stdout.write(`${provider.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await provider.close();
  return 0;
}
