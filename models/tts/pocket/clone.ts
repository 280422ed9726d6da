/**
 * Voice cloning (pocket-tts.md §5): ≤ 30 s of mono audio → resample to 24 kHz → mimi_encoder (already
 * speaker-projected latents) → optional bos_before_voice in front → one flow_lm_main prefix pass from fresh states →
 * the KV caches + offsets are the voice. Consent is mandatory and stored with the voice.
 */
import { consentSchema, type StoredVoice, type VoiceConsent } from '../../../core/tts/voice-store';
import { prepareCloneAudio } from '../../../core/tts/wav';
import { ttsTunables } from '../../../core/tunables';
import type { PocketModel } from './model';
import { flowStatesToVoice, freshStates, threadStates } from './state';

export class ConsentRequiredError extends Error {
  override name = 'ConsentRequiredError';
}
export class CloningUnavailableError extends Error {
  override name = 'CloningUnavailableError';
}
export class CloneAudioError extends Error {
  override name = 'CloneAudioError';
}

export interface CloneRequest {
  audio: Float32Array;
  sampleRate: number;
  name: string;
  /** Required: the statement the user accepted and when. Without it nothing runs. */
  consent: VoiceConsent | undefined | null;
  id?: string;
  now?: () => number;
}

export async function cloneVoice(model: PocketModel, req: CloneRequest): Promise<StoredVoice> {
  const consent = consentSchema.safeParse(req.consent);
  if (!consent.success)
    throw new ConsentRequiredError('voice cloning needs the speaker’s explicit consent (statement + acceptedAt)');
  if (!model.hasEncoder)
    throw new CloningUnavailableError('this bundle has no mimi_encoder (the ungated checkpoint cannot clone)');
  const { bundle, ort } = model;
  if (!(req.sampleRate > 0) || req.audio.length === 0) throw new CloneAudioError('empty audio or bad sample rate');
  for (const x of req.audio) if (!Number.isFinite(x)) throw new CloneAudioError('audio holds NaN/Inf samples');
  const audio = prepareCloneAudio(
    { sampleRate: req.sampleRate, samples: req.audio },
    bundle.sample_rate,
    ttsTunables.cloneMaxSeconds,
  );
  if (audio.length < bundle.samples_per_frame) throw new CloneAudioError('need at least one 80 ms frame of audio');

  const enc = await model.session('mimi_encoder').run({ audio: new ort.Tensor('float32', audio, [1, 1, audio.length]) });
  const latents = enc.latents!;
  const frames = latents.dims[1]!;
  const D = bundle.conditioning_dim;
  let prompt = latents.data as Float32Array;
  let promptLen = frames;
  if (bundle.insert_bos_before_voice && model.bosBeforeVoice) {
    const withBos = new Float32Array((frames + 1) * D);
    withBos.set(model.bosBeforeVoice, 0);
    withBos.set(prompt.subarray(0, frames * D), D);
    prompt = withBos;
    promptLen = frames + 1;
  }
  const out = await model.session('flow_lm_main').run({
    sequence: new ort.Tensor('float32', new Float32Array(0), [1, 0, bundle.latent_dim]),
    text_embeddings: new ort.Tensor('float32', prompt, [1, promptLen, D]),
    ...freshStates(ort, bundle.flow_lm_state_manifest),
  });
  const states = threadStates(bundle.flow_lm_state_manifest, out);
  const tensors = await flowStatesToVoice(bundle.flow_lm_state_manifest, states);
  const now = req.now ?? Date.now;
  return {
    id: req.id ?? `clone-${now().toString(36)}-${Math.floor(Math.random() * 1e9).toString(36)}`,
    name: req.name,
    bundleId: model.bundleId,
    createdAt: now(),
    consent: consent.data,
    synthetic: true,
    tensors,
  };
}
