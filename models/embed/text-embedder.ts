/**
 * Sentence embeddings for page retrieval: the pinned all-MiniLM-L6-v2 export (docs/models.md, "Page embeddings")
 * through transformers.js, tokenizer read at the pinned commit (models/pinned-hub.ts), the encoder's last hidden state
 * mean-pooled and normalised in core/page/dense.ts. Runs wherever it is constructed: the model worker in the
 * extension, plain Node in tests and the retrieval bench.
 */
import { AutoModel, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { meanPoolNormalized } from '../../core/page/dense';
import { pageTunables } from '../../core/tunables';
import { EMBED_MODEL } from '../registry';
import { loadPinnedTokenizer } from '../pinned-hub';

export type EmbedderDevice = 'webgpu' | 'wasm' | 'cpu';

export interface EmbedderLoadOptions {
  device: EmbedderDevice;
  /** Overrides for tests and the bench; defaults come from the pinned manifest (models/registry.ts). */
  repo?: string;
  revision?: string;
  onProgress?: (event: unknown) => void;
}

export class TextEmbedder {
  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    readonly device: EmbedderDevice,
  ) {}

  static async load(options: EmbedderLoadOptions): Promise<TextEmbedder> {
    const repo = options.repo ?? EMBED_MODEL.repo;
    const revision = options.revision ?? EMBED_MODEL.revision;
    const tokenizer = await loadPinnedTokenizer(repo, revision);
    const model = await AutoModel.from_pretrained(repo, {
      revision,
      device: options.device,
      // One explicit dtype on every backend (models/registry.ts): the pinned fp32 `onnx/model.onnx` (docs/models.md §
      // Page embeddings says why not the int8 export).
      dtype: EMBED_MODEL.dtype as 'fp32',
      progress_callback: options.onProgress,
    });
    return new TextEmbedder(tokenizer, model, options.device);
  }

  /** Unit-length embeddings of `texts`, in order (one model call: the caller batches). */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const inputs = this.tokenizer(texts, { padding: true, truncation: true, max_length: pageTunables.embedMaxTokens });
    const output = (await this.model(inputs)) as { last_hidden_state?: Tensor };
    const hidden = output.last_hidden_state;
    if (!hidden) throw new Error('the embedding model gave no last_hidden_state');
    const [batch, seq, dim] = hidden.dims as [number, number, number];
    const mask = (inputs as { attention_mask: Tensor }).attention_mask.data as BigInt64Array;
    const vectors = meanPoolNormalized(hidden.data as Float32Array, [batch, seq, dim], mask);
    hidden.dispose();
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}
