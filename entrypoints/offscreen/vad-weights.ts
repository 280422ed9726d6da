import { sileroWeights, type SileroWeights } from '../../models/vad/silero-js';

/**
 * The shipped Silero VAD weights, read once per document. Each microphone consumer makes its own SileroVadJs from
 * them (the model is recurrent: two consumers must not share one state).
 */
export async function loadVadWeights(url: string): Promise<SileroWeights> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`Voice detection could not load (${url}: HTTP ${res.status})`);
  return sileroWeights(new Uint8Array(await res.arrayBuffer()));
}
