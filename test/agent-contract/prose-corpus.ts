// A corpus of agent outputs that talk about quotas, rate limits, 429s, overloads and context
// windows without being a provider fault: assistant messages and failing test-runner output
// (vitest, jest, pytest, go test). Generated from templates over topics, plus hand-written
// samples; every one must classify as something other than a failover class.

/** One topic a project's own code and tests may be about. */
interface Topic {
  slug: string;
  noun: string;
  status: number;
  reason: string;
  error: string;
}

const TOPICS: readonly Topic[] = [
  {
    slug: 'rate-limit',
    noun: 'rate limit',
    status: 429,
    reason: 'Too Many Requests',
    error: 'RateLimitError: rate limit exceeded',
  },
  {
    slug: 'quota',
    noun: 'quota',
    status: 429,
    reason: 'Too Many Requests',
    error: 'QuotaExceededError: monthly quota exceeded (RESOURCE_EXHAUSTED)',
  },
  {
    slug: 'overload',
    noun: 'overloaded upstream',
    status: 529,
    reason: 'Overloaded',
    error: 'OverloadedError: the model is currently overloaded',
  },
  {
    slug: 'unavailable',
    noun: 'service unavailable',
    status: 503,
    reason: 'Service Unavailable',
    error: 'UpstreamError: 503 Service Unavailable',
  },
  {
    slug: 'context-window',
    noun: 'context window',
    status: 400,
    reason: 'Bad Request',
    error: 'ContextLengthError: prompt is too long: 250000 tokens > 200000 maximum context length',
  },
];

type Template = (t: Topic) => string;

const ASSISTANT: readonly Template[] = [
  (t) => `The ${t.noun} tests fail with ${t.status} because the limiter is not reset between runs.`,
  (t) =>
    `I fixed the ${t.noun} handling: the client now retries on HTTP ${t.status} (${t.reason}) with exponential backoff.`,
  (t) =>
    `Added a test for the \`API Error: ${t.status}\` path; \`${t.error}\` is now mapped to a typed error.`,
  (t) =>
    `Summary:\n- ${t.noun}: the middleware answers status: ${t.status} ${t.reason}\n- docs updated\nAll 42 tests pass.`,
  (t) =>
    `I could not finish: two ${t.noun} tests still fail (expected ${t.status}, got 200). See test/${t.slug}.test.ts.`,
  (t) =>
    `Done. Note that the staging ${t.noun} is hit often (429 Too Many Requests, quota exceeded); I left the retry-after header handling as is.`,
  (t) =>
    `The error "${t.error}" now includes the request id. I also raised the ${t.noun} in config/limits.yaml.`,
  (t) =>
    `While testing I saw \`Error: ${t.status} ${t.reason}\` from the local mock; that is expected for the ${t.noun} scenario.`,
];

const VITEST: readonly Template[] = [
  (t) => ` FAIL  test/${t.slug}.test.js > ${t.noun} is enforced
AssertionError: expected 200 to be ${t.status} // Object.is equality

- Expected
+ Received

- ${t.status}
+ 200

 ❯ test/${t.slug}.test.js:14:24
     12|     const res = await request(app).get('/api')
     13|     expect(res.status).toBe(${t.status})
       |                        ^

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)`,
  (t) => ` FAIL  src/client.test.ts > client > surfaces ${t.noun}
Error: API returned ${t.status} ${t.reason}
 ❯ callApi src/client.ts:41:11
 ❯ src/client.test.ts:22:5

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯
 Test Files  1 failed (1)`,
  (t) => ` FAIL  test/socket.test.ts > ${t.noun} > reconnects
${t.error}
 ❯ test/socket.test.ts:30:9
Caused by: SocketError: other side closed
  code: 'UND_ERR_SOCKET',
  socket: {
    localAddress: '127.0.0.1',
    bytesWritten: 512,
    bytesRead: ${t.status}
  }`,
];

const JEST: readonly Template[] = [
  (t) => `FAIL src/__tests__/${t.slug}.test.ts
  ● ${t.noun} › rejects requests over the ${t.noun}

    expect(received).toBe(expected) // Object.is equality

    Expected: ${t.status}
    Received: 200

      20 |     const res = await handler(req);
    > 22 |     expect(res.statusCode).toBe(${t.status});
         |                            ^

      at Object.<anonymous> (src/__tests__/${t.slug}.test.ts:22:30)

Tests:       1 failed, 11 passed, 12 total`,
  (t) => `FAIL test/api.spec.js
  ● api › maps ${t.noun} errors

    AxiosError: Request failed with status code ${t.status}

      at settle (node_modules/axios/lib/core/settle.js:19:12)
      at IncomingMessage.handleStreamEnd (node_modules/axios/lib/adapters/http.js:589:11)
    {
      status: ${t.status},
      code: 'ERR_BAD_REQUEST',
      response: { status: ${t.status}, statusText: '${t.reason}' }
    }`,
];

