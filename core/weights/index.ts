// Public surface of the weights manager (see docs/weights.md).
export * from './types';
export * from './errors';
export * from './registry';
export * from './byte-store';
export * from './cache-storage-store';
export * from './downloader';
export * from './state';
export { sha256OfChunks, StreamingSha256 } from './sha256';
export { ProgressMeter } from './progress';
export * from './resolve';
export * from './service';
export * from './default-set';
