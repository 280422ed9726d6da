/**
 * A stage of the room's pipeline (rig.ts) that keeps its delay bounded: float32 mono audio in on stdin, out on stdout,
 * at most `capMs` of audio let through beyond real time. When a process upstream stalls (the machine is busy), the
 * audio it kept comes out in a burst afterwards; played at real time, that burst would stay behind as extra delay for
 * the rest of the run (a room with over a second of delay, which no room has and no echo canceller expects). So the
 * older part of such a burst is dropped, the way a real room never delays sound.
 *
 * Usage: node latency-cap.mjs <sampleRate> <capMs>
 */
const rate = Number(process.argv[2] ?? 48_000);
const capSamples = Math.round((Number(process.argv[3] ?? 60) / 1000) * rate);

let tokens = capSamples;
let last = performance.now();
let rest = Buffer.alloc(0);
let dropped = 0;

process.stdin.on('data', (data) => {
  const now = performance.now();
  tokens = Math.min(capSamples, tokens + ((now - last) / 1000) * rate);
  last = now;
  const bytes = rest.length > 0 ? Buffer.concat([rest, data]) : data;
  const whole = bytes.length - (bytes.length % 4);
  rest = bytes.subarray(whole);
  const samples = whole / 4;
  // The next stage not keeping up (sox slower than real time on a busy machine) leaves what it has not taken queued
  // here: played later, that queue would be delay that only grows. Past the cap, the chunk is dropped instead.
  const backlogged = process.stdout.writableLength > capSamples * 4;
  const keep = backlogged ? 0 : Math.min(samples, Math.floor(tokens));
  dropped += samples - keep;
  tokens -= keep;
  if (keep > 0) process.stdout.write(bytes.subarray(whole - keep * 4, whole));
});
process.stdin.on('end', () => {
  if (process.env.ROOM_VERBOSE) process.stderr.write(`[room] latency cap dropped ${dropped} samples\n`);
});
process.stdout.on('error', () => process.exit(0));
