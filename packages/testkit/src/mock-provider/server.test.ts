import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type MockProvider, refusedUrl, startMockProvider } from './server.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ retryAfterSeconds: 7, replyText: 'one two three four' });
});
afterAll(() => mock.close());

const post = (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });

async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));
}

describe('mock provider', () => {
  it('binds 127.0.0.1 on a free port', () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.port).toBeGreaterThan(0);
  });

  it('answers Anthropic Messages as JSON and as SSE', async () => {
    const json = await (await post(`${mock.url}/v1/messages`, { model: 'claude-x' })).json();
    expect(json).toMatchObject({
      type: 'message',
      model: 'claude-x',
      stop_reason: 'end_turn',
      content: [{ text: 'one two three four' }],
    });
    const res = await post(`${mock.url}/v1/messages`, { model: 'claude-x', stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await sseData(res)).map((d) => JSON.parse(d).type);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events.filter((e) => e === 'content_block_delta')).toHaveLength(4);
  });

  it('answers OpenAI Responses and Chat Completions streams', async () => {
    const responses = await sseData(
      await post(`${mock.url}/v1/responses`, { model: 'gpt-x', stream: true }),
    );
    expect(JSON.parse(responses.at(-1)!)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed' },
    });
    const chat = await sseData(
      await post(`${mock.url}/v1/chat/completions`, { model: 'qwen-x', stream: true }),
    );
    expect(chat.at(-1)).toBe('[DONE]');
    const text = chat
      .slice(0, -1)
      .map((d) => JSON.parse(d).choices[0].delta.content ?? '')
      .join('');
    expect(text).toBe('one two three four');
  });

  it('answers Gemini generateContent and streamGenerateContent?alt=sse', async () => {
    const one = (await (
      await post(`${mock.url}/v1beta/models/gemini-x:generateContent`, {})
    ).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(one.candidates[0]?.content.parts[0]?.text).toBe('one two three four');
    const chunks = await sseData(
      await post(`${mock.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, {}),
    );
    expect(JSON.parse(chunks.at(-1)!).candidates[0].finishReason).toBe('STOP');
  });

  it('injects HTTP faults chosen by path prefix or header', async () => {
    const quota = await post(`${mock.urlFor('rate-limit')}/v1/messages`, { model: 'm' });
    expect(quota.status).toBe(429);
    expect(quota.headers.get('retry-after')).toBe('7');
    expect(await quota.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    const overloaded = await post(`${mock.url}/v1/messages`, {}, { 'x-mock-fault': 'overloaded' });
    expect(overloaded.status).toBe(529);
    const long = await post(`${mock.urlFor('prompt-too-long')}/v1/chat/completions`, {});
    expect(await long.json()).toMatchObject({ error: { code: 'context_length_exceeded' } });
    const model = await post(
      `${mock.urlFor('unknown-model')}/v1beta/models/nope:generateContent`,
      {},
    );
    expect(model.status).toBe(404);
    expect(await model.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
    expect((await post(`${mock.urlFor('unauthorized')}/v1/responses`, {})).status).toBe(401);
    expect((await post(`${mock.urlFor('server-error')}/v1/responses`, {})).status).toBe(500);
    expect(mock.requests.at(-1)).toMatchObject({
      protocol: 'openai-responses',
      fault: 'server-error',
    });
  });

  it('cuts a stream mid-response', async () => {
    const res = await post(`${mock.urlFor('stream-cut')}/v1/messages`, { stream: true });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('makes a scripted tool call when the conversation matches and the tool is offered', async () => {
    const tools = await startMockProvider({
      replyText: 'finished',
      toolCalls: [{ when: '# Do work', name: 'Bash', input: { command: 'echo hi' } }],
    });
    interface Reply {
      stop_reason: string;
      content: { type: string; id?: string; name?: string; text?: string; input?: unknown }[];
    }
    const send = async (body: Record<string, unknown>) =>
      (await (await post(`${tools.url}/v1/messages`, body)).json()) as Reply;
    try {
      const offer = { model: 'claude-x', tools: [{ name: 'Bash' }, { name: 'Read' }] };
      const user = { role: 'user', content: [{ type: 'text', text: '# Do work\nnow' }] };
      const call = await send({ ...offer, messages: [user] });
      expect(call).toMatchObject({
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } }],
      });
      // streamed: the input arrives as one input_json_delta
      const res = await post(`${tools.url}/v1/messages`, {
        ...offer,
        messages: [user],
        stream: true,
      });
      const events = (await sseData(res)).map((d) => JSON.parse(d));
      expect(events.find((e) => e.type === 'content_block_start').content_block).toMatchObject({
        type: 'tool_use',
        name: 'Bash',
      });
      const delta = events.find((e) => e.type === 'content_block_delta').delta;
      expect(JSON.parse(delta.partial_json)).toEqual({ command: 'echo hi' });
      expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
      // the tool's result came back: the final text
      const id = call.content[0]?.id;
      const done = await send({
        ...offer,
        messages: [
          user,
          { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'hi' }] },
        ],
      });
      expect(done).toMatchObject({ stop_reason: 'end_turn', content: [{ text: 'finished' }] });
      // a request that does not offer the tool, or does not match, gets text
      const noTool = await send({ model: 'claude-x', messages: [user] });
      expect(noTool.content).toEqual([{ type: 'text', text: 'finished' }]);
      const noMatch = await send({ ...offer, messages: [{ role: 'user', content: 'other' }] });
      expect(noMatch.content).toEqual([{ type: 'text', text: 'finished' }]);
      expect(tools.requests.map((r) => r.toolCall)).toEqual([
        'Bash',
        'Bash',
        undefined,
        undefined,
        undefined,
      ]);
    } finally {
      await tools.close();
    }
  });

  it('scripts the same tool calls for OpenAI Responses, Chat Completions and Gemini', async () => {
    const tools = await startMockProvider({
      replyText: 'finished',
      toolCalls: [
        { when: '# Do work', name: 'exec_command', input: { cmd: 'echo hi' } },
        { when: '# Do work', name: 'run_shell_command', input: { command: 'echo hi' } },
      ],
    });
    const json = async (path: string, body: Record<string, unknown>) =>
      (await (await post(`${tools.url}${path}`, body)).json()) as Record<string, unknown>;
    try {
      // Responses (Codex): a function_call item; streamed, its arguments arrive in one delta
      const responses = { model: 'gpt-x', tools: [{ type: 'function', name: 'exec_command' }] };
      const ask = { role: 'user', content: [{ type: 'input_text', text: '# Do work' }] };
      expect(await json('/v1/responses', { ...responses, input: [ask] })).toMatchObject({
        output: [{ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"echo hi"}' }],
      });
      const streamed = (
        await sseData(
          await post(`${tools.url}/v1/responses`, { ...responses, input: [ask], stream: true }),
        )
      ).map((d) => JSON.parse(d));
      expect(streamed.at(-1)).toMatchObject({
        type: 'response.completed',
        response: { output: [{ type: 'function_call', call_id: expect.any(String) }] },
      });
      const answered = [ask, { type: 'function_call_output', call_id: 'c', output: 'hi' }];
      expect(await json('/v1/responses', { ...responses, input: answered })).toMatchObject({
        output: [{ type: 'message', content: [{ text: 'finished' }] }],
      });
      // Chat Completions (Qwen Code, Copilot): tool_calls, finish reason tool_calls
      const chat = {
        model: 'qwen-x',
        tools: [{ type: 'function', function: { name: 'run_shell_command' } }],
      };
      const user = { role: 'user', content: '# Do work' };
      expect(await json('/v1/chat/completions', { ...chat, messages: [user] })).toMatchObject({
        choices: [
          {
            finish_reason: 'tool_calls',
            message: {
              tool_calls: [
                { function: { name: 'run_shell_command', arguments: '{"command":"echo hi"}' } },
              ],
            },
          },
        ],
      });
      const tool = { role: 'tool', tool_call_id: 'c', content: 'hi' };
      expect(await json('/v1/chat/completions', { ...chat, messages: [user, tool] })).toMatchObject(
        { choices: [{ finish_reason: 'stop', message: { content: 'finished' } }] },
      );
      // Gemini (Gemini CLI): a functionCall part
      const gemini = {
        tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
        contents: [{ role: 'user', parts: [{ text: '# Do work' }] }],
      };
      expect(await json('/v1beta/models/gemini-x:generateContent', gemini)).toMatchObject({
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'run_shell_command', args: { command: 'echo hi' } } },
              ],
            },
          },
        ],
      });
      expect(tools.requests.map((r) => r.toolCall)).toEqual([
        'exec_command',
        'exec_command',
        undefined,
        'run_shell_command',
        undefined,
        'run_shell_command',
      ]);
    } finally {
      await tools.close();
    }
  });

  it('hangs without answering until the client cancels', async () => {
    const controller = new AbortController();
    const seen = mock.requests.length;
    let settled = false;
    const pending = post(
      `${mock.urlFor('hang')}/v1/messages`,
      { model: 'hang-x' },
      {},
      controller.signal,
    )
      .then(
        (res) => res,
        (e: Error) => e,
      )
      .finally(() => {
        settled = true;
      });
    // the mock has taken the request …
    await vi.waitFor(
      () => expect(mock.requests.slice(seen).map((r) => r.fault)).toContain('hang'),
      {
        timeout: 10_000,
        interval: 5,
      },
    );
    // … and a request sent after it is answered while it is still unanswered
    const later = await post(`${mock.url}/v1/messages`, { model: 'after-hang' });
    expect(later.status).toBe(200);
    await later.text();
    expect(settled).toBe(false);
    // the client's cancel is what ends it
    controller.abort();
    const outcome = await pending;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).name).toBe('AbortError');
  });

  it('gives a refused URL for connection faults', async () => {
    const url = await refusedUrl();
    await expect(fetch(`${url}/v1/messages`)).rejects.toThrow();
  });
});
