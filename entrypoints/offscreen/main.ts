import { ChannelAudioSink } from './audio-out';
import {
  createRequestRouter,
  eventMessage,
  followTunables,
  sendRequest,
  type OffscreenStatus,
  type ProtocolError,
} from '../../core/protocol';
import { MicCapture } from '../../models/audio/mic-capture';
import { readGpuInfo } from './gpu-info';
import { Conversation } from './conversation';
import { ActiveCharacter } from './character-state';
import { LanguageModel } from './remote-llm';
import { VoiceService } from './voices';
import { snapshotTunables } from '../../core/tunables';
import { ModelWorkerClient } from './model-client';
import { createWeights } from './weights';

/**
 * The offscreen document: owns the GPU, the microphone and (in workers) the models. Its main thread only routes,
 * because it shares a renderer thread with the side panel whose avatar must keep its frame rate.
 */
const startedAt = Date.now();

// Every stream this document opens is remembered (weakly), so the status can report what is really capturing.
const streams = new Set<WeakRef<MediaStream>>();
const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
navigator.mediaDevices.getUserMedia = async (constraints) => {
  const stream = await getUserMedia(constraints);
  streams.add(new WeakRef(stream));
  return stream;
};
function liveTracks(kind: 'audio' | 'video'): number {
  let n = 0;
  for (const ref of streams) {
    const stream = ref.deref();
    if (!stream) streams.delete(ref);
    else n += stream.getTracks().filter((t) => t.kind === kind && t.readyState === 'live').length;
  }
  return n;
}
/** What Chrome does when access is revoked or a device is unplugged: the track ends and says so. */
function endTracks(kind: 'audio' | 'video'): void {
  for (const ref of streams) {
    for (const track of ref.deref()?.getTracks() ?? []) {
      if (track.kind !== kind || track.readyState !== 'live') continue;
      track.stop();
      track.dispatchEvent(new Event('ended'));
    }
  }
}
const mic = new MicCapture(chrome.runtime.getURL('/worklets/mic-framer.js'));
const gpuInfo = readGpuInfo();
const weights = createWeights();
// Created on first use: it starts the model workers, which a download-only session does not need.
let conversation: Conversation | null = null;
const runtimeSend = (message: unknown) => chrome.runtime.sendMessage(message);
// The TTS worker serves the voice settings too (list, preview, clone) without starting the model worker.
// The one audio sink every reply and preview speaks into (the side panel's player).
const audio = new ChannelAudioSink();
const voices = new VoiceService({ send: runtimeSend, modelsReady: weights.complete, audio });
// Where the voice runs shows in Settings: report it when it changes.
voices.tts.onBackendChange = () =>
  void status()
    .then((s) => chrome.runtime.sendMessage(eventMessage('event/offscreen-status', { status: s })))
    .catch(() => undefined);
const activeCharacter = new ActiveCharacter(runtimeSend);
const llm = new LanguageModel(runtimeSend);
const talk = () =>
  (conversation ??= new Conversation({ mic, modelsReady: weights.complete, voices, character: activeCharacter, llm, audio }));

/** Runs a conversation command; failures reach the side panel as a notice instead of disappearing. */
async function guarded(work: () => Promise<void> | void): Promise<Record<string, never>> {
  try {
    await work();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    void chrome.runtime.sendMessage(eventMessage('event/notice', { level: 'error', message })).catch(() => undefined);
    throw err;
  }
  return {};
}

async function status(): Promise<OffscreenStatus> {
  return {
    startedAt,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    gpu: await gpuInfo,
    mic: { capturing: mic.capturing, sampleRate: mic.sampleRate, ...(mic.lastError ? { error: mic.lastError } : {}) },
    camera: { live: liveTracks('video') },
    tts: voices.backendStatus(),
  };
}

async function probeMic(durationMs: number) {
  const wasCapturing = mic.capturing;
  let frames = 0;
  let peak = 0;
  let sumSquares = 0;
  let samples = 0;
  const off = mic.onFrame((frame) => {
    frames += 1;
    peak = Math.max(peak, frame.rms);
    sumSquares += frame.rms * frame.rms * frame.samples.length;
    samples += frame.samples.length;
  });
  try {
    await mic.start();
    const sampleRate = mic.sampleRate ?? 0;
    await new Promise((r) => setTimeout(r, durationMs));
    return { sampleRate, frames, peakRms: peak, meanRms: samples ? Math.sqrt(sumSquares / samples) : 0 };
  } finally {
    off();
    if (!wasCapturing) await mic.stop();
  }
}

