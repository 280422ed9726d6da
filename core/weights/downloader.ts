// Resumable, verified downloads of model bundles into a ByteStore. Runs wherever long work may run (the offscreen
// document in the extension; Node in tests): fetch, store, clock and sleep are injected, nothing global is read.
//
// Per file: resume from the bytes already stored (HTTP Range), persist parts every `partBytes` so a restart loses
// little, restart from 0 when the server ignores Range, refuse HTML pages, check size and sha256, and only then
// commit the file as complete. A failed check discards the parts and re-downloads once. Errors never delete parts
// that may still be good (network, abort, quota), so the next call resumes.
import { type ByteStore, partsSize } from './byte-store';
import { WeightsError, isAbortError, isQuotaError } from './errors';
import { ProgressMeter } from './progress';
import { DEFAULT_HUB_URL, buildFileUrl, bundleTotalBytes } from './registry';
import { sha256OfChunks } from './sha256';
import { bundleState } from './state';
import type { BundleFile, BundleState, DownloadEvent, ModelBundle } from './types';
import { weightsTunables } from '../tunables';

export interface DownloaderOptions {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  store: ByteStore;
  /** Milliseconds, monotonic enough for rates. */
  now: () => number;
  /** Resolves after `ms`, rejects with an AbortError if `signal` aborts first. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Hub or validated mirror; the file URL is also the store key. */
  baseUrl?: string;
  /** WebCrypto for hashing small files; the streaming hash is used without it. */
  subtle?: SubtleCrypto;
  onEvent?: (e: DownloadEvent) => void;
  /** Overrides of `weightsTunables` for this instance (tests use small parts). */
  settings?: Partial<typeof weightsTunables>;
}

export interface DownloadAllResult {
  id: string;
  ok: boolean;
  error?: WeightsError;
}

function contentTypeFor(path: string): string {
  return path.endsWith('.json') ? 'application/json' : 'application/octet-stream';
}

function toWeightsError(e: unknown, signal: AbortSignal | undefined, path: string): WeightsError {
  if (e instanceof WeightsError) return e;
  if (signal?.aborted || isAbortError(e)) return new WeightsError('aborted', 'aborted', path);
  if (isQuotaError(e)) return new WeightsError('quota', 'store refused a part', path);
  return new WeightsError('network', e instanceof Error ? e.message : 'fetch failed', path);
}

export class WeightsDownloader {
  private readonly settings: typeof weightsTunables;
  private readonly baseUrl: string;

  constructor(private readonly opts: DownloaderOptions) {
    this.settings = { ...weightsTunables, ...opts.settings };
    this.baseUrl = opts.baseUrl ?? DEFAULT_HUB_URL;
  }

  urlOf(file: Pick<BundleFile, 'repo' | 'path'>): string {
    return buildFileUrl(file, this.baseUrl);
  }

  /** Downloads every file of `bundle` not yet complete, one after another. Rejects with a WeightsError. */
  async downloadBundle(bundle: ModelBundle, signal?: AbortSignal): Promise<BundleState> {
    const store = this.opts.store;
    let total = bundleTotalBytes(bundle);
    const meter = new ProgressMeter(
      this.opts.now,
      { intervalMs: this.settings.progressIntervalMs, alpha: this.settings.speedEmaAlpha },
      (p) => this.opts.onEvent?.({ type: 'progress', ...p }),
    );
    // Bytes already held count towards progress from the start, so the bar does not jump back after a restart.
    const held = new Map<string, number>();
    for (const f of bundle.files) {
      const key = this.urlOf(f);
      held.set(f.path, (await store.isComplete(key)) ? f.size : await partsSize(store, key));
    }
    const heldOthers = (path: string) => [...held].reduce((s, [p, b]) => (p === path ? s : s + b), 0);

    for (const file of bundle.files) {
      if (signal?.aborted) throw new WeightsError('aborted', 'aborted', file.path);
      const key = this.urlOf(file);
      if (await store.isComplete(key)) continue;
      const report = (fileBytes: number, force = false) => {
        held.set(file.path, fileBytes);
        meter.report(
          {
            bundleId: bundle.id,
            path: file.path,
            fileBytes,
            fileTotal: file.size,
            bytes: heldOthers(file.path) + fileBytes,
            total,
          },
          force,
        );
      };
      const outcome = await this.downloadFile(bundle, file, key, meter, report, signal);
      if (outcome === 'absent') {
        total -= file.size;
        held.delete(file.path);
        this.opts.onEvent?.({ type: 'file-absent', bundleId: bundle.id, path: file.path });
        // The total just shrank; say so, or the last event would show a bar that never reaches 100 %.
        report(0, true);
        held.delete(file.path);
      } else {
        report(file.size, true);
        this.opts.onEvent?.({ type: 'file-complete', bundleId: bundle.id, path: file.path, size: file.size });
      }
    }
    return bundleState(bundle, store, this.baseUrl);
  }

  /** Downloads bundles one after another; an abort stops the rest, other errors are recorded and the next one starts. */
  async downloadAll(bundles: ModelBundle[], signal?: AbortSignal): Promise<DownloadAllResult[]> {
    const results: DownloadAllResult[] = [];
    for (const b of bundles) {
      try {
        await this.downloadBundle(b, signal);
        results.push({ id: b.id, ok: true });
      } catch (e) {
        const error = toWeightsError(e, signal, '');
        results.push({ id: b.id, ok: false, error });
        if (error.code === 'aborted') break;
      }
    }
    return results;
  }

