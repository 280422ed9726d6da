// Public surface of core/remote-llm (pure TypeScript: fetch and clock injected, no chrome.*).
export * from './config';
export * from './errors';
export * from './sse-parser';
export * from './chat-stream';
export * from './models';
export * from './fallback';
export { Watchdog, type RemoteDeps } from './request';
export * from './remote-reply';
export * from './permissions';
