// Public surface of core/characters (pure TypeScript: no chrome.*, no DOM).
export * from './character';
export * from './built-ins';
export * from './character-file';
export * from './character-store';
export * from './pronunciations';
export * from './speakable';
export * from './persona-prompt';