  private async downloadFile(
    bundle: ModelBundle,
    file: BundleFile,
    key: string,
    meter: ProgressMeter,
    report: (fileBytes: number, force?: boolean) => void,
    signal: AbortSignal | undefined,
  ): Promise<'complete' | 'absent'> {
    const store = this.opts.store;
    let networkRetries = 0;
    let integrityRetried = false;
    for (;;) {
      try {
        await this.transfer(file, key, meter, report, signal);
        // Only the pinned hash counts: what the serving host says about its own bytes proves nothing.
        const expected = file.sha256;
        if (expected) {
          const actual = await sha256OfChunks(store.readParts(key), file.size, {
            subtle: this.opts.subtle,
            webCryptoMaxBytes: this.settings.webCryptoMaxBytes,
          });
          if (actual !== expected.toLowerCase()) {
            await store.deleteParts(key);
            report(0, true);
            if (integrityRetried)
              throw new WeightsError('integrity', `sha256 ${actual} is not the pinned ${expected}, twice`, file.path);
            integrityRetried = true;
            this.opts.onEvent?.({ type: 'retry', bundleId: bundle.id, path: file.path, reason: 'integrity', attempt: 1 });
            continue;
          }
        }
        await store.commit(key, contentTypeFor(file.path));
        return 'complete';
      } catch (e) {
        const err = toWeightsError(e, signal, file.path);
        if (err.code === 'not_found' && file.optional) return 'absent';
        if (err.code === 'network' && networkRetries < this.settings.networkRetries && !signal?.aborted) {
          networkRetries += 1;
          this.opts.onEvent?.({
            type: 'retry',
            bundleId: bundle.id,
            path: file.path,
            reason: 'network',
            attempt: networkRetries,
          });
          try {
            await this.opts.sleep(this.settings.retryBaseDelayMs * 2 ** (networkRetries - 1), signal);
          } catch (sleepErr) {
            throw toWeightsError(sleepErr, signal, file.path);
          }
          continue;
        }
        throw err;
      }
    }
  }

  /** Brings the parts of `key` up to file.size bytes, or throws (keeping every byte received). */
  private async transfer(
    file: BundleFile,
    key: string,
    meter: ProgressMeter,
    report: (fileBytes: number, force?: boolean) => void,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const store = this.opts.store;
    let parts = await store.parts(key);
    let have = parts.reduce((s, p) => s + p.size, 0);
    if (have > file.size) {
      await store.deleteParts(key);
      parts = [];
      have = 0;
    }
    let nextIndex = parts.length > 0 ? (parts[parts.length - 1]?.index ?? 0) + 1 : 0;
    report(have, true);
    if (have === file.size && file.size > 0) return; // every byte arrived before a restart; verify only

    const url = key;
    // no-store: the bytes are kept in our own store; the browser's HTTP cache would hold a second copy of every
    // gigabyte and rewrite our Range requests into its own partial-entry fetches.
    const res = await this.opts.fetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal, cache: 'no-store' });
    const fail = async (err: WeightsError): Promise<never> => {
      await res.body?.cancel().catch(() => undefined);
      throw err;
    };
    if (res.status === 404 || res.status === 410 || res.status === 401 || res.status === 403) {
      return fail(new WeightsError('not_found', `HTTP ${res.status}`, file.path));
    }
    if (res.status === 416) {
      await store.deleteParts(key); // the file on the server no longer extends past what we hold
      return fail(new WeightsError('network', 'range not satisfiable; restarting from 0', file.path));
    }
    if (!res.ok) return fail(new WeightsError('network', `HTTP ${res.status}`, file.path));
    const type = res.headers.get('content-type') ?? '';
    if (type.toLowerCase().startsWith('text/html') && !file.path.endsWith('.html')) {
      return fail(new WeightsError('html_instead_of_file', 'text/html response', file.path));
    }
    let total: number | undefined;
    if (res.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
      if (!m || Number(m[1]) !== have) {
        await store.deleteParts(key);
        return fail(new WeightsError('network', 'unexpected Content-Range; restarting from 0', file.path));
      }
      total = Number(m[3]);
    } else {
      if (have > 0) {
        // The server ignored Range and sends the whole file: start over rather than append a second copy.
        await store.deleteParts(key);
        have = 0;
        nextIndex = 0;
        report(0, true);
      }
      const len = res.headers.get('content-length');
      total = len === null ? undefined : Number(len);
    }
    if (total !== undefined && total !== file.size) {
      return fail(new WeightsError('integrity', `server size ${total} != expected ${file.size}`, file.path));
    }
    if (!res.body) return fail(new WeightsError('network', 'empty body', file.path));

    const reader = res.body.getReader();
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const part = new Uint8Array(pendingBytes);
      let off = 0;
      for (const c of pending) {
        part.set(c, off);
        off += c.byteLength;
      }
      pending = [];
      pendingBytes = 0;
      await store.putPart(key, nextIndex, part);
      nextIndex += 1;
      have += part.byteLength;
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (have + pendingBytes + value.byteLength > file.size) {
          throw new WeightsError('integrity', 'more bytes than expected', file.path);
        }
        pending.push(value);
        pendingBytes += value.byteLength;
        meter.addTransferred(value.byteLength);
        report(have + pendingBytes);
        if (pendingBytes >= this.settings.partBytes) await flush();
      }
      await flush();
    } catch (e) {
      await reader.cancel().catch(() => undefined);
      const err = toWeightsError(e, signal, file.path);
      if (err.code === 'integrity') {
        await store.deleteParts(key);
        throw err;
      }
      // Keep what arrived: it is a correct prefix (the final hash decides), and the next attempt resumes after it.
      if (err.code !== 'quota') await flush().catch(() => undefined);
      throw err;
    }
    if (have < file.size) throw new WeightsError('network', `connection ended at ${have} of ${file.size}`, file.path);
  }
}
