import { draftsAffordable } from '../../core/engine/asr-drafts';
import { ConversationProbes } from './conversation-probes';
import { loadVadWeights } from './vad-weights';
import { feedEngine } from './mic-feed';
import { buildPersonaPrompt, greetingFor } from '../../core/characters/persona-prompt';
import type { Character } from '../../core/characters/character';
import { createResponder, type ResponderDeps } from '../../core/conversation/responder';
import { localRewriteAnswer, rewriteQuery } from '../../core/page/query-rewrite';
import { thesaurusKeywords } from './thesaurus-file';
import { DuplexEngine } from '../../core/engine/duplex-engine';
import { FactMemory } from '../../core/memory/fact-memory';
import { eventMessage, sendRequest, type AudioSink, type GpuInfo, type ModelChoiceValue } from '../../core/protocol';
import { endedWithAudioInFlight, levelHeardAt, PLAYBACK_CHANNEL_NAME, PlaybackMessageSchema } from '../../core/protocol/playback';
import type { MicCapture } from '../../models/audio/mic-capture';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import { GpuLostError, ModelWorkerClient } from './model-client';
import { TurnMarks } from './turn-marks';
import type { ActiveCharacter } from './character-state';
import type { LanguageModel } from './remote-llm';
import type { VoiceService } from './voices';
import type { TranscriptScript } from '../../core/conversation/scripted-transcript';
import { VisionService } from './vision';
import { PageSimilarity } from './page-similarity';
import { PageIndexCache } from '../../core/page/page-index';
import { readActivePage, runToolInBackground } from './background-calls';
import { systemClock } from '../../core/tools/clock';
import type { RemoteReplyDeps } from '../../core/remote-llm';
import { SentenceSpeaker } from './sentence-speaker';
import { PlayedReference } from './played-reference';
import { EchoRecording } from './echo-recording';
import { TEST_HOOKS } from '../../core/build-flags';
import { PushToTalkHold } from '../../core/lifecycle/push-to-talk-hold';
import { realTimers } from '../../core/lifecycle/timers';

const DEFAULT_MODELS: ModelChoiceValue = { asr: 'moonshine', device: 'auto', language: 'en' };
const send = (message: unknown) => chrome.runtime.sendMessage(message);
const emit = (message: unknown) => void send(message).catch(() => undefined);
const notice = (level: 'info' | 'error', message: string) => emit(eventMessage('event/notice', { level, message }));

export interface ConversationOptions {
  mic: MicCapture;
  /** True when every bundle the conversation needs is fully downloaded under `baseUrl`. */
  modelsReady: (bundleIds: string[], baseUrl: string | undefined) => Promise<boolean>;
  /** The one TTS worker (shared with the voice settings) and the stored clones it re-adds after each load. */
  voices: VoiceService;
  /** The active character, kept current by the background. */
  character: ActiveCharacter;
  /** The local model, or the user's model server when one is configured. */
  llm: LanguageModel;
  /** The document's WebGPU adapter, once known (null before): whether ASR drafts are affordable. */
  gpu: () => GpuInfo | null;
  /** Where reply audio goes (the side panel's player); shared with the voice previews. */
  audio: AudioSink;
  /** Test builds: the scripted recogniser stand-in (core/conversation/scripted-transcript.ts); absent in release. */
  transcriptScript?: TranscriptScript;
}

/**
 * The conversation in the offscreen document: microphone → VAD (in script on this thread, so a frame never waits behind
 * model work) → duplex engine → ASR/LLM (model worker) → Pocket TTS (its own worker) → PCM into the audio sink (the side panel's player); playback events come back
 * over a BroadcastChannel. Everything a turn starts observes its one signal; when a turn is interrupted, for whatever
 * reason, its audio is stopped in one place (the `interrupted` stage below).
 */
