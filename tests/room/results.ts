/** What the room sweep records of one reply (session.ts follows it; bench/room/report.ts sums it). */

export interface ReplyResult {
  turnId: string;
  /** Barge-ins while the reply played and the user was silent (must be 0). */
  falseBargeIns: number;
  /**
   * Of those, the ones a short burst's words decided: words of the rig's fixture ASR, which cannot be the reply's own
   * (the rule that lets a reply's echo go by its words cannot work in the rig). Absent before 2026-12-04t.
   */
  falseBargeInsByWords?: number;
  /**
   * User turns made from the reply's echo while the user was silent: an utterance that reached an endpoint and was
   * not discarded (as noise, empty or the reply's own echo). The goal is 0.
   */
  phantomTurns?: number;
  /** Speech onsets while the user was silent, turns or not (most are the echo's tail, discarded as the reply's own). */
  phantomOnsets: number;
  /** Times the reply was lowered for speech over it (a duck) while the user was silent (absent in older results). */
  falseDucks?: number;
  /** Of those, the ones a run both tracks' gates heard held (docs/echo.md, "Both tracks at once"; absent before 05h). */
  falseDucksByBoth?: number;
  /**
   * Frames both tracks' gates took for speech while the user was silent (both floors holding), and their longest run:
   * how near the reply's echo came to a hold by both (`echo-path` trace; absent before 2026-12-05j).
   */
  jointFrames?: number;
  jointLongestRun?: number;
  /**
   * The echo path's delay and both gates' floors at the reply's end (`echo-path` trace; absent before 2026-12-05r):
   * how far the session's history has moved them.
   */
  echoDelayMs?: number;
  echoCoupling?: number;
  floorRms?: number;
  rawFloorRms?: number;
  /** Each track's loudest level and its second and fourth loudest windows' (absent before 2026-12-06b). */
  residualRunRms?: number;
  residualRank2Rms?: number;
  residualRank4Rms?: number;
  rawResidualRunRms?: number;
  rawResidualRank2Rms?: number;
  rawResidualRank4Rms?: number;
  /** Talked over: whether the engine barged in, its own onset → decision time, and voice onset → speakers silent. */
  interrupted?: {
    detected: boolean;
    /** The reply had already ended (done, a false barge-in, an echo onset) when the user spoke: nothing measured. */
    preempted: boolean;
    engineLatencyMs?: number;
    stopLatencyMs?: number;
    /**
     * Where that time went, on the wall clock (the engine's marks against the rig's recordings): voice onset → the
     * onset the engine found in the microphone frames (capture path and the onset run); → the duck it decided; the
     * duck → the speakers lowered (the way to the side panel and out of the player). Absent in older results.
     */
    voiceToEngineOnsetMs?: number;
    /** When the user's voice reached the room's microphone, wall clock (ms). */
    voiceWallAt?: number;
    /** The voice's onset was found in the room's recording (else: paplay's start plus the phrase's lead). */
    voiceFound?: boolean;
    voiceToDuckMs?: number;
    /** Which microphone track's gate lowered the reply, where both gate a barge-in. */
    duckTrack?: string;
    duckToLoweredMs?: number;
    /** How long the frame that held the reply took from capture to the engine (absent before 2026-12-05k). */
    duckFrameLagMs?: number;
    /** Voice onset → the speakers stayed `LOWERED_DB` below the reply's level before it (the duck; absent in older results). */
    loweredLatencyMs?: number;
    voiceAt: number;
    /**
     * How the talked-over reply's turn ended: its marks from 1 s before the voice to its terminal one, and when that
     * came after the voice (absent before 2026-12-06e). A reply that ended by itself as the voice began was not missed
     * by a gate. A mark with an echo score carries it: `barge-released(echo 31.2)` (from 2026-12-06j).
     */
    endedBy?: string;
    endedAfterVoiceMs?: number;
    /** When the speakers went quiet after the voice, detected or not (absent before 2026-12-06i). */
    speakersSilentAfterVoiceMs?: number;
    /**
     * The cut was decided by what ASR heard in a short burst, not by the speech's length. The rig's ASR is a fixture
     * (its words are not the user's), so such a cut says nothing about the words rule (absent before 2026-12-04s).
     */
    byWords?: boolean;
    /** The longest onset run over the gate after the voice (`echo-path` trace; absent in older results). */
    longestRun?: number;
    /** After the voice: frames the VAD called speech under the gate, and loud frames it did not (absent before 12-04). */
    voicedUnderGateFrames?: number;
    loudUnvoicedFrames?: number;
    /** The same of the unprocessed track's gate (absent before 2026-12-05l). */
    rawLongestRun?: number;
    rawVoicedUnderGateFrames?: number;
  };
  /** RMS of the echo at the microphone (the room's monitor: no processing) while the reply played, user silent. */
  echoRms: number;
  /** Mean RMS of what the offscreen document's microphone delivered (after Chrome's echo canceller) over the same span. */
  residualRms: number;
  /** The loudest 32 ms frame of it: what a per-frame energy gate sees. */
  residualPeakRms: number;
  /** The reply the user's interruption got, when there was one (the user is silent while it plays). */
  followUp?: ReplyResult;
  /** A backchannel over the reply (`say.kind` 'backchannel'): it should neither stop the reply nor become a turn. */
  backchannel?: {
    text: string;
    /** The reply had already ended when the user spoke: nothing measured. */
    preempted: boolean;
    /** The engine barged in: the reply was cut. */
    stopped: boolean;
    /** It was cut by what ASR heard in the burst (the rig's ASR is a fixture: its words are not the user's). */
    stoppedByWords?: boolean;
    /** User turns after the voice that were not discarded (the backchannel, or the reply's echo, taken as a turn). */
    turns: number;
    /** The engine held the reply for it, and for how long (its `barge-tentative` → `barge-released`, wall clock). */
    held: boolean;
    heldMs?: number;
    /** The scripted recogniser's text for it (`Say.heardAs`), and how many transcriptions reported it. */
    heardAs?: string;
    transcriptsScripted?: number;
    /** The reply played to its end after it (its `done`), not cut and not left held. */
    playedOn?: boolean;
  };
}

/** What the user says over a reply: an interruption (the default) or a backchannel. */
export interface Say {
  wav: string;
  afterMs: number;
  kind?: 'interrupt' | 'backchannel';
  /** The words, for the report. */
  text?: string;
  /**
   * What the recogniser reports for every transcription while the phrase is over the reply (the scripted stand-in,
   * `debug/asr-script`): the words a real recogniser would write for it. Absent: the fixture recogniser's letters.
   */
  heardAs?: string;
}
