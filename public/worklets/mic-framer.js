// AudioWorklet: cuts the microphone stream into fixed frames (512 samples at the context rate, 32 ms at 16 kHz,
// the Silero VAD v5 frame) and posts each with its RMS level. Runs on the audio thread; allocation is one
// Float32Array per frame and channel, transferred to the main thread. `processorOptions.frame` sets another frame
// length (a multiple of the 128-sample render quantum): the side panel's played-audio tap posts fewer, longer blocks.
//
// Channel 0 is the capture after Chrome's echo canceller; channel 1, when the node is given two channels, is the same
// microphone unprocessed (docs/echo.md, "The unprocessed microphone"). Both are cut at the same sample, so a frame of
// one and the frame of the other cover the same 32 ms.
const FRAME = 512;

function rmsOf(buffer) {
  let sum = 0;
  for (let i = 0; i < buffer.length; i++) sum += buffer[i] * buffer[i];
  return Math.sqrt(sum / buffer.length);
}

class MicFramer extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const opts = (options && options.processorOptions) || {};
    this.withRaw = Boolean(opts.withRaw);
    this.frame = Number.isInteger(opts.frame) && opts.frame > 0 && opts.frame % 128 === 0 ? opts.frame : FRAME;
    this.buffer = new Float32Array(this.frame);
    this.raw = this.withRaw ? new Float32Array(this.frame) : null;
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    const rawChannel = this.withRaw ? inputs[0][1] : undefined;
    let offset = 0;
    while (offset < channel.length) {
      const take = Math.min(this.frame - this.filled, channel.length - offset);
      this.buffer.set(channel.subarray(offset, offset + take), this.filled);
      // A missing second channel (its track has not started or has ended) is silence, not the first channel again.
      if (this.raw) {
        if (rawChannel) this.raw.set(rawChannel.subarray(offset, offset + take), this.filled);
        else this.raw.fill(0, this.filled, this.filled + take);
      }
      this.filled += take;
      offset += take;
      if (this.filled === this.frame) {
        const frame = this.buffer;
        const message = { frame, rms: rmsOf(frame), time: currentTime };
        const transfer = [frame.buffer];
        if (this.raw) {
          message.raw = this.raw;
          message.rawRms = rmsOf(this.raw);
          transfer.push(this.raw.buffer);
          this.raw = new Float32Array(this.frame);
        }
        this.port.postMessage(message, transfer);
        this.buffer = new Float32Array(this.frame);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('mic-framer', MicFramer);
