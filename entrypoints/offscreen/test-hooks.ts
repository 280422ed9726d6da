import { sendRequest, type Handlers, type Send } from '../../core/protocol';
import { ScriptedModel } from '../../core/conversation/scripted-model';
import type { TranscriptScript } from '../../core/conversation/scripted-transcript';
import { GATE_FRAME_COLUMNS } from '../../core/engine/gate-frames';
import { snapshotTunables } from '../../core/tunables';
import type { MicCapture } from '../../models/audio/mic-capture';
import type { Conversation } from './conversation';
import { ModelWorkerClient } from './model-client';
import type { LanguageModel } from './remote-llm';
import type { VoiceService } from './voices';
import { offscreenTrace } from './turn-trace';

/**
 * The offscreen document's test hooks: probes, fault injection and the scripted model stand-in. main.ts spreads them
 * in only when `TEST_HOOKS` is on, so the release build has none of this code (docs/security.md, "Test hooks and
 * the release build"). Whatever could change what the product does is refused unless the debug panel is on.
 */
export interface TestHookDeps {
  send: Send;
  mic: MicCapture;
  voices: VoiceService;
  llm: LanguageModel;
  /** The scripted recogniser stand-in the conversation reads (core/conversation/scripted-transcript.ts). */
  transcriptScript: TranscriptScript;
  /** The conversation if one was started (probes must not start the models). */
  conversation(): Conversation | null;
  /** The conversation, started if needed. */
  talk(): Conversation;
  /** Every stream this document opened, so a fault can end its tracks. */
  streams: Set<WeakRef<MediaStream>>;
}

type TestHookHandlers = Pick<
  Handlers<'offscreen'>,
  | 'mic/probe'
  | 'vad/probe'
  | 'debug/tunables-live'
  | 'debug/gpu-stats'
  | 'debug/fault'
  | 'debug/asr-probe'
  | 'debug/llm-probe'
  | 'conversation/marks'
  | 'debug/gate-frames'
  | 'debug/turn-trace'
  | 'debug/llm-script'
  | 'debug/asr-script'
  | 'debug/llm-log'
  | 'debug/played-reference'
  | 'debug/echo-recording'
>;

/** What Chrome does when access is revoked or a device is unplugged: the track ends and says so. */
function endTracks(streams: TestHookDeps['streams'], kind: 'audio' | 'video'): void {
  for (const ref of streams) {
    for (const track of ref.deref()?.getTracks() ?? []) {
      if (track.kind !== kind || track.readyState !== 'live') continue;
      track.stop();
      track.dispatchEvent(new Event('ended'));
    }
  }
}

async function probeMic(mic: MicCapture, durationMs: number) {
  const wasCapturing = mic.capturing;
  let frames = 0;
  let peak = 0;
  let sumSquares = 0;
  let samples = 0;
  const frameRms: number[] = [];
  const off = mic.onFrame((frame) => {
    frames += 1;
    frameRms.push(frame.rms);
    peak = Math.max(peak, frame.rms);
    sumSquares += frame.rms * frame.rms * frame.samples.length;
    samples += frame.samples.length;
  });
  try {
    await mic.start();
    const sampleRate = mic.sampleRate ?? 0;
    await new Promise((r) => setTimeout(r, durationMs));
    return { sampleRate, frames, peakRms: peak, meanRms: samples ? Math.sqrt(sumSquares / samples) : 0, frameRms };
  } finally {
    off();
    if (!wasCapturing) await mic.stop();
  }
}

export function testHookHandlers(deps: TestHookDeps): TestHookHandlers {
  async function requireDebugPanel(what: string): Promise<void> {
    const settings = await sendRequest(deps.send, 'settings/get', {}, 5_000);
    if (!settings.ok || !settings.data.debugPanel) throw new Error(`${what} needs the debug panel (Settings → Models).`);
  }

  return {
    'mic/probe': ({ durationMs }) => probeMic(deps.mic, durationMs),
    'vad/probe': ({ durationMs }) => deps.talk().probes.vad(durationMs),
    // The knob walk (tests/e2e/tunables.e2e.ts) reads what this document and each worker hold now.
    'debug/tunables-live': async ({ context }) => {
      await requireDebugPanel('Reading live tunables');
      if (context === 'offscreen') return snapshotTunables();
      if (context === 'tts-worker') return deps.voices.tts.liveTunables();
      const model = ModelWorkerClient.latest;
      if (!model) throw new Error('the model worker is not running (start a conversation or a VAD probe first)');
      return model.liveTunables();
    },
    'debug/gpu-stats': () => deps.conversation()?.probes.gpuStats() ?? { backend: 'wasm' as const, buffers: 0, bytes: 0 },
    'debug/asr-probe': async ({ seconds, toneHz, withTurnCheck }) => {
      await requireDebugPanel('The speech recognition probe');
      const conversation = deps.conversation();
      if (!conversation) throw new Error('no conversation is running');
      const pcm = new Float32Array(Math.round(seconds * 16_000));
      if (toneHz !== null) for (let i = 0; i < pcm.length; i++) pcm[i] = 0.3 * Math.sin((2 * Math.PI * toneHz * i) / 16_000);
      return conversation.probes.asr(pcm, withTurnCheck ?? false);
    },
    'debug/llm-probe': async ({ question }) => {
      await requireDebugPanel('The language model probe');
      const conversation = deps.conversation();
      if (!conversation) throw new Error('no conversation is running');
      return conversation.probes.llm(question);
    },
    'debug/fault': async ({ fault }) => {
      await requireDebugPanel('Fault injection');
      if (fault === 'lose-gpu') {
        const conversation = deps.conversation();
        if (!conversation) throw new Error('no conversation is running');
        conversation.probes.faultModelWorker('lose-gpu');
      } else if (fault === 'hold-model-worker') deps.talk().probes.faultModelWorker('hold');
      else endTracks(deps.streams, fault === 'end-mic' ? 'audio' : 'video');
      return {};
    },
    'conversation/marks': () => deps.conversation()?.timeline ?? [],
    'debug/gate-frames': async () => {
      await requireDebugPanel('The gate frame log');
      const rows = deps.conversation()?.takeGateFrames() ?? [];
      return { columns: [...GATE_FRAME_COLUMNS], rows, clockToWallMs: Date.now() - performance.now() };
    },
    'debug/turn-trace': async () => {
      await requireDebugPanel('The turn trace');
      return offscreenTrace?.export(deps.conversation()?.timeline ?? []) ?? { clocks: [], stamps: [] };
    },
    'debug/llm-script': async ({ rules }) => {
      await requireDebugPanel('The scripted model');
      deps.llm.script = rules.length > 0 ? new ScriptedModel(rules) : null;
      return {};
    },
    'debug/asr-script': async ({ text, forMs, otherwise }) => {
      await requireDebugPanel('The scripted recogniser');
      const replaced = deps.transcriptScript.used;
      deps.transcriptScript.set(text, performance.now(), forMs, otherwise ?? null);
      return { replaced };
    },
    'debug/llm-log': () => deps.llm.log.map((e) => ({ ...e })),
    'debug/echo-recording': async ({ seconds }) => {
      await requireDebugPanel('The echo recording');
      const recording = deps.conversation()?.echoRecording;
      if (!recording) throw new Error('No conversation has started.');
      return { ...recording.take(seconds), clockToWallMs: Date.now() - performance.now() };
    },
    'debug/played-reference': async ({ turnId }) => {
      await requireDebugPanel('The played-audio reference');
      const conversation = deps.conversation();
      if (!conversation) throw new Error('No conversation has started.');
      return conversation.playedReferenceCheck(turnId);
    },
  };
}
