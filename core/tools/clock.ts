// The one adapter from real timers to the injected Clock. Entry points pass `systemClock`; tests pass a fake.
import type { Clock } from './types';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError());
      const id = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(id);
        reject(abortError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

function abortError(): Error {
  const e = new Error('aborted');
  e.name = 'AbortError';
  return e;
}
