import { registerTunables } from './registry';

// Sections of the conversation itself: the duplex engine's turn-taking policy and sentence chunking.

// ---------------------------------------------------------------------------------------------------------------
// engine: the duplex conversation policy (core/engine). Times in ms, levels are RMS of [-1, 1] audio, probabilities
// are Silero's. Frame = 512 samples at 16 kHz = 32 ms.
// ---------------------------------------------------------------------------------------------------------------
export const engineTunables = registerTunables(
  'engine',
  {
    /** Silero P(speech) that counts a frame as voiced (hysteresis: on above this, off below `vadOff`). */
    vadOn: 0.5,
    vadOff: 0.35,
    /** Consecutive voiced frames that open an utterance (2 × 32 ms). */
    onsetFrames: 2,
    /** Frames of audio kept before the onset frame and handed to ASR with the utterance. */
    preRollMs: 320,
    /** Phantom guard: an utterance needs at least this many frames with P(speech) > vadOn. */
    minVoicedFrames: 4,
    /** Utterances shorter than this (onset → end of speech) are dropped as noise. */
    minSpeechMs: 300,
    /**
     * Quiet after the last voiced frame at which ASR starts speculatively; with an end-of-turn model, not before its
     * question for the pause has been sent. Audio after the last voiced frame is silence, so this transcript is the
     * final one unless the user resumes. 64 ms measured better in the simulated budget but queued speculative ASR
     * behind itself under load in the browser (docs/turn-taking.md, "Speculation").
     */
    tentativeEndpointMs: 160,
    /**
     * Where ASR drafts run (the speech models on a hardware GPU, keeping up), the speculative ASR starts after this much
     * quiet without waiting for the end-of-turn question: model runs there are tens of ms, so a question queued behind
     * one waits little (H200 pause probe: 18.6 ms against 15.9 alone with the transcription 64 ms ahead), while the
     * transcript arrives 64 ms sooner (docs/turn-taking.md, "Speculation").
     */
    earlyTentativeEndpointMs: 96,
    /**
     * Trailing silence from which the LLM may start speculatively (held unspoken) on a complete-sounding transcript.
     * Later than the ASR: Silero dips for a frame or two inside phrases, and an LLM started on "I want" is real work
     * thrown away; a dip inside a phrase rarely lasts six frames.
     */
    speculativeReplyMs: 192,
    /**
     * While the user speaks, the utterance so far is transcribed after every this much voiced audio, each time with the
     * last transcript as the recognizer's draft, so the transcription at the endpoint decodes only the newest words
     * (docs/turn-taking.md, "ASR drafts"). Only where the speech models run on a hardware GPU (on SwiftShader, drafts
     * during speech starved the voice detection that shares the model worker); 0 turns drafts off.
     */
    asrDraftEveryMs: 480,
    /** Endpoint after a complete-sounding phrase ("…in Paris?"). */
    endpointCompleteMs: 448,
    /** Endpoint when the transcript is not known yet or sounds neutral. */
    endpointSilenceMs: 640,
    /** Endpoint after a trailing "and / so / um / because …": the user is mid-thought. */
    endpointTrailingMs: 1400,
    /** Trailing silence at which the end-of-turn model (Smart Turn) is asked whether the user has finished. */
    turnCheckMs: 160,
    /** The end-of-turn model's P(complete) at or above which the turn ends as soon as it answers. */
    turnCompleteProbability: 0.5,
    /** Silence that ends the turn anyway when the end-of-turn model said "not finished" (a long thinking pause). */
    endpointTurnIncompleteMs: 1600,
    /** Force an endpoint on a monologue this long (ASR windows are ~30 s). */
    maxUtteranceMs: 28000,
    /** Below this ASR confidence (0..1, e.g. exp(mean token log-prob)) ask the user to repeat. */
    asrMinConfidence: 0.6,
    /** Speech that resumes within this window after an endpoint and before any reply audio merges into one turn. */
    mergeWindowMs: 1500,
    /** Minimum mic RMS for a resumption to count (VAD alone fires on breaths and clicks). */
    resumeMinRms: 0.01,
    /**
     * Speech that begins once the reply's audio is queued at the player, before the player said it started, may be
     * that audio's echo (the side panel's thread reports late on a busy machine): it is taken as the user resuming
     * only if it still holds `minVoicedFrames` after this long, and not at all if the start arrives first (docs/echo.md,
     * "A start the player reports late"). The room traces had the panel's reports up to ~310 ms apart.
     */
    resumeGraceMs: 500,
    /** Playback level (RMS of what the side panel plays) above which the assistant is audible. */
    playbackAudibleRms: 0.01,
    /** Audible frames used to calibrate the echo floor at the start of each reply. */
    echoCalibFrames: 5,
    /** Barge-in: mic RMS must exceed max(bargeMinRms, bargeRatio × expected echo) … */
    bargeMinRms: 0.02,
    bargeRatio: 2.0,
    /**
     * Once a reply nobody talked over has been measured, the floor is this many times the level the canceller's
     * residual sustained over an onset run in the last `residualReplies` such replies (of at least `residualMinFrames`
     * frames), never under `bargeLearnedMinRms` (docs/echo.md, "The measured floor"). 1: the floor describes the room
     * as the last reply found it. At 3 (the largest of three), a louder room's floor stayed over the voice in the
     * quieter rooms after it: in the 24-room grid of 2026-12-07, 7 of its 13 missed interruptions stood under a floor
     * of 0.07–0.25 RMS, 2.8–25× what that room's own reply before would have left (bench/room/floor-carry.ts), over a
     * voice of ~0.1 at its loudest.
     */
    bargeResidualMargin: 2.5,
    bargeLearnedMinRms: 0.01,
    residualReplies: 1,
    residualMinFrames: 60,
    /**
     * A reply's level is the loudest it sustained, but at most `residualPeakOverRank` times its `residualWindowRank`-th
     * loudest window of `residualWindowFrames` (31 × 32 ms ≈ 1 s): a voice the gates missed (a phrase of 1–3 s, three
     * windows at most when under 2 s) is not learned at its own level, while an echo that grew (loud across the reply)
     * still is. In the room sweep 06b the echo's loudest level was 1.06–2.07× its fourth window's in 32 of the 34
     * replies whose residual left the learned minimum; the fourth window alone (no cap) lowered the floors and held 11
     * silent replies in sweep 06a (docs/echo.md, "A missed voice"). Rank 1: the loudest level anywhere, as before
     * 2026-12-06.
     */
    residualWindowFrames: 31,
    residualWindowRank: 4,
    residualPeakOverRank: 2,
    /**
     * 1: the unprocessed track (captured for this) also opens a barge-in, through its own gate; the echo handling
     * stays on the processed track. On: in two room sweeps it missed 1 of 36 interruptions against 5 of 18 without,
     * with no false barge-in in either (docs/echo.md, "Both tracks gate a barge-in"). Read when capture starts.
     */
    bargeFromUnprocessed: 1,
    /**
     * 1: until the unprocessed gate has measured its floor (the session's first reply), a processed frame is a barge
     * candidate only if the unprocessed frame is over `bargeResidualMargin` × what the reply's echo sustained there so
     * far; in the room rig the canceller's residual held and cut first replies through the fixed floor (docs/echo.md,
     * "The first reply in a loud room"). Needs `bargeFromUnprocessed`.
     */
    bargeFirstReplyCrossCheck: 1,
    /**
     * A gate whose floor is stale (this reply's echo has sustained more than this many times the level the floor was
     * measured at, judged from before the gate's run: the speakers turned up) holds the reply only where the other
     * track's frame is also over the echo that track has sustained this reply; 0 turns it off (docs/echo.md, "The
     * speakers turned up"). Needs `bargeFromUnprocessed`.
     */
    bargeStaleFloorRatio: 2,
    /**
     * 1: on the reply right after speech cut the last one, a processed frame is a barge candidate only if the
     * unprocessed frame is over that track's measured floor (or what this reply's echo sustained there, if more). In the
     * room sweeps Chrome's canceller left a median 2.9× more residual at the start of that reply than on the cut one,
     * and held it once through the processed gate's floor (docs/echo.md, "The reply after an interruption"); and
     * that reply's processed residual is not learned into the floor (it would lift it for the next three replies).
     * Needs `bargeFromUnprocessed`.
     */
    bargeAfterCutCrossCheck: 1,
    /**
     * 1: once the unprocessed gate has measured its floor, the first frame of a processed run is a barge candidate
     * only if the unprocessed frame is over that floor (asked of every frame, it broke a voice's runs in sweep 06j and
     * the simulator: the voice's later syllables fall under that floor in a loud room). In the room sweeps 06e and
     * 06f every hold of a reply nobody talked over (8) was a processed run through the processed floor at its learned
     * minimum (0.010, −10 dB rooms: the canceller's residual in bursts) with the unprocessed frames under their floor;
     * tried on both sweeps' frame logs, the rule holds none of them and every interruption as soon as before
     * (docs/echo.md, "A burst the canceller let through"). Needs `bargeFromUnprocessed`.
     */
    bargeProcessedOverRawFloor: 1,
    /**
     * A run of frames that both tracks' gates took for speech over the reply holds it after this many frames, before
     * `bargeFrames` (docs/echo.md, "Both tracks at once"); 0 turns it off. Needs `bargeFromUnprocessed`. 2: in the
     * room sweep the echo's longest such run was one frame (it held a reply at 1), and frames reach the engine in
     * bursts, so 3 cost little more than 2 when it came (room sweeps 05i–05k).
     */
    bargeJointFrames: 2,
    /**
     * A microphone frame handled later than this after its capture skips the unprocessed track's VAD: the feed is
     * behind real time (a busy CPU), and that second VAD is the work it can drop. Without it, on 2 loaded cores the
     * backlog grew without bound and the offscreen document stopped answering for a minute (docs/echo.md).
     */
    unprocessedVadMaxLagMs: 250,
    /**
     * 1: every microphone frame during a reply is kept with both gates' judgement (core/engine/gate-frames.ts) for
     * the room sweep to read (`debug/gate-frames`); 0: nothing is kept.
     */
    traceGateFrames: 0,
    /** … with P(speech) > vadOn for this many consecutive frames (5 × 32 ms = 160 ms). */
    bargeFrames: 5,
    /**
     * … which only holds the reply (paused where it is); it interrupts once this many frames were voiced over the
     * gate (14 × 32 ms ≈ 450 ms), and a burst that goes quiet for `bargeReleaseFrames` first was a backchannel
     * ("mm-hm", "yeah", a cough): the reply goes on from where it was held (docs/echo.md, "Holding the reply").
     */
    bargeConfirmFrames: 14,
    bargeReleaseFrames: 8,
    /**
     * Speech that has lasted `bargeConfirmFrames` is checked by its words so far before it interrupts: listener tokens
     * ("mm-hm", "yeah, yeah, right") keep the reply held, and are checked again every `bargeRecheckFrames` voiced
     * frames, until the speech has lasted this many (40 × 32 ms ≈ 1.3 s), when it interrupts whatever it says. A long
     * "mm-hm" (0.8 s in the room rig) is longer than the confirm (docs/echo.md, "A backchannel longer than the
     * confirm"). At or under `bargeConfirmFrames`: no word check, the length alone interrupts.
     */
    bargeBackchannelMaxFrames: 40,
    bargeRecheckFrames: 8,
    /**
     * The side panel lets a held reply go on by itself after this long (ms): the engine decides within ~1 s, so this
     * only matters when its word never comes (the microphone died mid-decision).
     */
    bargeHoldMaxMs: 4000,
    /** Playback level is looked back over this window to cover the speaker → mic delay. */
    echoTailMs: 160,
    /** The longest speaker → microphone delay the echo path looks for (docs/echo.md). */
    echoMaxDelayMs: 2000,
    /** After a reply, its echo's tail (reverb) may last this long beyond the path's delay (docs/echo.md). */
    echoDecayMs: 500,
    /**
     * 1: after a reply, a frame opens an utterance only if it is also louder than `bargeRatio` × the echo the
     * unprocessed track's path expects then: Chrome's canceller lets the tail through about as loud as it is in the
     * room (docs/echo.md, "The tail as loud as the room"). Needs `bargeFromUnprocessed` (its gate learns that path).
     */
    echoTailFromUnprocessed: 1,
    /** The echo path is trusted once playback and microphone envelopes correlate this well at one delay. */
    echoMinCorrelation: 0.6,
    /**
     * An utterance opening right after a reply whose microphone envelope correlates this well with the reply's own
     * playback at the learned delay is the reply's echo, whatever the recogniser makes of it (docs/echo.md, "The echo
     * of the reply's end").
     */
    echoTailMinLikeness: 0.7,
    /**
     * An utterance right after a reply in which the reply's exact audio is found this clearly (GCC-PHAT peak over its
     * spread, in its first second), and whose speech ends at most `echoMatchOverrunMs` after that echo does, is the
     * reply's echo (docs/echo.md, "Matching the reply's audio"). 0 turns the check off.
     */
    echoMatchMinScore: 25,
    echoMatchOverrunMs: 200,
    /**
     * Speech over the reply in which the reply's exact audio near the played position is found this clearly (from its
     * onset) is the reply's own echo: it holds the reply at most, and is never read as words (docs/echo.md, "Matching
     * a burst over the reply"). 0 turns the check off. `bargeEchoSlackMs`: how much further back than the longest echo
     * delay the reply's audio is searched (underruns, a capture queue).
     */
    bargeEchoMatchMinScore: 20,
    bargeEchoSlackMs: 3000,
    /** Mic audio kept before a barge-in onset and used as the start of the next utterance. */
    bargePreRollMs: 1200,
    /** A turn that makes no progress (no delta, no sentence, no playback event) for this long is aborted. */
    stallMs: 15000,
    /** A finished background task is spoken once the user has been silent this long. */
    deliverAfterSilenceMs: 600,
    /** Number of past messages (user + assistant) handed to `respond`. */
    historyMessages: 8,
    /**
     * After an interruption, a word of the sentence that was playing counts as heard once this share of its estimated
     * time span has played (docs/interruptions.md).
     */
    heardWordShare: 0.5,
  },
  {
    vadOn: { min: 0.05, max: 0.99 },
    vadOff: { min: 0.01, max: 0.99 },
    onsetFrames: { min: 1, max: 20, integer: true },
    preRollMs: { min: 0, max: 2000 },
    minVoicedFrames: { min: 1, max: 50, integer: true },
    minSpeechMs: { min: 0, max: 3000 },
    tentativeEndpointMs: { min: 32, max: 2000 },
    earlyTentativeEndpointMs: { min: 32, max: 2000 },
    speculativeReplyMs: { min: 32, max: 2000 },
    asrDraftEveryMs: { min: 0, max: 10_000 },
    endpointCompleteMs: { min: 96, max: 5000 },
    endpointSilenceMs: { min: 96, max: 5000 },
    endpointTrailingMs: { min: 96, max: 8000 },
    turnCheckMs: { min: 32, max: 2000 },
    turnCompleteProbability: { min: 0, max: 1 },
    endpointTurnIncompleteMs: { min: 96, max: 8000 },
    maxUtteranceMs: { min: 1000, max: 60000 },
    asrMinConfidence: { min: 0, max: 1 },
    mergeWindowMs: { min: 0, max: 10000 },
    resumeMinRms: { min: 0, max: 1 },
    resumeGraceMs: { min: 0, max: 5000 },
    playbackAudibleRms: { min: 0, max: 1 },
    echoCalibFrames: { min: 1, max: 100, integer: true },
    bargeMinRms: { min: 0, max: 1 },
    bargeRatio: { min: 1, max: 20 },
    bargeResidualMargin: { min: 1, max: 10 },
    bargeLearnedMinRms: { min: 0, max: 1 },
    residualReplies: { min: 1, max: 20, integer: true },
    residualMinFrames: { min: 1, max: 1000, integer: true },
    residualWindowFrames: { min: 1, max: 1000, integer: true },
    residualWindowRank: { min: 1, max: 50, integer: true },
    residualPeakOverRank: { min: 1, max: 100 },
    bargeFromUnprocessed: { min: 0, max: 1, integer: true },
    bargeFirstReplyCrossCheck: { min: 0, max: 1, integer: true },
    bargeStaleFloorRatio: { min: 0, max: 20 },
    bargeAfterCutCrossCheck: { min: 0, max: 1, integer: true },
    bargeProcessedOverRawFloor: { min: 0, max: 1, integer: true },
    bargeJointFrames: { min: 0, max: 20, integer: true },
    unprocessedVadMaxLagMs: { min: 0, max: 5000, integer: true },
    traceGateFrames: { min: 0, max: 1, integer: true },
    bargeFrames: { min: 1, max: 50, integer: true },
    bargeConfirmFrames: { min: 1, max: 100, integer: true },
    bargeReleaseFrames: { min: 1, max: 100, integer: true },
    bargeBackchannelMaxFrames: { min: 1, max: 200, integer: true },
    bargeRecheckFrames: { min: 1, max: 100, integer: true },
    bargeHoldMaxMs: { min: 500, max: 30_000 },
    echoTailMs: { min: 0, max: 2000 },
    echoTailFromUnprocessed: { min: 0, max: 1, integer: true },
    echoMaxDelayMs: { min: 0, max: 4000 },
    echoMinCorrelation: { min: 0, max: 1 },
    echoTailMinLikeness: { min: 0, max: 1 },
    echoMatchMinScore: { min: 0, max: 1000 },
    echoMatchOverrunMs: { min: 0, max: 3000 },
    bargeEchoMatchMinScore: { min: 0, max: 1000 },
    bargeEchoSlackMs: { min: 0, max: 10000 },
    echoDecayMs: { min: 0, max: 3000 },
    bargePreRollMs: { min: 0, max: 5000 },
    stallMs: { min: 1000, max: 120000 },
    deliverAfterSilenceMs: { min: 0, max: 10000 },
    historyMessages: { min: 0, max: 64, integer: true },
    heardWordShare: { min: 0.05, max: 1 },
  },
);

// text: sentence chunking for TTS (core/text).
export const textTunables = registerTunables(
  'text',
  {
    /** The first chunk of a reply may flush at a clause break (, ; : —) once it has this many words … */
    firstClauseMinWords: 4,
    /** … and this many characters. */
    firstClauseMinChars: 18,
    /** Hard cap for a run-on chunk without punctuation. */
    maxChunkChars: 200,
  },
  {
    firstClauseMinWords: { min: 1, max: 50, integer: true },
    firstClauseMinChars: { min: 1, max: 500, integer: true },
    maxChunkChars: { min: 40, max: 2000, integer: true },
  },
);
