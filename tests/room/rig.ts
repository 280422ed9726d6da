/**
 * The acoustic loop (issue 23, docs/benchmarks.md "Talking over the reply"): a private PulseAudio server whose default
 * sink is the speakers and whose default source is a microphone in a room. What Chromium plays goes to the sink
 * "speakers", the head of a chain of LADSPA sinks (delay, reverb, band, distortion, gain: room-chain.ts) whose end is the
 * null sink "room"; the user's voice is played into "room" too; the microphone is a remapped source on the room's
 * monitor. All of it runs in the server, on one clock (ROOM_PATH=pipes: the earlier room, a parec → sox → pacat
 * process chain between two null sinks). Everything runs at 48 kHz mono.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_LAG_MS, probe, windowLags } from './clock-lag';
import { chainModules, LADSPA_DIR, ladspaSoxEffects, roomStages } from './room-chain';

export const RIG_RATE = 48_000;
const RAW = ['--raw', '--format=float32le', `--rate=${RIG_RATE}`, '--channels=1', '--latency-msec=10'];
/** A pipeline stage that drops the backlog a stalled process leaves, so the room's delay stays what it was set to. */
const LATENCY_CAP = fileURLToPath(new URL('./latency-cap.mjs', import.meta.url));
const LATENCY_CAP_MS = 60;
const SOX_RAW = ['-t', 'raw', '-r', String(RIG_RATE), '-e', 'floating-point', '-b', '32', '-c', '1'];

/**
 * Which room the rig builds: `server` (default) runs it as LADSPA plugins inside the PulseAudio server, on its one
 * clock (room-chain.ts); `pipes` is the earlier parec → sox → pacat chain, whose delay moves with the scheduling of
 * its processes (docs/benchmarks.md, "The rig's delay"). ROOM_PATH=pipes selects it.
 */
export const ROOM_PATH: 'server' | 'pipes' = process.env.ROOM_PATH === 'pipes' ? 'pipes' : 'server';

/** The room between the speakers and the microphone. */
export interface Acoustics {
  /** Speaker → mic delay, seconds. */
  delayS: number;
  /** sox reverberance in % (0: no reverb). */
  reverb: number;
  /** sox overdrive gain in dB (0: linear), the small distortion of a laptop speaker driven hard. */
  overdrive: number;
  /** Gain of the echo path in dB: sets the speaker level at the mic relative to the user. */
  gainDb: number;
  /** The speaker's band: a high-pass (a small speaker's missing bass) and a low-pass, Hz (absent: none). */
  lowCutHz?: number;
  highCutHz?: number;
  /** A resonance of the speaker's box: a peak of `db` at `hz`, one octave wide. */
  resonance?: { hz: number; db: number };
}

/** The room as sox effects for the `pipes` path. */
export function soxEffects(a: Acoustics): string[] {
  const fx = ['delay', a.delayS.toFixed(3)];
  if (a.reverb > 0) fx.push('reverb', String(a.reverb));
  if (a.lowCutHz) fx.push('highpass', String(a.lowCutHz));
  if (a.highCutHz) fx.push('lowpass', String(a.highCutHz));
  if (a.resonance) fx.push('equalizer', String(a.resonance.hz), '1o', String(a.resonance.db));
  if (a.overdrive > 0) fx.push('overdrive', String(a.overdrive));
  fx.push('gain', a.gainDb.toFixed(2));
  return fx;
}

/** The sox effects that do offline what the rig's room (of the path in use) does live. */
export function roomEffects(a: Acoustics): string[] {
  return ROOM_PATH === 'server' ? ladspaSoxEffects(a) : soxEffects(a);
}

/** A capture of one source: float32 samples and the wall-clock time (Date.now()) of sample 0. */
export class Recording {
  private chunks: Buffer[] = [];
  private bytes = 0;
  startedAt = 0;
  private readonly proc: ChildProcess;

