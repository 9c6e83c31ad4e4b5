export type { EventFeed } from './event-relay.js';

export { type MonitorOptions, type MonitorServer, startMonitor } from './server.js';
