export * from './types';
export * from './geometry';
export * from './decode';
export * from './scene-tracker';
export * from './holding';
export * from './intents';
export * from './answers';
export * from './scheduler';