  constructor(env: NodeJS.ProcessEnv, source: string) {
    this.proc = spawn('parec', ['-d', source, ...RAW], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    this.proc.stdout!.on('data', (b: Buffer) => {
      // A block arrives after its samples were captured, late by however busy this process was: the earliest start
      // any block implies is the closest to the truth (the first block alone was up to a second late under load).
      this.chunks.push(b);
      this.bytes += b.length;
      const start = Date.now() - (this.bytes / 4 / RIG_RATE) * 1000;
      this.startedAt = this.startedAt === 0 ? start : Math.min(this.startedAt, start);
    });
  }

  /** Samples so far. */
  samples(): Float32Array {
    const all = Buffer.concat(this.chunks);
    return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + (all.length & ~3)));
  }

  /** The newest `ms` of samples (only the last blocks are copied: cheap enough to poll). */
  newest(ms: number): Float32Array {
    const end = this.bytes & ~3;
    const want = Math.round((ms / 1000) * RIG_RATE) * 4;
    const parts: Buffer[] = [];
    let first = this.bytes; // stream offset of the first byte of `parts`
    for (let i = this.chunks.length - 1; i >= 0 && this.bytes - first < want + 4; i--) {
      parts.unshift(this.chunks[i]!);
      first -= this.chunks[i]!.length;
    }
    const start = Math.max(first + ((4 - (first % 4)) % 4), end - want);
    const all = Buffer.concat(parts).subarray(start - first, end - first);
    return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.length));
  }

  /** Samples between two wall-clock times. */
  between(from: number, to: number): Float32Array {
    const s = this.samples();
    const at = (t: number) => Math.max(0, Math.min(s.length, Math.round(((t - this.startedAt) / 1000) * RIG_RATE)));
    return s.slice(at(from), at(to));
  }

  stop(): void {
    this.proc.kill();
  }
}

