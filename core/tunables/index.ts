/**
 * The one module for thresholds: `registry.ts` is the mechanism, each other file holds the sections of one area. To
 * add a section, add `export const fooTunables = registerTunables('foo', { ... }, { ... })` to its area's file (or a
 * new file re-exported here); never edit another area's section. Every knob must have a reader: the reader-map test
 * (tests/unit/tunables) fails on a knob nothing reads, and the knob walk (tests/e2e/tunables.e2e.ts) proves a change
 * reaches every context that reads it. Import sections from here, not from their files, so every context registers
 * every section.
 */
export * from './registry';
export { engineTunables, textTunables } from './engine';
export { ttsTunables, weightsTunables, llmTunables, asrTunables, remoteLlmTunables } from './models';
export { toolTunables, pageTunables } from './tools';
export { visionTunables } from './vision';
export { lipsyncTunables } from './lipsync';
export { listeningTunables } from './listening';
export * from './delivery';
