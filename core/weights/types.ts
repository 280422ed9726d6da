// Shapes of the weights catalog. A bundle is everything one model role needs (config, tokenizer, graphs), so the UI can
// show one row per model and "complete" means the runtime can load it offline. Every file names the hub repo and the
// commit it is pinned to (docs/models.md), so one bundle may take files from several repos (a model repo and a Space).

/** A repository on the hub: models resolve at `/{id}/resolve/…`, Spaces at `/spaces/{id}/resolve/…`. */
export interface HubRepo {
  type: 'model' | 'space';
  /** 'org/name'. */
  id: string;
  /** A full 40-hex commit; never a branch, so the bytes behind a URL never change. */
  revision: string;
}

export interface BundleFile {
  /** What the runtime uses this file as ('flow_lm_main.int8', 'tokenizer', …); unique in its bundle. */
  role: string;
  repo: HubRepo;
  /** Path inside the repo, exactly as published, e.g. 'onnx/english_2026-04/bundle.json'. */
  path: string;
  /** Exact size in bytes; a server reporting another size is an integrity error. */
  size: number;
  /** Hex sha256 pinned in the manifest (every LFS file has one); the downloader checks the bytes against it. */
  sha256?: string;
  /** A 404 is fine; the bundle is complete without it. */
  optional?: boolean;
  /** Licence and attribution of this file when they differ from its bundle's (preset voices). */
  license?: string;
  attribution?: string;
}

export type ModelTask = 'vad' | 'asr' | 'turn' | 'llm' | 'tts' | 'vision' | 'embed';

export interface ModelBundle {
  id: string;
  files: BundleFile[];
  dtype: string;
  task: ModelTask;
  /** Backends the runtime may use for this bundle, best first. */
  backends: Array<'webgpu' | 'wasm'>;
  label: string;
  /** SPDX-like id of the licence the user accepts by downloading (the strictest of its files). */
  license: string;
  /** Part of the set a new user downloads to hold a spoken conversation. */
  default: boolean;
  /**
   * Part of that set too, but only where a hardware GPU runs the models (the GPU voice, page search by meaning):
   * `defaultSet` in core/weights/default-set.ts decides it for the device.
   */
  gpuDefault?: boolean;
}

export type FileStatus = 'complete' | 'partial' | 'missing';

export interface FileState {
  role: string;
  path: string;
  status: FileStatus;
  /** Bytes held for this file (verified entry or unverified parts). */
  bytes: number;
  size: number;
}

export interface BundleState {
  id: string;
  status: 'complete' | 'partial' | 'missing';
  bytesStored: number;
  totalBytes: number;
  files: FileState[];
}

export interface DownloadProgress {
  bundleId: string;
  path: string;
  fileBytes: number;
  fileTotal: number;
  /** Bytes of the whole bundle held, including files already complete. */
  bytes: number;
  total: number;
  /** Exponential moving average of the transfer rate, bytes per second (0 until measured). */
  speedBps: number;
  /** Seconds left at the current speed; null while unknown. */
  etaSeconds: number | null;
}

export type DownloadEvent =
  | ({ type: 'progress' } & DownloadProgress)
  | { type: 'file-complete'; bundleId: string; path: string; size: number }
  | { type: 'file-absent'; bundleId: string; path: string }
  | { type: 'retry'; bundleId: string; path: string; reason: string; attempt: number };