export interface Rig {
  /** PULSE_SERVER for Chromium (launchExtension's `pulseServer`). */
  server: string;
  env: NodeJS.ProcessEnv;
  /** Replaces the room (its plugin chain, or the sox process between the speakers and the microphone). */
  setRoom(a: Acoustics): Promise<void>;
  /** Speakers → microphone delay of the first room, measured when the rig started (ms). */
  readonly roomDelayMs: number;
  /** Plays a WAV into the room as the user's voice; resolves with the wall-clock time its first sample sounded. */
  /** `spawnedAt`: when paplay was started; `startedAt`: when its sound should begin, by the start-up measured once. */
  say(wav: string): Promise<{ spawnedAt: number; startedAt: number; done: Promise<void> }>;
  record(source: 'speakers.monitor' | 'room.monitor'): Recording;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pactl(env: NodeJS.ProcessEnv, ...args: string[]): string {
  const r = spawnSync('pactl', args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pactl ${args.join(' ')}: ${r.stderr || r.error?.message}`);
  return r.stdout.trim();
}

/** Starts PulseAudio (as root, with its own runtime dir), the sinks, the microphone and a room. */
export async function startRig(room: Acoustics): Promise<Rig> {
  const missing = ['pulseaudio', 'pactl', 'parec', 'pacat', 'paplay', 'sox'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (missing.length > 0) {
    throw new Error(
      `The room tests need ${missing.join(', ')}: apt-get install -y --no-install-recommends pulseaudio pulseaudio-utils sox`,
    );
  }
  const plugins =
    ROOM_PATH === 'server' ? [...new Set(roomStages({ ...room, reverb: 1, overdrive: 1 }).map((x) => x.plugin))] : [];
  const absent = plugins.filter((x) => !existsSync(join(LADSPA_DIR, `${x}.so`)));
  if (absent.length > 0) {
    throw new Error(
      `The room tests' server path needs LADSPA plugins ${absent.join(', ')}: apt-get install -y --no-install-recommends swh-plugins (or ROOM_PATH=pipes)`,
    );
  }
  const runtime = mkdtempSync(join(tmpdir(), 'sidetalk-room-'));
  const socket = join(runtime, 'native');
  const server = `unix:${socket}`;
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, PULSE_SERVER: server };
  let pipe: ChildProcess[] = [];
  let chain: string[] = [];
  let keepers: ChildProcess[] = [];
  const daemon = spawn(
    'pulseaudio',
    [
      '-n',
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--log-target=stderr',
      '-L',
      `module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // A test runner that dies must not leave the server and the room running.
  const orphaned = () => {
    for (const p of [...pipe, ...keepers]) if (p.pid !== undefined && p.exitCode === null) process.kill(-p.pid);
    daemon.kill();
  };
  process.once('exit', orphaned);
  const terminated = () => {
    orphaned();
    process.exit(143);
  };
  process.once('SIGTERM', terminated);
  let log = '';
  daemon.stderr!.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  for (let i = 0; ; i++) {
    if (spawnSync('pactl', ['info'], { env }).status === 0) break;
    if (i > 100 || daemon.exitCode !== null) throw new Error(`PulseAudio did not start:\n${log}`);
    await sleep(50);
  }
  if (ROOM_PATH === 'pipes') {
    pactl(env, 'load-module', 'module-null-sink', 'sink_name=speakers', `rate=${RIG_RATE}`, 'channels=1');
    pactl(env, 'load-module', 'module-null-sink', 'sink_name=room', `rate=${RIG_RATE}`, 'channels=1');
  } else {
    // The speakers are the head of the room's plugin chain; a sink to hold the streams while setRoom replaces it.
    // No rewinds: a new stream (the user's voice, a tone) would rewind the room and every filter sink above it, and
    // a LADSPA sink resets its plugin on a rewind: the delay line and the reverb's tail, echo in flight, were lost.
    for (const sink of ['room', 'hold']) {
      const spec = [`rate=${RIG_RATE}`, 'channels=1', 'format=float32le', 'norewinds=1'];
      pactl(env, 'load-module', 'module-null-sink', `sink_name=${sink}`, ...spec);
    }
    chain = loadChain(env, room);
  }
  pactl(env, 'load-module', 'module-remap-source', 'source_name=mic', 'master=room.monitor', 'channels=1');
  pactl(env, 'set-default-sink', 'speakers');
  pactl(env, 'set-default-source', 'mic');
  // Silence into both sinks, so their monitors always run at the sinks' pace (Chromium closes idle output streams).
  keepers = ['speakers', 'room'].map((sink) =>
    spawn('bash', ['-c', `pacat -d ${sink} --playback ${RAW.join(' ')} < /dev/zero`], { env, stdio: 'ignore', detached: true }),
  );

  const stopRoom = async () => {
    for (const p of pipe) if (p.pid !== undefined && p.exitCode === null) process.kill(-p.pid); // its process group
    await Promise.all(
      pipe.map((p) => (p.exitCode === null && p.signalCode === null ? new Promise((r) => p.once('exit', r)) : null)),
    );
    pipe = [];
  };
  const setRoom = async (a: Acoustics) => {
    if (ROOM_PATH === 'server') {
      chain = swapChain(env, chain, a);
      return;
    }
    await stopRoom();
    // One shell pipeline, so the audio never waits on this process's event loop: a synchronous step here (a test
    // build) once let ~20 s of backlog pile up in PulseAudio's record buffer, and the room kept that delay. Stalls of
    // the pipeline's own processes on a busy machine did the same on a smaller scale (a room 1.3 s long in the room
    // e2e, heard as a user talking after each reply): the latency cap drops such backlog.
    const q = (xs: string[]) => xs.map((x) => `'${x}'`).join(' ');
    // Before sox too: a sox slower than real time leaves its backlog upstream, where the cap after it cannot see it.
    const cap = q([process.execPath, LATENCY_CAP, String(RIG_RATE), String(LATENCY_CAP_MS)]);
    const line =
      `parec -d speakers.monitor ${q(RAW)} | ${cap} | sox --buffer 1024 ${q(SOX_RAW)} - ${q(SOX_RAW)} - ${q(soxEffects(a))} 2>/dev/null` +
      ` | ${cap}` +
      ` | pacat -d room --playback ${q(RAW)}`;
    pipe = [spawn('bash', ['-c', line], { env, stdio: 'ignore', detached: true })];
    await sleep(200);
  };
  /**
   * Measured once, before the browser loads the machine: under load the two paplay processes of the measurement start
   * up to a second apart, so later measurements say more about the scheduler than about the room.
   */
  if (ROOM_PATH === 'pipes') await setRoom(room);
  // A stall of the busy machine during the 30 ms tones loses them (the latency cap drops that backlog): try again.
  let measured: Awaited<ReturnType<typeof measureDelays>> | null = null;
  for (let attempt = 1; !measured; attempt++) {
    measured = await measureDelays(env).catch((err: unknown) => {
      if (attempt >= 3) throw err;
      return null;
    });
  }
  const { startLatencyMs: startLatency } = measured;
  // On the server's clock the two tones' paplays still start apart (a 200 ms room read 472 ms under load): the room's
  // delay is taken from a probe played into the speakers alone, both monitors recorded (clock-lag.ts).
  const roomDelayMs = ROOM_PATH === 'server' ? await probeDelay(env) : measured.roomDelayMs;
  if (process.env.ROOM_VERBOSE) console.error(`[room] speakers → microphone ${roomDelayMs.toFixed(0)} ms`);

  return {
    server,
    env,
    setRoom,
    roomDelayMs,
    async say(wav) {
      const spawnedAt = Date.now();
      const p = spawn('paplay', ['-d', 'room', '--latency-msec=10', wav], { env, stdio: 'ignore' });
      const done = new Promise<void>((resolve, reject) =>
        p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`paplay exited ${code}`)))),
      );
      await new Promise((r) => p.once('spawn', r));
      return { spawnedAt, startedAt: spawnedAt + startLatency, done };
    },
    record: (source) => new Recording(env, source),
    async close() {
      await stopRoom();
      for (const p of keepers) if (p.pid !== undefined && p.exitCode === null) process.kill(-p.pid);
      process.off('exit', orphaned);
      process.off('SIGTERM', terminated);
      daemon.kill();
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r(null)));
      rmSync(runtime, { recursive: true, force: true });
    },
  };
}

/** Loads the room's plugin chain (room-chain.ts), the speakers sink at its head; its module ids, the head first. */
function loadChain(env: NodeJS.ProcessEnv, a: Acoustics): string[] {
  const ids = chainModules(a, 'speakers', 'room', RIG_RATE)
    .reverse()
    .map((args) => pactl(env, 'load-module', ...args));
  pactl(env, 'set-default-sink', 'speakers');
  return ids.reverse();
}

/**
 * A new room while streams play into the speakers and record their monitor (a sweep's next room): they are moved to
 * the hold sink, the chain is replaced, and they are moved back, so the browser and the recordings never notice.
 */
function swapChain(env: NodeJS.ProcessEnv, ids: string[], a: Acoustics): string[] {
  const index = (kind: 'sinks' | 'sources', name: string) =>
    pactl(env, 'list', 'short', kind)
      .split('\n')
      .map((l) => l.split('\t'))
      .find((c) => c[1] === name)?.[0];
  const streamsOn = (kind: 'sink-inputs' | 'source-outputs', owner: string | undefined) =>
    pactl(env, 'list', 'short', kind)
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((c) => c[1] === owner)
      .map((c) => c[0]!);
  const inputs = streamsOn('sink-inputs', index('sinks', 'speakers'));
  const outputs = streamsOn('source-outputs', index('sources', 'speakers.monitor'));
  for (const id of inputs) pactl(env, 'move-sink-input', id, 'hold');
  for (const id of outputs) pactl(env, 'move-source-output', id, 'hold.monitor');
  for (const id of ids) pactl(env, 'unload-module', id);
  const next = loadChain(env, a);
  for (const id of inputs) pactl(env, 'move-sink-input', id, 'speakers');
  for (const id of outputs) pactl(env, 'move-source-output', id, 'speakers.monitor');
  return next;
}

/** The speakers → microphone lag (ms) of the room, median over the windows of a 3.5 s probe. */
async function probeDelay(env: NodeJS.ProcessEnv): Promise<number> {
  const file = join(tmpdir(), `sidetalk-room-probe-${process.pid}.f32`);
  writeFileSync(file, probe(3.5));
  const speakers = new Recording(env, 'speakers.monitor');
  const mic = new Recording(env, 'room.monitor');
  await sleep(300);
  const play = spawn('pacat', ['-d', 'speakers', '--playback', ...RAW.slice(0, -1), file], { env, stdio: 'ignore' });
  await new Promise((r) => play.once('exit', r));
  await sleep(MAX_LAG_MS + 300);
  speakers.stop();
  mic.stop();
  rmSync(file, { force: true });
  const start = Math.max(speakers.startedAt, mic.startedAt);
  const from = (rec: Recording) => rec.samples().subarray(Math.round(((start - rec.startedAt) / 1000) * RIG_RATE));
  const lags = windowLags(from(speakers), from(mic))
    .map((w) => w.lagMs)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  if (lags.length === 0) throw new Error('the rig did not hear its probe through the room');
  return lags[Math.floor(lags.length / 2)]!;
}

/** A 30 ms sine tone at half scale, a WAV at the rig's rate (the rig's delay measurement, bench/room/rig-latency.ts). */
export function tone(hz: number): string {
  const file = join(tmpdir(), `sidetalk-tone-${hz}-${process.pid}.wav`);
  spawnSync('sox', [
    '-n',
    '-r',
    String(RIG_RATE),
    '-c',
    '1',
    '-b',
    '16',
    file,
    'synth',
    '0.03',
    'sine',
    String(hz),
    'vol',
    '0.5',
  ]);
  return file;
}

/** Index of the first 10 ms window (Hann, so the other tone does not leak in) where `hz` is present, or -1. */
function toneAt(s: Float32Array, hz: number, from = 0): number {
  const w = RIG_RATE / 100;
  const k = 2 * Math.cos((2 * Math.PI * hz) / RIG_RATE);
  const hann = Float32Array.from({ length: w }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / w));
  for (let i = from; i + w <= s.length; i += w / 8) {
    let a = 0;
    let b = 0;
    for (let j = 0; j < w; j++) [a, b] = [s[i + j]! * hann[j]! + k * a - b, a];
    if ((a * a + b * b - k * a * b) / (w * w) > 1e-6) return i;
  }
  return -1;
}

/**
 * The room's delay as the microphone hears it, and paplay's start-up: one recording of the room's monitor, a tone
 * played straight into the room and, at the same moment, another into the speakers (so it comes through the room).
 */
async function measureDelays(env: NodeJS.ProcessEnv): Promise<{ startLatencyMs: number; roomDelayMs: number }> {
  const [direct, echoed] = [tone(700), tone(1900)];
  const rec = new Recording(env, 'room.monitor');
  await sleep(300);
  const spawnedAt = Date.now();
  const a = spawn('paplay', ['-d', 'room', '--latency-msec=10', direct], { env, stdio: 'ignore' });
  const b = spawn('paplay', ['-d', 'speakers', '--latency-msec=10', echoed], { env, stdio: 'ignore' });
  await Promise.all([a, b].map((p) => new Promise((r) => p.once('exit', r))));
  await sleep(1500);
  rec.stop();
  const s = rec.samples();
  const i = toneAt(s, 700);
  // The direct tone's abrupt edges splash into every band: look for the echoed one after it has ended (every room
  // here delays by more than the 30 ms tone).
  const j = i < 0 ? -1 : toneAt(s, 1900, i + Math.round(RIG_RATE * 0.045));
  if (i < 0 || j < 0 || rec.startedAt === 0) throw new Error('the rig did not hear its own tones in the room');
  return { startLatencyMs: rec.startedAt + (i / RIG_RATE) * 1000 - spawnedAt, roomDelayMs: ((j - i) / RIG_RATE) * 1000 };
}
