/** Markdown tables for a stages results document (bench/results/*.json). */
import type { Stats } from './measure';
import type { StageResult } from './stage-bench';

export interface StagesDoc {
  meta: Record<string, unknown> & { date: string; mode: string };
  results: (StageResult & { id: string; wallMs?: number })[];
}

const f = (x: unknown, d = 1): string => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '–');
const med = (s: unknown): number => (s && typeof s === 'object' && 'median' in (s as object) ? (s as Stats).median : NaN);
const p90 = (s: unknown): number => (s && typeof s === 'object' && 'p90' in (s as object) ? (s as Stats).p90 : NaN);

export function renderMarkdown(doc: StagesDoc): string {
  const L: string[] = [];
  const m = doc.meta;
  L.push(`Stage benches (${doc.meta.mode}), ${doc.meta.date}`);
  L.push('');
  L.push(
    `Machine: ${JSON.stringify(m.host)}; adapter: ${JSON.stringify(m.adapter ?? null)}; versions: ${JSON.stringify(m.versions)}`,
  );
  L.push('');
  for (const mg of (m.merged as { date: string; jobs: string[]; note: string }[] | undefined) ?? [])
    L.push(`Merged from a later run (${mg.date}): ${mg.jobs.join(', ')}. ${mg.note}`, '');
  const bad = doc.results.filter((r) => !r.valid);
  L.push(
    `Validity: ${doc.results.length - bad.length}/${doc.results.length} jobs valid${bad.length ? ` — INVALID: ${bad.map((b) => `${b.id}${b.error ? ` (${b.error.slice(0, 120)})` : ''}`).join('; ')}` : ''}`,
  );
  L.push('');
  // Variants a job could not run (graph capture on WASM): listed, never counted as passes.
  const skipped = doc.results.flatMap((r) => (r.skipped ?? []).map((s) => `${r.id}: ${s}`));
  if (skipped.length) L.push(`Not run (not counted as passes): ${skipped.join('; ')}`, '');

  const over = doc.results.filter((r) => r.stage === 'overhead' && !r.error);
  if (over.length) {
    L.push('| job | EP | session.run, 1 node (ms, median) | per dispatch (µs) |');
    L.push('|---|---|---|---|');
    for (const r of over) L.push(`| ${r.id} | ${r.ep} | ${f(med(r.metrics.oneOpRunMs), 3)} | ${f(r.metrics.perDispatchUs)} |`);
    L.push('');
  }

  const llm = doc.results.filter((r) => r.stage === 'llm' && !r.error);
  if (llm.length) {
    L.push(
      'LLM (LFM2.5-1.2B-shaped): time to first token = one prefill `run` + logits read-back + argmax; cached = prefix in a GPU-resident cache, only the last new tokens prefilled.',
    );
    L.push('');
    L.push(
      '| job | EP | dtype | threads | prompt | TTFT no cache (ms) | first encounter (ms) | TTFT cached prefix (ms) | new tokens | decode ms/token (p50 / p90) | tokens/s | H200 bandwidth bound (ms) | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of llm) {
      const cold = r.metrics.ttftNoCache as Record<string, Record<string, number>>;
      const cached = r.metrics.ttftCachedPrefix as Record<string, Record<string, number>>;
      const dec = r.metrics.decode as Record<string, Record<string, unknown>>;
      for (const n of Object.keys(cold ?? {})) {
        const d = dec?.[n];
        L.push(
          `| ${r.id} | ${r.ep} | ${r.dtype} | ${r.threads} | ${n} | ${f(cold[n]!.median)} | ${f(cold[n]!.firstEncounterMs)} | ${f(cached?.[n]?.median)} | ${cached?.[n]?.newTokens ?? '–'} | ${d ? `${f(med(d.msPerToken), 2)} / ${f(p90(d.msPerToken), 2)}` : '–'} | ${d ? f(d.tokensPerSecond) : '–'} | ${d ? f(d.bandwidthBoundMsH200, 3) : '–'} | ${r.valid ? 'yes' : 'NO'} |`,
        );
      }
      const cpu = r.metrics.decodeCpuKv as { context: number; msPerToken: Stats } | undefined;
      if (cpu)
        L.push(
          `| ${r.id} | ${r.ep} | ${r.dtype} (KV read back to CPU) | ${r.threads} | ${cpu.context} | – | – | – | – | ${f(cpu.msPerToken.median, 2)} / ${f(cpu.msPerToken.p90, 2)} | ${f(1000 / cpu.msPerToken.median)} | – | ${r.valid ? 'yes' : 'NO'} |`,
        );
    }
    L.push('');
  }

  const tts = doc.results.filter((r) => r.stage === 'tts' && !r.error);
  if (tts.length) {
    const plan = (tts[0]!.metrics.plan ?? {}) as Record<string, number>;
    L.push(
      `Pocket TTS (flow_lm_main + 1 LSD flow step + Mimi-shaped decoder), voice prefix ${plan.voicePrefix}, ${plan.textTokens} text tokens, ${plan.frames} frames × ${plan.utterances} utterances; first audio = text prefill + first 80 ms frame (warm sessions).`,
    );
    L.push('');
    L.push(
      '| job | EP | dtype | states | threads | first audio (ms) | cold first audio (ms) | text prefill (ms) | frame (ms, p50 / p90) | main / flow / mimi (ms) | × real time | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of tts) {
      L.push(
        `| ${r.id} | ${r.ep} | ${r.dtype} | ${r.variant ?? 'cpu'} | ${r.threads} | ${f(med(r.metrics.firstAudioMs))} | ${f(r.metrics.coldFirstAudioMs)} | ${f(med(r.metrics.textPrefillMs))} | ${f(med(r.metrics.frameMs))} / ${f(p90(r.metrics.frameMs))} | ${f(med(r.metrics.flowLmMainMs))} / ${f(med(r.metrics.flowLmFlowMs))} / ${f(med(r.metrics.mimiMs))} | ${f(r.metrics.timesRealtime, 2)} | ${r.valid ? 'yes' : 'NO'} |`,
      );
    }
    L.push('');
  }

  const asr = doc.results.filter((r) => r.stage === 'asr' && !r.error);
  if (asr.length) {
    L.push(
      "ASR (Moonshine-base-shaped, and Whisper-base-shaped where the model says so): encoder over the clip — Whisper: always 30 s of padded log-mel, 1500 frames — then one decoder step per token (4 tokens per second of speech + EOS; Whisper's first step takes its 4 forced prompt tokens), self cache on the GPU, cross-attention K/V too (fp32 encoders; crossKvOnGpu in the JSON).",
    );
    L.push('');
    L.push(
      '| job | model | EP | dtype | threads | audio (s) | encoder frames | encoder (ms) | decoder step (ms) | total (ms) | ms per audio second | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of asr) {
      const per = (r.metrics.perLength ?? []) as Record<string, unknown>[];
      for (const p of per) {
        L.push(
          `| ${r.id} | ${r.variant ?? 'moonshine-base'} | ${r.ep} | ${r.dtype} | ${r.threads} | ${p.seconds} | ${p.encoderFrames ?? '–'} | ${f(med(p.encoderMs))} | ${f(med(p.decoderStepMs), 2)} | ${f(p.totalMs)} | ${f(p.msPerAudioSecond)} | ${r.valid ? 'yes' : 'NO'} |`,
        );
      }
    }
    L.push('');
  }

  const det = doc.results.filter((r) => r.stage === 'detector' && !r.error);
  if (det.length) {
    L.push(
      'Vision detector (D-FINE-M-shaped): one frame = `session.run` on a CPU pixel tensor + both outputs read back; first frame includes pipeline compilation; p50/p90 over the timed frames after warm-up.',
    );
    L.push('');
    L.push(
      '| job | EP | dtype | threads | input | params (M) | GMAC/frame | session create (ms) | first frame (ms) | frame (ms, p50 / p90) | frames/s | GFLOP/s | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of det) {
      const m = r.metrics;
      L.push(
        `| ${r.id} | ${r.ep} | ${r.dtype} | ${r.threads} | ${m.inputSize}² | ${f((m.params as number) / 1e6, 2)} | ${f(m.gmacsPerFrame, 2)} | ${f(m.sessionCreateMs, 0)} | ${f(m.firstFrameMs)} | ${f(med(m.frameMs))} / ${f(p90(m.frameMs))} | ${f(m.fps)} | ${f(m.effectiveGflops, 0)} | ${r.valid ? 'yes' : 'NO'} |`,
      );
    }
    L.push('');
  }

  const turn = doc.results.filter((r) => r.stage === 'turn' && !r.error);
  if (turn.length) {
    L.push(
      "End-of-turn (Smart Turn v3.2-shaped, fp32): one question = the product's preparation (8 s window + Whisper log-mel in JS, core/turn) then one `session.run`; timed apart over the same calls; p50/p90 after warm-up.",
    );
    L.push('');
    L.push(
      '| job | EP | threads | session create (ms) | first run (ms) | prepare (ms, p50 / p90) | run (ms, p50 / p90) | total p50 (ms) | prepare / run | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of turn) {
      const m = r.metrics;
      L.push(
        `| ${r.id} | ${r.ep} | ${r.threads} | ${f(m.sessionCreateMs, 0)} | ${f(m.firstRunMs)} | ${f(med(m.prepareMs))} / ${f(p90(m.prepareMs))} | ${f(med(m.runMs))} / ${f(p90(m.runMs))} | ${f(m.totalMs)} | ${f(m.prepareOverRun, 2)} | ${r.valid ? 'yes' : 'NO'} |`,
      );
    }
    L.push('');
  }

  const cap = doc.results.filter((r) => r.stage === 'capture' && !r.error);
  if (cap.length) {
    L.push(
      'Graph capture (LLM decode step, static-shape variant: fixed KV buffer shared in place by past/present, no mask arithmetic): the same graph, tokens and start state; off = plain session (CPU token/lengths, logits returned on the CPU); off, GPU I/O = no capture but every input/output in fixed GPU buffers (what capture needs); on = captured and replayed. ms per token includes writing the token and reading the logits back.',
    );
    L.push('');
    L.push(
      '| job | EP | dtype | context / capacity | off: ms/token (p50 / p90) | off, GPU I/O | on (captured) | speedup vs off; vs GPU I/O | on vs off: max rel. diff; first divergent step | valid |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|');
    type Cmp = { maxRelDiff: number; firstDivergentStep: number | null } | undefined;
    const agree = (c: Cmp) =>
      c ? `${c.maxRelDiff.toExponential(1)}; ${c.firstDivergentStep === null ? 'none' : `step ${c.firstDivergentStep}`}` : '–';
    const ms = (x: unknown) => {
      const v = (x ?? {}) as { msPerToken?: Stats; skipped?: string };
      if (v.msPerToken) return `${f(v.msPerToken.median, 2)} / ${f(v.msPerToken.p90, 2)}`;
      return v.skipped ? `n/a (${v.skipped.startsWith('n/a on wasm') ? 'n/a on wasm' : v.skipped})` : '–';
    };
    const refs: string[] = [];
    for (const r of cap) {
      const m = r.metrics;
      const plan = (m.plan ?? {}) as Record<string, number>;
      const sp = m.speedup !== undefined ? `${f(m.speedup, 2)}×; ${f(m.speedupVsGpuIo, 2)}×` : '–';
      L.push(
        `| ${r.id} | ${r.ep} | ${r.dtype} | ${plan.context} / ${plan.capacity} | ${ms(m.off)} | ${m.offGpuIo ? ms(m.offGpuIo) : ms(m.on)} | ${ms(m.on)} | ${sp} | ${agree(m.captureVsOff as Cmp)} | ${r.valid ? 'yes' : 'NO'} |`,
      );
      if (m.offVsWasm)
        refs.push(
          `${r.id}: off ${agree(m.offVsWasm as Cmp)}, GPU I/O ${agree(m.offGpuIoVsWasm as Cmp)}, on ${agree(m.onVsWasm as Cmp)}`,
        );
    }
    L.push('');
    if (refs.length) L.push(`Against the WASM EP (max rel. diff; first divergent step): ${refs.join(' · ')}`, '');
    const plainChecks = cap.flatMap((r) => {
      const c = r.metrics.plainVsStatic as
        | { style: string; steps: number; tokensEqual: boolean; firstDifferentToken: number | null; maxAbsLogitDiff: number }
        | undefined;
      if (!c) return [];
      const tokens = c.tokensEqual ? 'same tokens' : `tokens differ from step ${c.firstDifferentToken}`;
      return [`${r.id} (${c.style}): ${c.steps} greedy steps, ${tokens}, max |Δ logit| ${c.maxAbsLogitDiff.toExponential(1)}`];
    });
    if (plainChecks.length) L.push(`Static-KV rewrite against its plain graph (same prefill): ${plainChecks.join(' · ')}`, '');
  }

  const graphs = new Map<string, { nodes: number; weightBytes: number; sessionMs: number }>();
  for (const r of doc.results) for (const g of r.graphs) graphs.set(`${r.ep} ${g.name} (${r.dtype})`, g);
  if (graphs.size) {
    L.push('| graph | nodes | weights (MB) | session create (ms) |');
    L.push('|---|---|---|---|');
    for (const [k, g] of graphs) L.push(`| ${k} | ${g.nodes} | ${f(g.weightBytes / 1e6)} | ${f(g.sessionMs, 0)} |`);
    L.push('');
  }
  const errs = doc.results.filter((r) => r.error);
  if (errs.length) {
    L.push('Failed jobs:');
    for (const r of errs) L.push(`- ${r.id}: ${r.error}`);
    L.push('');
  }
  return L.join('\n');
}
