// Incremental tool-call parser over the RAW token stream (decoded with special tokens kept).
// Text before a call marker flows straight on to TTS; once a start marker appears everything is buffered until
// the end marker (or the end of generation), then parsed tolerantly and validated against the tool's schema.
//   Hermes / Qwen:  <tool_call>{"name": "get_weather", "arguments": {"location": "Oslo"}}</tool_call>
//   LFM2:           <|tool_call_start|>[get_weather(location="Oslo")]<|tool_call_end|>
import { validateToolCall } from './definitions';
import { parseLooseValues, parsePythonicCalls, type Literal } from './loose-literal';
import type { ToolCall } from './types';

export type ToolCallFormat = 'hermes' | 'lfm2';

export type StreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; format: ToolCallFormat; call: ToolCall }
  | { type: 'tool_call_invalid'; format: ToolCallFormat; error: string; raw: string };

const MARKERS: { format: ToolCallFormat; start: string; end: string }[] = [
  { format: 'hermes', start: '<tool_call>', end: '</tool_call>' },
  { format: 'lfm2', start: '<|tool_call_start|>', end: '<|tool_call_end|>' },
];

/** Control tokens that must never be spoken (<|im_end|>, <|endoftext|>, <end_of_turn>, …). */
const SPECIAL_TOKEN = /<\|[A-Za-z0-9_]+\|>|<\/?(?:s|end_of_turn|start_of_turn|eos|bos)>/g;
/** Longest text that might still grow into a marker or a special token; anything longer is plain text. */
const MAX_HOLD = 32;

export class ToolCallStreamParser {
  private buf = '';
  private open: (typeof MARKERS)[number] | null = null;

  /** Feed one decoded delta; returns what can be decided now. */
  push(delta: string): StreamEvent[] {
    this.buf += delta;
    const events: StreamEvent[] = [];
    for (;;) {
      if (this.open) {
        const endAt = this.buf.indexOf(this.open.end);
        if (endAt < 0) break;
        events.push(...parsePayload(this.open.format, this.buf.slice(0, endAt)));
        this.buf = this.buf.slice(endAt + this.open.end.length);
        this.open = null;
        continue;
      }
      let first: { at: number; marker: (typeof MARKERS)[number] } | null = null;
      for (const m of MARKERS) {
        const at = this.buf.indexOf(m.start);
        if (at >= 0 && (!first || at < first.at)) first = { at, marker: m };
      }
      if (first) {
        pushText(events, this.buf.slice(0, first.at));
        this.buf = this.buf.slice(first.at + first.marker.start.length);
        this.open = first.marker;
        continue;
      }
      const hold = holdBack(this.buf);
      pushText(events, this.buf.slice(0, this.buf.length - hold));
      this.buf = this.buf.slice(this.buf.length - hold);
      break;
    }
    return events;
  }

  /** End of generation: an unclosed call (end marker swallowed as a stop token) is parsed as is. */
  end(): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.open) events.push(...parsePayload(this.open.format, this.buf));
    else pushText(events, this.buf);
    this.buf = '';
    this.open = null;
    return events;
  }

  /** True while a call is being buffered (the engine can show "looking that up…"). */
  get inToolCall(): boolean {
    return this.open !== null;
  }
}

function pushText(events: StreamEvent[], text: string): void {
  const clean = text.replace(SPECIAL_TOKEN, '');
  if (clean) events.push({ type: 'text', text: clean });
}

/** Length of the tail to hold: from the last '<' if what follows could still become a marker or control token. */
function holdBack(buf: string): number {
  const lt = buf.lastIndexOf('<');
  if (lt < 0) return 0;
  const tail = buf.slice(lt);
  if (tail.length > MAX_HOLD || tail.includes('>')) return 0;
  return /^<\/?[|A-Za-z0-9_]*$/.test(tail) ? tail.length : 0;
}

function asRecord(v: Literal | undefined): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

/** Turns one parsed JSON-ish object into a validated call; accepts `parameters`/`args` and stringified args. */
function fromJsonObject(format: ToolCallFormat, obj: Literal, raw: string): StreamEvent {
  const o = asRecord(obj);
  const fn = asRecord(o?.function as Literal | undefined) ?? o;
  const name = typeof fn?.name === 'string' ? fn.name : null;
  if (!fn || !name) return { type: 'tool_call_invalid', format, error: 'missing tool name', raw };
  let args: unknown = fn.arguments ?? fn.parameters ?? fn.args ?? {};
  if (typeof args === 'string') {
    try {
      args = parseLooseValues(args)[0] ?? {};
    } catch {
      return { type: 'tool_call_invalid', format, error: 'arguments are not an object', raw };
    }
  }
  const v = validateToolCall(name, args);
  return v.ok ? { type: 'tool_call', format, call: v.call } : { type: 'tool_call_invalid', format, error: v.error, raw };
}

export function parsePayload(format: ToolCallFormat, raw: string): StreamEvent[] {
  const text = raw.trim();
  if (!text) return [{ type: 'tool_call_invalid', format, error: 'empty tool call', raw }];
  try {
    // LFM2 normally writes Pythonic calls but sometimes JSON; Hermes models occasionally write Pythonic calls.
    const looksJson = text.startsWith('{') || /^\[\s*[{["']/.test(text) || text.startsWith('```');
    if (looksJson) {
      const values = parseLooseValues(text).flatMap((v) => (Array.isArray(v) ? v : [v]));
      if (!values.length) return [{ type: 'tool_call_invalid', format, error: 'empty tool call', raw }];
      return values.map((v) => fromJsonObject(format, v, raw));
    }
    const calls = parsePythonicCalls(text);
    if (!calls.length) return [{ type: 'tool_call_invalid', format, error: 'empty tool call', raw }];
    return calls.map((c) => {
      const v = validateToolCall(c.name, c.arguments);
      return v.ok
        ? ({ type: 'tool_call', format, call: v.call } as const)
        : ({ type: 'tool_call_invalid', format, error: v.error, raw } as const);
    });
  } catch (e) {
    return [{ type: 'tool_call_invalid', format, error: e instanceof Error ? e.message : 'unparseable', raw }];
  }
}
