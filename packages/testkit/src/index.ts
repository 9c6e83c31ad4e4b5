export {
  capturedFault,
  type FakeAgentEnd,
  type FakeAgentIo,
  FakeAgentKilled,
  faultOutput,
  formatPrinter,
  loadScenario,
  runFakeAgent,
  runFakeAgentCli,
  scenarioSchema,
} from './fake-agent/index.js';
export { refusedUrl, startMockProvider } from './mock-provider/index.js';
