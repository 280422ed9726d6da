/**
 * WAV (RIFF) encode/decode for voice upload and export: 16-bit PCM or 32-bit float, any channel count on input.
 * Decoding downmixes to mono; `prepareCloneAudio` then resamples to 24 kHz and keeps the first 30 s.
 */

export class WavError extends Error {
  override name = 'WavError';
}

export interface DecodedAudio {
  sampleRate: number;
  /** Mono, [-1, 1]. */
  samples: Float32Array;
}

export function encodeWav(samples: Float32Array, sampleRate: number, format: 'pcm16' | 'float32' = 'pcm16'): Uint8Array {
  const bytesPer = format === 'pcm16' ? 2 : 4;
  const dataBytes = samples.length * bytesPer;
  const out = new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer);
  const ascii = (o: number, s: string) => [...s].forEach((c, i) => v.setUint8(o + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, format === 'pcm16' ? 1 : 3, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * bytesPer, true);
  v.setUint16(32, bytesPer, true);
  v.setUint16(34, bytesPer * 8, true);
  ascii(36, 'data');
  v.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i]!));
    if (format === 'pcm16') v.setInt16(44 + 2 * i, Math.round(x < 0 ? x * 0x8000 : x * 0x7fff), true);
    else v.setFloat32(44 + 4 * i, samples[i]!, true);
  }
  return out;
}

export function decodeWav(buffer: ArrayBuffer | Uint8Array): DecodedAudio {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (o: number) => String.fromCharCode(...bytes.subarray(o, o + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new WavError('not a RIFF/WAVE file');
  let fmt: { format: number; channels: number; rate: number; bits: number } | null = null;
  let pos = 12;
  while (pos + 8 <= bytes.length) {
    const id = tag(pos);
    const size = v.getUint32(pos + 4, true);
    const body = pos + 8;
    if (body + size > bytes.length && id !== 'data') throw new WavError(`chunk ${id} runs past the end`);
    if (id === 'fmt ') {
      if (size < 16) throw new WavError('fmt chunk too short');
      let format = v.getUint16(body, true);
      if (format === 0xfffe && size >= 26) format = v.getUint16(body + 24, true); // WAVE_FORMAT_EXTENSIBLE subformat
      fmt = {
        format,
        channels: v.getUint16(body + 2, true),
        rate: v.getUint32(body + 4, true),
        bits: v.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new WavError('data chunk before fmt');
      const { format, channels, rate, bits } = fmt;
      if (channels < 1 || rate < 1) throw new WavError('bad channel count or sample rate');
      const pcm16 = format === 1 && bits === 16;
      const f32 = format === 3 && bits === 32;
      if (!pcm16 && !f32) throw new WavError(`unsupported encoding (format ${format}, ${bits} bits)`);
      const frameBytes = (bits / 8) * channels;
      const available = Math.min(size, bytes.length - body);
      const frames = Math.floor(available / frameBytes);
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) {
        let sum = 0;
        for (let c = 0; c < channels; c++) {
          const o = body + i * frameBytes + c * (bits / 8);
          sum += pcm16 ? v.getInt16(o, true) / 0x8000 : v.getFloat32(o, true);
        }
        samples[i] = sum / channels;
      }
      return { sampleRate: rate, samples };
    }
    pos = body + size + (size & 1);
  }
  throw new WavError('no data chunk');
}

/**
 * Band-limited resampling (windowed sinc, Hann, 16 zero crossings) so a 44.1/48 kHz upload does not alias into the
 * 24 kHz encoder input. O(n × 32), fine for ≤ 30 s clips.
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return input.slice();
  const ratio = toRate / fromRate;
  const outLen = Math.floor(input.length * ratio);
  const out = new Float32Array(outLen);
  const cutoff = Math.min(1, ratio); // relative to the input Nyquist
  const zeros = 16;
  const half = Math.ceil(zeros / cutoff);
  for (let i = 0; i < outLen; i++) {
    const center = i / ratio;
    const first = Math.ceil(center - half);
    const last = Math.floor(center + half);
    let acc = 0;
    let norm = 0;
    for (let j = first; j <= last; j++) {
      const x = (j - center) * cutoff;
      const w = 0.5 + 0.5 * Math.cos((Math.PI * x) / zeros);
      if (Math.abs(x) >= zeros) continue;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const k = sinc * w;
      norm += k;
      if (j >= 0 && j < input.length) acc += input[j]! * k;
    }
    out[i] = norm > 0 ? acc / norm : 0;
  }
  return out;
}

/** Mono 24 kHz, at most `maxSeconds` long: the encoder's input for cloning. */
export function prepareCloneAudio(audio: DecodedAudio, targetRate: number, maxSeconds: number): Float32Array {
  const maxIn = Math.floor(maxSeconds * audio.sampleRate);
  const clipped = audio.samples.length > maxIn ? audio.samples.subarray(0, maxIn) : audio.samples;
  const out = resample(clipped, audio.sampleRate, targetRate);
  return out.length > maxSeconds * targetRate ? out.subarray(0, Math.floor(maxSeconds * targetRate)) : out;
}
