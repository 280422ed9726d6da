// The download job runner of the offscreen document: one job at a time over a queue of bundles, each checked against
// the hub's listing at its pinned commits first (resolve.ts), then downloaded; a snapshot of every bundle's state after each change. The background persists
// what this emits, so the side panel can show it and a restarted document can be told to resume.
import { type ByteStore } from './byte-store';
import { WeightsDownloader } from './downloader';
import { WeightsError } from './errors';
import { preflightBundle } from './resolve';
import { buildSnapshot, deleteBundle, type WeightsSnapshot } from './state';
import type { DownloadProgress, ModelBundle } from './types';

export interface WeightsServiceDeps {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  store: ByteStore;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  subtle?: SubtleCrypto;
  catalog: ModelBundle[];
  onProgress: (progress: DownloadProgress) => void;
  onSnapshot: (snapshot: WeightsSnapshot) => void;
}

export class WeightsService {
  private queue: string[] = [];
  private running: Promise<void> | null = null;
  private controller: AbortController | null = null;
  private active: { bundleId: string; path: string } | null = null;
  private lastError: WeightsSnapshot['lastError'] = null;
  private baseUrl: string | undefined;

  constructor(private readonly deps: WeightsServiceDeps) {}

  private bundle(id: string): ModelBundle {
    const found = this.deps.catalog.find((b) => b.id === id);
    if (!found) throw new WeightsError('not_found', `no bundle ${id} in the catalog`);
    return found;
  }

  async snapshot(baseUrl?: string): Promise<WeightsSnapshot> {
    const base = baseUrl ?? this.baseUrl;
    const bundles = this.deps.catalog;
    const snap = await buildSnapshot(bundles, this.deps.store, base ?? 'https://huggingface.co', this.deps.now(), {
      active: this.active,
      lastError: this.lastError,
    });
    return snap;
  }

  private async publish(): Promise<void> {
    this.deps.onSnapshot(await this.snapshot());
  }

  /** Queues bundles (skipping ones already queued) and starts the runner; resolves when the request is accepted. */
  download(bundleIds: string[], baseUrl: string | undefined): { queued: string[] } {
    for (const id of bundleIds) this.bundle(id); // unknown ids are rejected before anything starts
    if (baseUrl !== this.baseUrl && this.running) this.cancel();
    this.baseUrl = baseUrl;
    for (const id of bundleIds) if (!this.queue.includes(id) && this.active?.bundleId !== id) this.queue.push(id);
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return { queued: [...this.queue] };
  }

  /** Stops the current file and empties the queue; downloaded parts stay for the next attempt. */
  cancel(): void {
    this.queue = [];
    this.controller?.abort();
  }

  async delete(bundleId: string, baseUrl: string | undefined): Promise<number> {
    const bundle = this.bundle(bundleId);
    this.queue = this.queue.filter((id) => id !== bundleId);
    if (this.active?.bundleId === bundleId) {
      this.controller?.abort();
      await this.running?.catch(() => undefined);
    }
    const freed = await deleteBundle(bundle, this.deps.store, baseUrl ?? this.baseUrl);
    await this.publish();
    return freed;
  }

  /** Resolves when the queue has drained (tests and "download all" callers). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      const id = this.queue.shift()!;
      const controller = new AbortController();
      this.controller = controller;
      this.active = { bundleId: id, path: '' };
      this.lastError = null;
      await this.publish();
      try {
        const bundle = this.bundle(id);
        await preflightBundle(bundle, {
          fetch: this.deps.fetch as typeof fetch,
          ...(this.baseUrl ? { baseUrl: this.baseUrl } : {}),
          signal: controller.signal,
        });
        const downloader = new WeightsDownloader({
          fetch: this.deps.fetch,
          store: this.deps.store,
          now: this.deps.now,
          sleep: this.deps.sleep,
          ...(this.baseUrl ? { baseUrl: this.baseUrl } : {}),
          ...(this.deps.subtle ? { subtle: this.deps.subtle } : {}),
          onEvent: (e) => {
            if (e.type !== 'progress') return;
            if (this.active) this.active.path = e.path;
            this.deps.onProgress(e);
          },
        });
        await downloader.downloadBundle(bundle, controller.signal);
      } catch (err) {
        const e = err instanceof WeightsError ? err : new WeightsError('network', String(err));
        this.lastError = { bundleId: id, code: e.code, message: e.userMessage };
        if (e.code === 'aborted') this.queue = [];
      } finally {
        this.controller = null;
        this.active = null;
        await this.publish();
      }
    }
  }
}
