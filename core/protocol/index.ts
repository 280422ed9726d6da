export * from './audio';
export * from './errors';
export * from './messages';
export * from './router';
export * from './settings';
export * from './status';
export * from './validate';
export * from './playback';