const logError = (error: ProtocolError) => console.warn(`[sidetalk] offscreen rejected message: ${error.code}: ${error.message}`);

const router = createRequestRouter(
  'offscreen',
  {
    'offscreen/ping': () => ({ startedAt }),
    'offscreen/status': () => status(),
    'mic/probe': ({ durationMs }) => probeMic(durationMs),
    ...weights.handlers,
    'conversation/start': ({ baseUrl, characterId, models }) =>
      guarded(() => talk().start(baseUrl ?? undefined, characterId, models)),
    'conversation/stop': () => guarded(() => conversation?.stop()),
    'conversation/ptt': ({ down }, { baseUrl, models }) => guarded(() => talk().pushToTalk(down, baseUrl ?? undefined, models)),
    'vision/set': ({ on, baseUrl }) =>
      guarded(() => (on || conversation ? talk().setVision(on, baseUrl ?? undefined) : undefined)),
    'conversation/text': ({ text, characterId }, { baseUrl, models }) =>
      guarded(() => talk().text(text, baseUrl ?? undefined, characterId, models)),
    'vad/probe': ({ durationMs }) => talk().probeVad(durationMs),
    'memory/set': ({ memory }) => {
      conversation?.setMemory(memory);
      return {};
    },
    // The knob walk (tests/e2e/tunables.e2e.ts) reads what this document and each worker hold now.
    'debug/tunables-live': async ({ context }) => {
      const settings = await sendRequest(runtimeSend, 'settings/get', {}, 5_000);
      if (!settings.ok || !settings.data.debugPanel) throw new Error('Reading live tunables needs the debug panel on.');
      if (context === 'offscreen') return snapshotTunables();
      if (context === 'tts-worker') return voices.tts.liveTunables();
      const model = ModelWorkerClient.latest;
      if (!model) throw new Error('the model worker is not running (start a conversation or a VAD probe first)');
      return model.liveTunables();
    },
    'conversation/interrupt': () => guarded(() => conversation?.interrupt()),
    'debug/gpu-stats': () => conversation?.gpuStats() ?? { backend: 'wasm' as const, buffers: 0, bytes: 0 },
    'debug/fault': async ({ fault }) => {
      const settings = await sendRequest(runtimeSend, 'settings/get', {}, 5_000);
      if (!settings.ok || !settings.data.debugPanel)
        throw new Error('Fault injection needs the debug panel (Settings → Models).');
      if (fault === 'lose-gpu') {
        if (!conversation) throw new Error('no conversation is running');
        conversation.loseGpu();
      } else endTracks(fault === 'end-mic' ? 'audio' : 'video');
      return {};
    },
    'conversation/marks': () => conversation?.timeline ?? [],
    'conversation/character': ({ character, greet }) => {
      activeCharacter.set(character);
      if (greet) conversation?.greet();
      return {};
    },
    ...voices.handlers,
  },
  logError,
);

// Only Sidetalk's own pages and worker may command the engine (not a script injected into a web page).
const fromOurPages = (sender: chrome.runtime.MessageSender) =>
  sender.id === chrome.runtime.id && (sender.url ?? '').startsWith(chrome.runtime.getURL(''));

chrome.runtime.onMessage.addListener((raw: unknown, sender, sendResponse) => {
  if (!fromOurPages(sender)) return false;
  const reply = router.handle(raw);
  if (!reply) return false;
  void reply.then(sendResponse);
  return true;
});

// The background owns the tunables: take its values now and every change it broadcasts; the workers follow this
// document's values (model-client.ts, tts-client.ts).
void followTunables(runtimeSend, (onMessage) =>
  chrome.runtime.onMessage.addListener((raw: unknown, sender) => {
    if (fromOurPages(sender)) onMessage(raw);
    return false;
  }),
);

// A held port lets the background see this document die at once; if the worker restarts, reconnect and re-report.
function connect(): void {
  const port = chrome.runtime.connect({ name: 'offscreen' });
  port.onDisconnect.addListener(() => setTimeout(connect, 250));
  void status().then((s) =>
    chrome.runtime.sendMessage(eventMessage('event/offscreen-ready', { status: s })).catch(() => undefined),
  );
}
connect();
