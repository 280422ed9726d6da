/**
 * Minimal typings for the parts of @met4citizen/talkinghead 1.7.0 that Sidetalk uses (the package ships none).
 * The API surface the app relies on and its pitfalls: docs/avatar.md.
 */
declare module '@met4citizen/talkinghead/modules/talkinghead.mjs' {
  export interface TalkingHeadOptions {
    lipsyncLang?: string;
    lipsyncModules?: string[];
    modelRoot?: string;
    modelPixelRatio?: number;
    modelFPS?: number;
    cameraView?: 'full' | 'mid' | 'upper' | 'head';
    cameraDistance?: number;
    cameraX?: number;
    cameraY?: number;
    cameraRotateEnable?: boolean;
    cameraPanEnable?: boolean;
    cameraZoomEnable?: boolean;
    dracoEnabled?: boolean;
    avatarMood?: string;
    avatarIdleEyeContact?: number;
    avatarSpeakingEyeContact?: number;
    lightAmbientIntensity?: number;
    lightDirectIntensity?: number;
    lightSpotIntensity?: number;
    avatarOnly?: boolean;
    update?: ((dt: number) => void) | null;
  }
  export interface AvatarSpec {
    url: string;
    body?: 'M' | 'F';
    avatarMood?: string;
    lipsyncLang?: string;
    baseline?: Record<string, number>;
  }
  export interface StreamOptions {
    sampleRate?: number;
    lipsyncType?: 'visemes' | 'words' | 'blendshapes';
    lipsyncLang?: string;
    waitForAudioChunks?: boolean;
    gain?: number;
    mood?: string;
  }
  export interface StreamChunk {
    audio?: Float32Array | Int16Array | ArrayBuffer;
    visemes?: string[];
    vtimes?: number[];
    vdurations?: number[];
    words?: string[];
    wtimes?: number[];
    wdurations?: number[];
  }
  export interface MorphState {
    value: number;
    newvalue: number | null;
    needsUpdate: boolean;
  }
  export class TalkingHead {
    constructor(node: HTMLElement, opt?: TalkingHeadOptions);
    audioCtx: AudioContext;
    audioAnalyzerNode: AnalyserNode;
    audioStreamGainNode: GainNode;
    audioSpeechGainNode: GainNode;
    audioReverbNode: ConvolverNode;
    streamWorkletNode: AudioWorkletNode | null;
    isStreaming: boolean;
    isSpeaking: boolean;
    armature: unknown;
    mtAvatar: Record<string, MorphState>;
    animFrameDur: number;
    lipsync: Record<string, unknown>;
    opt: TalkingHeadOptions;
    showAvatar(avatar: AvatarSpec, onprogress?: ((ev: ProgressEvent) => void) | null): Promise<void>;
    setView(view: 'full' | 'mid' | 'upper' | 'head', opt?: Partial<TalkingHeadOptions>): void;
    setMood(mood: string): void;
    getMood(): string;
    setValue(mt: string, value: number, ms?: number | null): void;
    getValue(mt: string): number;
    setFixedValue(mt: string, value: number | null, ms?: number | null): void;
    lookAtCamera(ms: number): void;
    lookAt(x: number | null, y: number | null, ms: number): void;
    makeEyeContact(ms: number): void;
    playGesture(name: string, dur?: number, mirror?: boolean, ms?: number): void;
    stopGesture(ms?: number): void;
    speakWithHands(delay?: number, prob?: number): void;
    streamStart(
      opt?: StreamOptions,
      onAudioStart?: (() => void) | null,
      onAudioEnd?: (() => void) | null,
      onSubtitles?: ((s: string) => void) | null,
      onMetrics?: ((m: unknown) => void) | null,
    ): Promise<void>;
    streamAudio(r: StreamChunk): void;
    streamNotifyEnd(): void;
    streamInterrupt(): void;
    streamStop(): void;
    stopSpeaking(): void;
    resetLips(): void;
    start(): void;
    stop(): void;
  }
}