export class Conversation {
  private readonly models = new ModelWorkerClient();
  private readonly playbackIn = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  /** What the speakers played, for the echo canceller (docs/echo-canceller.md, "The reference"). */
  readonly played = new PlayedReference();
  /** Test builds: the microphone beside that reference, for the canceller run offline (`debug/echo-recording`). */
  readonly echoRecording = TEST_HOOKS ? new EchoRecording(this.played.timeline) : null;
  private readonly memory = new FactMemory();
  private readonly engine: DuplexEngine;
  private readonly marks = new TurnMarks();
  /** Reply sentences into the player, and what of them was handed to it. */
  private readonly speaker: SentenceSpeaker;
  private ready: Promise<unknown>;
  private readonly vadWeights = loadVadWeights(chrome.runtime.getURL('/vad/silero_vad_v5.onnx'));
  private loading: Promise<void> | null = null;
  private loadedFor: string | null = null;
  private stopMicFeed: (() => void) | null = null;
  private language = 'en';
  /** The mirror the models were last loaded from (undefined: the hub). */
  private baseUrl: string | undefined;
  readonly vision: VisionService;
  /** For tests, benches and the debug panel (test builds). */
  readonly probes: ConversationProbes;

  constructor(private readonly options: ConversationOptions) {
    this.speaker = new SentenceSpeaker(
      options.voices,
      options.audio,
      () => this.character,
      (m) => notice('error', m),
    );
    this.vision = new VisionService(
      () => this.models.visionPort(),
      options.modelsReady,
      (m) => notice('error', m),
    );
    // Nothing is learned or used until the user's memory switch is known (Settings → Memory).
    this.memory.enabled = false;
    void Promise.all([sendRequest(send, 'memory/get', {}, 5_000), sendRequest(send, 'settings/get', {}, 5_000)]).then(
      ([memory, settings]) => memory.ok && this.setMemory(memory.data, settings.ok && settings.data.memoryEnabled),
    );
    this.models.onRestart = (ready) => {
      void ready
        .then(() => this.vision.restart())
        .catch((err: unknown) => notice('error', err instanceof Error ? err.message : String(err)));
    };
    this.models.onEvent = (event) => {
      if (event.type === 'backend')
        notice('info', 'The GPU stopped responding, so Sidetalk moved to the CPU. Replies will be slower.');
    };
    // Access revoked or the microphone unplugged: say so and turn hands-free off (the background tells every panel).
    options.mic.onEnded = (message) => {
      notice('error', message);
      void sendRequest(send, 'settings/set', { patch: { handsFree: false } }, 5_000).catch(() => undefined);
    };
    this.ready = this.models.init(chrome.runtime.getURL('/ort/'));
    if (this.echoRecording) options.mic.onFrame((frame) => this.echoRecording?.frame(frame));
    this.vadWeights.catch(() => undefined); // seen by whoever listens first (listen, the VAD probe)
    this.probes = new ConversationProbes({
      models: this.models,
      mic: options.mic,
      vadWeights: this.vadWeights,
      ready: () => this.ready,
      language: () => this.language,
    });
    const similarity = new PageSimilarity({
      embed: (host, texts) => this.models.embed(host, texts),
      modelsReady: options.modelsReady,
      baseUrl: () => this.baseUrl,
      backend: () => this.models.backend,
    });
    // Page indexes are built here in short slices (core/page/page-index.ts) and kept for the next question.
    const pageIndexes = new PageIndexCache(systemClock);
    const emitCard = (card: unknown) =>
      emit(eventMessage('event/card', { card: card as unknown as Record<string, unknown> | null }));
    const generateWith =
      (local: RemoteReplyDeps['local'], onCard: (card: unknown) => void): ResponderDeps['generate'] =>
      (messages, signal, tools) =>
        options.llm.generate(messages, signal, tools, {
          local,
          runTool: (call, s) => runToolInBackground(send, call, s),
          onCard,
        });
    const generate = generateWith((m, s, t) => this.reportFailures(this.models.generate(m, s, t)), emitCard);
    // The rewrite offers no tools, so it has no card to show.
    const rewriteGenerate = generateWith(
      (m, s, t) => localRewriteAnswer(this.models.backend, () => this.reportFailures(this.models.generate(m, s, t))),
      () => undefined,
    );
    const responder = createResponder({
      generate,
      runTool: (call, signal) => runToolInBackground(send, call, signal),
      readPage: () => readActivePage(send),
      systemPrompt: () => buildPersonaPrompt(this.character, { toolsAvailable: true }),
      onCard: emitCard,
      visionAnswer: (text) => this.vision.answerFor(text),
      sceneTag: () => this.vision.sceneTag(),
      pageSimilarity: (page, question, signal) => similarity.scores(page, question, signal),
      pageIndex: (text, signal) => pageIndexes.indexFor(text, signal),
      rewriteQuery: (q, signal) =>
        rewriteQuery(q, signal, { generate: rewriteGenerate, clock: systemClock, thesaurus: thesaurusKeywords }),
    });
    this.engine = new DuplexEngine({
      clock: { now: () => performance.now(), date: () => new Date() },
      // Unique to this document: the side panel outlives it and remembers stopped turns by id.
      turnIdPrefix: `${crypto.randomUUID().slice(0, 8)}.`,
      memory: this.memory,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      stages: {
        transcribe: async (pcm, signal, draft) => {
          const out = await this.models.transcribe(pcm, signal, this.language, draft);
          const text = options.transcriptScript?.heard(out.text, performance.now()) ?? out.text;
          return { text, confidence: out.confidence ?? 1, draft: out.ids, draftAccepted: out.draftAccepted };
        },
        // Drafts while the user speaks only where the speech models run on a hardware GPU (core/engine/asr-drafts.ts).
        draftsAffordable: () => draftsAffordable(this.models.backend, options.gpu()),
        // Without the end-of-turn model (not downloaded yet) the engine ends turns on silence and wording alone.
        endOfTurn: (pcm, signal) =>
          this.models.loaded.has('turn')
            ? this.models.endOfTurn(pcm, signal)
            : Promise.reject(new Error('the end-of-turn model is not loaded')),
        respond: (turn, signal) => responder.respond(turn, signal),
        route: (turn) => responder.route(turn),
        speak: (sentence, signal, meta) => {
          options.transcriptScript?.spoke(sentence, meta.index === 0);
          return this.speaker.speak(sentence, signal, meta);
        },
        audioComplete: (turnId) => options.audio.end(turnId),
        playedSentences: (turnId) => this.speaker.sentenceAudio.sentences(turnId),
        replyAudio: (turnId, range) => this.speaker.replyAudio.audio(turnId, range),
      },
    });
    this.engine.on((event) => {
      if (event.type === 'state') emit(eventMessage('event/engine-state', { state: event.state }));
      else if (event.type === 'caption') {
        const { role, text, final, turnId, replaces } = event;
        emit(eventMessage('event/caption', { role, text, final, turnId, ...(replaces ? { replaces } : {}) }));
        // The engine observes the user's words for facts right after their caption: report what it now remembers.
        if (event.role === 'user') queueMicrotask(() => this.reportMemory());
      } else {
        this.marks.add(event);
        this.vision.onTurnEvent(event);
        if (event.stage === 'interrupted') options.audio.stop(event.turnId);
        if (event.stage === 'barge-tentative') options.audio.pause(event.turnId, true);
        if (event.stage === 'barge-released') options.audio.pause(event.turnId, false);
      }
    });
    this.playbackIn.onmessage = (e: MessageEvent) => {
      const parsed = PlaybackMessageSchema.safeParse(e.data);
      if (!parsed.success) return console.warn('[sidetalk] rejected playback message:', parsed.error.issues[0]?.message);
      const p = parsed.data;
      if (p.type === 'played') return this.played.add(p);
      if (p.type === 'ended') return this.engine.onPlayback(endedWithAudioInFlight(p, options.audio));
      if (p.type !== 'level') return this.engine.onPlayback(p);
      const at = levelHeardAt(p, performance.timeOrigin, performance.now());
      this.engine.onPlayback({ type: 'level', rms: p.rms, ...(at === undefined ? {} : { at }) });
    };
  }

