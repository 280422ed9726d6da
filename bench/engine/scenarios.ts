/**
 * Engine timeline bench: the same real-audio scenarios as tests/unit/engine/scenarios.test.ts (real Silero VAD,
 * manual clock, fake stages with the latencies below), speculative endpointing on vs off. Prints JSON and a
 * markdown table. Times are simulated-clock ms, so they are exact for the given stage latencies and VAD decisions.
 *
 * Run: npx jiti bench/engine/scenarios.ts
 */
import {
  DEFAULT_LATENCY,
  loadSilero,
  runScenario,
  type ScenarioInput,
  type ScenarioResult,
} from '../../tests/fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../tests/fixtures/audio/make-audio';
import { snapshotTunables } from '../../core/tunables';

const STORY =
  'Once upon a time, a small dragon lived in the hills above a quiet village. Every morning it counted the sheep in the valley. ' +
  'The villagers were afraid at first, but the dragon only wanted a friend.';

export function scenarios(): Record<string, ScenarioInput> {
  const plain = new TrackBuilder().pause(600).say('What is the capital of France?').pause(300);
  const question = new TrackBuilder().pause(500).say('How far away is the moon from the earth?').pause(300);
  const midThought = new TrackBuilder()
    .pause(500)
    .say('I want to plan a trip and')
    .pause(900)
    .say('maybe visit Lisbon in May.')
    .pause(200);
  const merge = new TrackBuilder().pause(500).say('Tell me about Lisbon.').pause(620).say('And its old trams.').pause(200);
  const barge = new TrackBuilder()
    .pause(500)
    .say('Tell me a long story about a dragon.')
    .pause(3200)
    .say('Stop, wait a second.')
    .pause(200);
  const reply = (text: string) => () => text;
  return {
    plain: {
      user: plain.build(),
      segments: plain.segments,
      echoGain: 0.2,
      reply: reply('The capital of France is Paris. It sits on the Seine.'),
    },
    question: {
      user: question.build(),
      segments: question.segments,
      echoGain: 0.2,
      reply: reply('About three hundred and eighty thousand kilometres, on average.'),
    },
    'mid-thought': { user: midThought.build(), segments: midThought.segments, reply: reply('Lisbon in May is a great idea.') },
    merge: {
      user: merge.build(),
      segments: merge.segments,
      latency: { llmFirstTokenMs: 450 },
      reply: reply('Lisbon trams are famous. Line 28 is the classic.'),
    },
    'barge-in': {
      user: barge.build(),
      segments: barge.segments,
      echoGain: 0.3,
      reply: (t) => (t.text.includes('dragon') ? STORY : 'Okay.'),
    },
  };
}

export interface Row {
  scenario: string;
  speculate: boolean;
  turns: number;
  endpointMs: number | null;
  eosToFirstSpeakMs: number | null;
  bargeOnsetToAbortMs: number | null;
  merges: number;
  discardedSpeculations: number;
}

export function measure(name: string, speculate: boolean, r: ScenarioResult): Row {
  // The answered turn: the first one that spoke (a merged first half never does).
  const firstSpeak = r.marks('first-speak')[0];
  const eos = r.marks('end-of-speech').find((m) => m.turnId === firstSpeak?.turnId) ?? r.marks('end-of-speech')[0];
  const endpoint = r.marks('endpoint').find((m) => m.turnId === eos?.turnId);
  const onset = r.marks('barge-onset')[0];
  const cut = r.marks('barge-in')[0];
  return {
    scenario: name,
    speculate,
    turns: r.marks('endpoint').length,
    endpointMs: eos && endpoint ? endpoint.at - eos.at : null,
    eosToFirstSpeakMs: eos && firstSpeak ? firstSpeak.at - eos.at : null,
    bargeOnsetToAbortMs: onset && cut ? cut.at - onset.at : null,
    merges: r.marks('merge').length,
    discardedSpeculations: r.marks('speculation-discarded').length,
  };
}

async function main(): Promise<void> {
  const vad = await loadSilero();
  const rows: Row[] = [];
  for (const speculate of [true, false]) {
    for (const [name, input] of Object.entries(scenarios())) {
      rows.push(measure(name, speculate, await runScenario(vad, { ...input, speculate })));
    }
  }
  const cell = (v: number | boolean | string | null) => (v === null ? '–' : String(v));
  console.log(JSON.stringify({ stageLatencyMs: DEFAULT_LATENCY, tunables: snapshotTunables().engine, rows }, null, 2));
  console.log(
    '\n| scenario | speculate | turns | endpoint (ms) | end of speech → first speak() (ms) | barge onset → abort (ms) | merges | discarded speculations |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.scenario} | ${r.speculate} | ${r.turns} | ${cell(r.endpointMs)} | ${cell(r.eosToFirstSpeakMs)} | ${cell(r.bargeOnsetToAbortMs)} | ${r.merges} | ${r.discardedSpeculations} |`,
    );
  }
}

// Run only as a command (bench/pipeline-budget.ts imports the scenarios).
if (process.argv.some((a) => /engine\/scenarios\.ts$/.test(a))) void main();
