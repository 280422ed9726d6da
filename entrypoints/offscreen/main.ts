import { ChannelAudioSink } from './audio-out';
import {
  checkSender,
  createRequestRouter,
  isAddressedTo,
  senderKind,
  eventMessage,
  followTunables,
  type GpuInfo,
  type OffscreenStatus,
  type ProtocolError,
} from '../../core/protocol';
import { MicCapture } from '../../models/audio/mic-capture';
import { readGpuInfo } from './gpu-info';
import { Conversation } from './conversation';
import { ModelWorkerClient } from './model-client';
import { ActiveCharacter } from './character-state';
import { LanguageModel } from './remote-llm';
import { TranscriptScript } from '../../core/conversation/scripted-transcript';
import { VoiceService } from './voices';
import { createWeights } from './weights';
import { TEST_HOOKS } from '../../core/build-flags';
import { OFFSCREEN_HEARTBEAT_MS } from '../../core/lifecycle/offscreen-keeper';
import { testHookHandlers } from './test-hooks';

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
const mic = new MicCapture(chrome.runtime.getURL('/worklets/mic-framer.js'));
const gpuInfo = readGpuInfo();
let gpuKnown: GpuInfo | null = null;
void gpuInfo.then((info) => (gpuKnown = info));
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
const llm = new LanguageModel(runtimeSend, () => ModelWorkerClient.latest?.lastLlmTokens ?? null);
// The scripted recogniser stand-in: test builds only, read by the conversation's transcriptions (docs/security.md).
const transcriptScript = TEST_HOOKS ? new TranscriptScript() : undefined;
const talk = () =>
  (conversation ??= new Conversation({
    mic,
    modelsReady: weights.complete,
    voices,
    character: activeCharacter,
    llm,
    audio,
    gpu: () => gpuKnown,
    transcriptScript,
  }));

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
    mic: {
      capturing: mic.capturing,
      sampleRate: mic.sampleRate,
      live: liveTracks('audio'),
      ...(mic.lastError ? { error: mic.lastError } : {}),
    },
    camera: { live: liveTracks('video') },
    tts: voices.backendStatus(),
    llm: ModelWorkerClient.latest?.llmDecode ?? null,
    speech: ModelWorkerClient.latest?.status() ?? null,
  };
}

const logError = (error: ProtocolError) => console.warn(`[sidetalk] offscreen rejected message: ${error.code}: ${error.message}`);

const router = createRequestRouter(
  'offscreen',
  {
    'offscreen/ping': () => ({ startedAt }),
    'offscreen/status': () => status(),
    ...weights.handlers,
    'conversation/start': ({ baseUrl, characterId, models }) =>
      guarded(() => talk().start(baseUrl ?? undefined, characterId, models)),
    'conversation/stop': () => guarded(() => conversation?.stop()),
    'conversation/ptt': ({ down }, { baseUrl, models }) => guarded(() => talk().pushToTalk(down, baseUrl ?? undefined, models)),
    'vision/set': ({ on, baseUrl }) =>
      guarded(() => (on || conversation ? talk().setVision(on, baseUrl ?? undefined) : undefined)),
    'conversation/text': ({ text, characterId }, { baseUrl, models }) =>
      guarded(() => talk().text(text, baseUrl ?? undefined, characterId, models)),
    'memory/set': ({ memory, enabled, forgetConversation }) => {
      conversation?.setMemory(memory, enabled, forgetConversation === true);
      return {};
    },
    'conversation/interrupt': () => guarded(() => conversation?.interrupt()),
    'conversation/greet': (_payload, { baseUrl, models }) => guarded(() => talk().greetNow(baseUrl ?? undefined, models)),
    'conversation/character': ({ character, greet }) => {
      activeCharacter.set(character);
      if (greet) conversation?.greet();
      return {};
    },
    ...voices.handlers,
    // Probes, fault injection and the scripted model: test builds only (docs/security.md).
    ...(TEST_HOOKS
      ? testHookHandlers({
          send: runtimeSend,
          mic,
          voices,
          llm,
          transcriptScript: transcriptScript!,
          conversation: () => conversation,
          talk,
          streams,
        })
      : ({} as ReturnType<typeof testHookHandlers>)),
  },
  logError,
);

// Only Sidetalk's own pages and worker may command the engine (not a script injected into a web page), and only the
// background may open the microphone or the camera or forward a relayed request: core/protocol/senders.ts.
const verdictFor = (sender: chrome.runtime.MessageSender, raw: unknown) =>
  checkSender('offscreen', senderKind(sender, { id: chrome.runtime.id, origin: chrome.runtime.getURL('') }), raw);

chrome.runtime.onMessage.addListener((raw: unknown, sender, sendResponse) => {
  // Events (tunables) go to their own listener below; only requests addressed here are answered.
  if ((raw as { kind?: unknown } | null)?.kind === 'event') return false;
  const verdict = verdictFor(sender, raw);
  if (!verdict.accept) {
    if (verdict.answer && isAddressedTo(raw, 'offscreen')) {
      logError(verdict.answer);
      sendResponse({ ok: false, error: verdict.answer });
    }
    return false;
  }
  const reply = router.handle(raw);
  if (!reply) return false;
  void reply.then(sendResponse);
  return true;
});

// The background owns the tunables: take its values now and every change it broadcasts; the workers follow this
// document's values (model-client.ts, tts-client.ts).
void followTunables(runtimeSend, (onMessage) =>
  chrome.runtime.onMessage.addListener((raw: unknown, sender) => {
    if (verdictFor(sender, raw).accept) onMessage(raw);
    return false;
  }),
);

// A held port lets the background see this document die at once; if the worker restarts, reconnect and re-report.
// Its heartbeat tells a busy document (answers late behind its work) from a hung one (docs/architecture.md).
function connect(): void {
  const port = chrome.runtime.connect({ name: 'offscreen' });
  const heartbeat = setInterval(() => port.postMessage({ kind: 'heartbeat' }), OFFSCREEN_HEARTBEAT_MS);
  port.onDisconnect.addListener(() => {
    clearInterval(heartbeat);
    setTimeout(connect, 250);
  });
  void status().then((s) =>
    chrome.runtime.sendMessage(eventMessage('event/offscreen-ready', { status: s })).catch(() => undefined),
  );
}
connect();

// What is capturing is reported as soon as it changes, so the toolbar badge (background) follows within a check.
const CAPTURE_CHECK_MS = 200;
let lastCapture = '';
setInterval(() => {
  const now = `${mic.capturing}|${liveTracks('audio')}|${liveTracks('video')}`;
  if (now === lastCapture) return;
  lastCapture = now;
  void status()
    .then((s) => chrome.runtime.sendMessage(eventMessage('event/offscreen-status', { status: s })))
    .catch(() => undefined);
}, CAPTURE_CHECK_MS);