  private lastMemory = '';

  private reportMemory(): void {
    const memory = this.memory.toJSON();
    const json = JSON.stringify(memory.facts);
    if (json === this.lastMemory) return;
    this.lastMemory = json;
    emit(eventMessage('event/memory', { memory }));
  }

  /**
   * What the user asked to keep or forget, from the background's store, and whether memory is switched on;
   * `forgetConversation` ("Forget everything"): the conversation kept for the model goes too.
   */
  setMemory(data: unknown, enabled: boolean, forgetConversation = false): void {
    if (forgetConversation) this.engine.forgetConversation();
    this.memory.enabled = enabled;
    this.memory.load(data);
    this.lastMemory = JSON.stringify(this.memory.toJSON().facts);
  }

  /** Test builds: the speakers' audio as the panel reported it, against the turn's audio as sent to the player. */
  playedReferenceCheck(turnId: string) {
    return this.played.check(this.speaker.replyAudio.tail(turnId));
  }

  get timeline() {
    return this.marks.list();
  }

  /** Both barge gates' frames since the last call (kept while `engine.traceGateFrames` is on). */
  takeGateFrames(): number[][] {
    return this.engine.gateFrames.take();
  }

  private get character(): Character {
    return this.options.character.current;
  }

  private useCharacter(id?: string): void {
    this.options.character.use(id);
  }

