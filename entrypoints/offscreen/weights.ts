import { eventMessage, type Handlers } from '../../core/protocol';
import { CacheStorageByteStore, WeightsService } from '../../core/weights';
import { MODEL_BUNDLES } from '../../models/registry';

const abortable = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    });
  });

/**
 * Downloads run here rather than in the service worker: this document is not stopped after 30 s idle, so a large
 * file keeps streaming. Finished files land in the Cache Storage entry transformers.js reads ('transformers-cache').
 */
export function createWeights(): {
  handlers: Pick<Handlers<'offscreen'>, 'weights/download' | 'weights/cancel' | 'weights/delete' | 'weights/snapshot'>;
  complete: (bundleIds: string[], baseUrl: string | undefined) => Promise<boolean>;
} {
  const emit = (message: unknown) => void chrome.runtime.sendMessage(message).catch(() => undefined);
  const service = new WeightsService({
    fetch: (input, init) => fetch(input, init),
    store: new CacheStorageByteStore(caches),
    now: () => performance.now(),
    sleep: abortable,
    subtle: crypto.subtle,
    catalog: MODEL_BUNDLES,
    onProgress: (progress) => emit(eventMessage('event/weights-progress', { progress })),
    onSnapshot: (snapshot) => emit(eventMessage('event/weights-snapshot', { snapshot })),
  });
  const handlers: ReturnType<typeof createWeights>['handlers'] = {
    'weights/download': ({ bundleIds }, { baseUrl }) => service.download(bundleIds, baseUrl ?? undefined),
    'weights/cancel': () => {
      service.cancel();
      return {};
    },
    'weights/delete': async ({ bundleId }, { baseUrl }) => ({ freedBytes: await service.delete(bundleId, baseUrl ?? undefined) }),
    'weights/snapshot': async ({ baseUrl }) => {
      const snapshot = await service.snapshot(baseUrl ?? undefined);
      emit(eventMessage('event/weights-snapshot', { snapshot }));
      return snapshot;
    },
  };
  return {
    handlers,
    complete: async (bundleIds, baseUrl) => {
      const snapshot = await service.snapshot(baseUrl);
      return bundleIds.every((id) => snapshot.bundles.find((b) => b.id === id)?.status === 'complete');
    },
  };
}
