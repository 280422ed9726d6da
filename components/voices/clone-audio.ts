import { bytesToBase64 } from '../../core/tts/voice-transfer';
import { decodeWav, encodeWav, resample, type DecodedAudio } from '../../core/tts/wav';

/** Pocket TTS clones from at most 30 s (docs/tts.md); the rest of a longer recording is not used. */
export const CLONE_MAX_SECONDS = 30;
export const CLONE_SAMPLE_RATE = 24_000;
/** An upload bigger than this is not a 30 s voice sample (a 30 s 48 kHz stereo float WAV is ~11.5 MB). */
export const MAX_CLONE_UPLOAD_BYTES = 50 * 1024 * 1024;

/** The sentence the user ticks before anything is cloned; it is stored with the voice. */
export const CONSENT_STATEMENT = 'This is my voice, or I have the speaker’s permission to clone it.';

export interface PreparedClip {
  wavBase64: string;
  /** Seconds that will be used (≤ 30). */
  seconds: number;
  /** The source was longer than 30 s and was cut. */
  truncated: boolean;
}

export { bytesToBase64 };

/** Cuts to 30 s, resamples to 24 kHz mono and encodes a 16-bit WAV (1.44 MB at most) for the offscreen document. */
export function prepareClip(audio: DecodedAudio): PreparedClip {
  if (!(audio.sampleRate > 0) || audio.samples.length === 0) throw new Error('The recording is empty.');
  const max = Math.floor(CLONE_MAX_SECONDS * audio.sampleRate);
  const truncated = audio.samples.length > max;
  const cut = truncated ? audio.samples.subarray(0, max) : audio.samples;
  const at24k = audio.sampleRate === CLONE_SAMPLE_RATE ? cut : resample(cut, audio.sampleRate, CLONE_SAMPLE_RATE);
  let peak = 0;
  for (const x of at24k) {
    if (!Number.isFinite(x)) throw new Error('The recording holds invalid samples.');
    peak = Math.max(peak, Math.abs(x));
  }
  if (peak < 1e-4) throw new Error('The recording is silent. Check the microphone and try again.');
  return {
    wavBase64: bytesToBase64(encodeWav(at24k, CLONE_SAMPLE_RATE, 'pcm16')),
    seconds: at24k.length / CLONE_SAMPLE_RATE,
    truncated,
  };
}

/** Any audio file Chromium can decode (WAV exactly through our parser first), downmixed to mono. */
export async function decodeAudioFile(bytes: ArrayBuffer): Promise<DecodedAudio> {
  try {
    return decodeWav(bytes);
  } catch {
    // Not a WAV our parser reads: let the browser try (MP3, Ogg, WebM from MediaRecorder …).
  }
  const ctx = new OfflineAudioContext(1, 1, CLONE_SAMPLE_RATE);
  let buffer: AudioBuffer;
  try {
    buffer = await ctx.decodeAudioData(bytes.slice(0));
  } catch {
    throw new Error('That file isn’t audio Sidetalk can read. Use a WAV file or record with the microphone.');
  }
  const samples = new Float32Array(buffer.length);
  for (let ch = 0; ch < buffer.numberOfChannels; ch++) {
    const data = buffer.getChannelData(ch);
    for (let i = 0; i < data.length; i++) samples[i]! += data[i]! / buffer.numberOfChannels;
  }
  return { sampleRate: buffer.sampleRate, samples };
}

/** Records the microphone with MediaRecorder; stops by itself after 30 s. */
export class Recorder {
  private recorder: MediaRecorder | null = null;
  private stream: MediaStream | null = null;
  private chunks: Blob[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  async start(onAutoStop: () => void): Promise<void> {
    this.stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false },
    });
    this.chunks = [];
    this.recorder = new MediaRecorder(this.stream);
    this.recorder.ondataavailable = (e) => {
      if (e.data.size > 0) this.chunks.push(e.data);
    };
    this.recorder.start(250);
    this.timer = setTimeout(onAutoStop, CLONE_MAX_SECONDS * 1000);
  }

  get recording(): boolean {
    return this.recorder?.state === 'recording';
  }

  /** Stops, releases the microphone and returns the decoded recording. */
  async stop(): Promise<DecodedAudio> {
    const recorder = this.recorder;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!recorder) throw new Error('Nothing was recorded.');
    const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()));
    if (recorder.state !== 'inactive') recorder.stop();
    await stopped;
    this.release();
    const blob = new Blob(this.chunks, { type: recorder.mimeType });
    return decodeAudioFile(await blob.arrayBuffer());
  }

  release(): void {
    for (const t of this.stream?.getTracks() ?? []) t.stop();
    this.stream = null;
    this.recorder = null;
  }
}