  /** After a switch: the new character says its greeting, if the models are loaded (else it greets nobody). */
  greet(): void {
    const greeting = greetingFor(this.character);
    if (greeting && this.loadedFor !== null) this.engine.say(greeting.caption);
  }

  /**
   * The end of the first-run welcome (docs/onboarding.md): load the models now, then the active character says its
   * greeting aloud (a plain hello when it has none).
   */
  async greetNow(baseUrl: string | undefined, models?: ModelChoiceValue): Promise<void> {
    await this.ensureModels(baseUrl, models);
    this.engine.say(greetingFor(this.character)?.caption ?? "Hi, I'm ready. What can I do for you?");
  }

  /**
   * Loads ASR + LLM + TTS from the weights cache; again only when the mirror, the ASR model or the backend changed.
   * A clear error when something is not downloaded yet.
   */
  private async ensureModels(baseUrl: string | undefined, models: ModelChoiceValue = DEFAULT_MODELS): Promise<void> {
    this.language = models.language;
    this.baseUrl = baseUrl;
    const key = JSON.stringify([baseUrl ?? '', models.asr, models.device]);
    await this.loading?.catch(() => undefined);
    if (this.loadedFor === key) return this.addTurnModel(baseUrl, models);
    this.loading = (async () => {
      await this.ready;
      const asr = ASR_BUNDLES[models.asr];
      const ids = [asr.id, LLM_BUNDLE.id, TTS_BUNDLE.id];
      if (!(await this.options.modelsReady(ids, baseUrl))) {
        throw new Error('The voice models are not downloaded yet. Open Settings → Models and download them.');
      }
      emit(eventMessage('event/engine-state', { state: 'idle', detail: 'Loading the models…' }));
      const host = baseUrl ?? 'https://huggingface.co';
      const device = models.device === 'wasm' ? 'wasm' : undefined;
      // The end-of-turn model is optional: installs from before it existed keep working without it.
      const withTurn = await this.options.modelsReady([TURN_BUNDLE.id], baseUrl);
      await this.models.load(`${host}/`, models.asr, withTurn ? ['asr', 'llm', 'turn'] : ['asr', 'llm'], device);
      await this.options.voices.ensureLoaded(baseUrl);
      this.loadedFor = key;
      emit(
        eventMessage('event/engine-state', {
          state: this.engine.state,
          detail: `Models ready (${this.models.backend === 'webgpu' ? 'WebGPU' : 'CPU'})`,
        }),
      );
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** The end-of-turn model downloaded after the others were loaded: load it alone (optional, never an error). */
  private async addTurnModel(baseUrl: string | undefined, models: ModelChoiceValue): Promise<void> {
    if (this.models.loaded.has('turn') || !(await this.options.modelsReady([TURN_BUNDLE.id], baseUrl))) return;
    const host = baseUrl ?? 'https://huggingface.co';
    await this.models.load(`${host}/`, models.asr, ['turn']).catch(() => undefined);
  }

  private handsFree = false;
  /** The push-to-talk hold as this document sees it: ends on key-up, on stop, or at the cap (listening.pttMaxHoldMs). */
  private readonly ptt = new PushToTalkHold(realTimers, () => void this.endTalk());

  async start(baseUrl: string | undefined, characterId?: string, models?: ModelChoiceValue): Promise<void> {
    this.handsFree = true;
    try {
      await this.listen(baseUrl, characterId, models);
    } catch (err) {
      // Hands-free did not start (the background turns its switch back off): push-to-talk must not stay ignored.
      this.handsFree = false;
      throw err;
    }
  }

  /** Push-to-talk: held → listen; released → the turn ends now (unless hands-free is on, which keeps listening). */
  async pushToTalk(down: boolean, baseUrl: string | undefined, models?: ModelChoiceValue): Promise<void> {
    if (this.handsFree) return;
    if (!down) {
      this.ptt.release('released');
      return this.releasing ?? undefined;
    }
    this.ptt.press();
    await this.listen(baseUrl, undefined, models);
    // Let go (or capped) while the models loaded: the release already ran, and must win over this late start.
    if (!this.ptt.held && !this.handsFree) await this.endTalk();
  }

  private releasing: Promise<void> | null = null;

  /** The end of a push-to-talk hold, however it ended: the turn ends now and the microphone closes. */
  private endTalk(): Promise<void> {
    // A frame after the release would reopen the turn as a "merge": the feed stops first.
    this.stopMicFeed?.();
    this.stopMicFeed = null;
    this.engine.releaseTalk();
    this.releasing = this.options.mic.stop().finally(() => (this.releasing = null));
    return this.releasing;
  }

  private async listen(baseUrl: string | undefined, characterId?: string, models?: ModelChoiceValue): Promise<void> {
    if (characterId) this.useCharacter(characterId);
    await this.ensureModels(baseUrl, models);
    const weights = await this.vadWeights;
    await this.options.mic.start();
    this.stopMicFeed ??= feedEngine(this.options.mic, weights, this.engine, this.options.audio);
    this.engine.start();
  }

  /** Vision needs the model worker (the detector runs there) but not the speech models. */
  async setVision(on: boolean, baseUrl: string | undefined): Promise<void> {
    await this.ready;
    if (on) await this.vision.start(baseUrl);
    else await this.vision.stop();
  }

  async stop(): Promise<void> {
    this.handsFree = false;
    this.ptt.clear();
    this.stopMicFeed?.();
    this.stopMicFeed = null;
    this.engine.stop();
    await this.options.mic.stop();
  }

  async text(text: string, baseUrl: string | undefined, characterId?: string, models?: ModelChoiceValue): Promise<void> {
    this.useCharacter(characterId);
    await this.ensureModels(baseUrl, models);
    this.engine.submitText(text);
  }

  interrupt(): void {
    this.engine.interrupt();
  }

  /** A failing model stream ends the reply (the engine says a short line); the user also sees why. */
  private async *reportFailures(stream: AsyncIterable<string>): AsyncGenerator<string> {
    try {
      yield* stream;
    } catch (err) {
      console.warn('[sidetalk] the language model failed:', err);
      // A GPU loss mid-reply has its own notice (the reply ends; the next one runs on the CPU): keep that one showing.
      if (!(err instanceof GpuLostError) && !this.models.recovering)
        notice('error', 'The language model stopped before it finished.');
      throw err;
    }
  }
}