const PYTEST: readonly Template[] = [
  (t) => `=================================== FAILURES ===================================
__________________________ test_${t.slug.replace('-', '_')}_exceeded __________________________

    def test_${t.slug.replace('-', '_')}_exceeded(client):
        resp = client.get("/api/items")
>       assert resp.status_code == ${t.status}
E       assert 200 == ${t.status}
E        +  where 200 = <Response [200]>.status_code

tests/test_${t.slug.replace('-', '_')}.py:18: AssertionError
=========================== short test summary info ============================
FAILED tests/test_${t.slug.replace('-', '_')}.py::test_${t.slug.replace('-', '_')}_exceeded - assert 200 == ${t.status}
========================= 1 failed, 23 passed in 1.42s =========================`,
  (t) => `    def test_client_raises():
>       client.complete("hi")
E       openai.RateLimitError: Error code: ${t.status} - {'error': {'message': '${t.error}', 'type': 'insufficient_quota'}}

  File "tests/test_client.py", line 12, in test_client_raises
src/client.py:88: RateLimitError
FAILED tests/test_client.py::test_client_raises - openai.RateLimitError: Error code: ${t.status}
1 failed in 0.31s`,
];

const GO_TEST: readonly Template[] = [
  (t) => `--- FAIL: Test${t.slug.replace('-', '')}Handler (0.00s)
    ${t.slug.replace('-', '_')}_test.go:42: got status 200, want ${t.status} ${t.reason}
    ${t.slug.replace('-', '_')}_test.go:57: unexpected error: status: ${t.status} ${t.reason} (${t.noun})
FAIL
FAIL	example.com/limiter	0.012s
FAIL`,
  (t) => `=== RUN   TestClientRetries
    client_test.go:88: HTTP ${t.status}: ${t.error}
--- FAIL: TestClientRetries (0.01s)
panic: ${t.error} [recovered]
	panic: ${t.error}

goroutine 7 [running]:
testing.tRunner.func1.2({0x5f2c40, 0xc000120000})
	/usr/local/go/src/testing/testing.go:1545 +0x238
FAIL	example.com/client	0.020s`,
];

/** Hand-written outputs from real sessions (paths and ids changed). */
const HAND_WRITTEN: readonly string[] = [
  'FAIL test/rate-limit.test.js > quota is enforced',
  'the quota tests fail with 429',
  'I\'ve updated `handleOverloaded()` so a 529 from the upstream shows "overloaded, try again in 30s".',
  'Context window math: 180k tokens in, 20k reserved for output; the prompt is too long only above 200k.',
  'ECONNREFUSED 127.0.0.1:5432 in the integration tests: Postgres was not running, so I started it and re-ran them.',
  'npm ERR! 429 Too Many Requests - GET https://registry.npmjs.org/left-pad — the registry throttled the install; I retried it.',
  "Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  errno: -111,\n  code: 'ECONNREFUSED',\n  syscall: 'connect'\n}",
  "Warning: rate limit for the GitHub API is low (remaining: 12). I'll batch the remaining requests.",
  'RESOURCE_EXHAUSTED is returned by the gRPC server when the quota bucket is empty; covered by test_quota_bucket.',
  'Stream disconnected before completion in the websocket test; flaky, re-ran and it passed.',
];

/** One corpus entry: a name (for the test report) and the text the agent printed. */
export interface ProseSample {
  name: string;
  kind: 'assistant' | 'vitest' | 'jest' | 'pytest' | 'go-test' | 'hand-written';
  text: string;
}

/** Every sample: templates × topics, plus the hand-written ones. */
export function proseCorpus(): ProseSample[] {
  const out: ProseSample[] = [];
  const families = {
    assistant: ASSISTANT,
    vitest: VITEST,
    jest: JEST,
    pytest: PYTEST,
    'go-test': GO_TEST,
  } as const;
  for (const [kind, templates] of Object.entries(families)) {
    templates.forEach((template, i) => {
      for (const topic of TOPICS) {
        out.push({
          name: `${kind}#${i + 1} ${topic.slug}`,
          kind: kind as ProseSample['kind'],
          text: template(topic),
        });
      }
    });
  }
  HAND_WRITTEN.forEach((text, i) => {
    out.push({ name: `hand-written#${i + 1}`, kind: 'hand-written', text });
  });
  return out;
}
