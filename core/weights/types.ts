// Shapes of the weights catalog. A bundle is everything one model role needs (config, tokenizer, graphs), so the UI can
// show one row per model and "complete" means the runtime can load it offline.

export interface BundleFile {
  /** Path inside the repo, e.g. 'onnx/model_q4f16.onnx'. */
  path: string;
  /** Expected size in bytes; a server reporting another size is an integrity error. */
  size: number;
  /** Hex sha256 when known (LFS files); otherwise the hub's X-Linked-Etag hint is used if the server sends one. */
  sha256?: string;
  /** A 404 is fine (e.g. generation_config.json); the bundle is complete without it. */
  optional?: boolean;
}

export type ModelTask = 'vad' | 'asr' | 'llm' | 'tts' | 'vision';

export interface ModelBundle {
  id: string;
  /** 'org/name' on the hub. */
  repo: string;
  /** Branch or commit; pin a commit for reproducible bytes. */
  revision: string;
  files: BundleFile[];
  dtype: string;
  task: ModelTask;
  /** Backends the runtime may use for this bundle, best first. */
  backends: Array<'webgpu' | 'wasm'>;
  label: string;
  license: string;
}

export type FileStatus = 'complete' | 'partial' | 'missing';

export interface FileState {
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
