// AudioWorklet: cuts the microphone stream into fixed frames (512 samples at the context rate, 32 ms at 16 kHz,
// the Silero VAD v5 frame) and posts each with its RMS level. Runs on the audio thread; allocation is one
// Float32Array per frame, transferred to the main thread.
const FRAME = 512;

class MicFramer extends AudioWorkletProcessor {
  constructor() {
    super();
    this.buffer = new Float32Array(FRAME);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    let offset = 0;
    while (offset < channel.length) {
      const take = Math.min(FRAME - this.filled, channel.length - offset);
      this.buffer.set(channel.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === FRAME) {
        let sum = 0;
        for (let i = 0; i < FRAME; i++) sum += this.buffer[i] * this.buffer[i];
        const frame = this.buffer;
        this.port.postMessage({ frame, rms: Math.sqrt(sum / FRAME), time: currentTime }, [frame.buffer]);
        this.buffer = new Float32Array(FRAME);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('mic-framer', MicFramer);
