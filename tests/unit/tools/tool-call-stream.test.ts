import { describe, expect, it } from 'vitest';
import { chatTemplateTools, TOOL_DEFINITIONS, validateToolCall } from '../../../core/tools/definitions';
import { parsePythonicCalls, parseLooseValues } from '../../../core/tools/loose-literal';
import { ToolCallStreamParser, type StreamEvent } from '../../../core/tools/tool-call-stream';

/** Feeds text in fixed-size deltas (worst case: markers split across deltas) and collects all events. */
function feed(text: string, size: number): StreamEvent[] {
  const p = new ToolCallStreamParser();
  const out: StreamEvent[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...p.push(text.slice(i, i + size)));
  out.push(...p.end());
  return out;
}

const spoken = (events: StreamEvent[]): string =>
  events
    .filter((e): e is Extract<StreamEvent, { type: 'text' }> => e.type === 'text')
    .map((e) => e.text)
    .join('');
const calls = (events: StreamEvent[]) =>
  events.filter((e) => e.type === 'tool_call').map((e) => (e.type === 'tool_call' ? e.call : null));

describe('ToolCallStreamParser', () => {
  for (const size of [1, 3, 7, 1000]) {
    it(`parses a Hermes/Qwen call with text before it (delta size ${size})`, () => {
      const ev = feed(
        'Let me check. <tool_call>\n{"name": "get_weather", "arguments": {"location": "Oslo"}}\n</tool_call><|im_end|>',
        size,
      );
      expect(spoken(ev)).toBe('Let me check. ');
      expect(calls(ev)).toEqual([{ name: 'get_weather', arguments: { location: 'Oslo' } }]);
    });

    it(`parses an LFM2 Pythonic call (delta size ${size})`, () => {
      const ev = feed('<|tool_call_start|>[get_weather(location="Oslo", when=\'tomorrow\')]<|tool_call_end|>Checking.', size);
      expect(calls(ev)).toEqual([{ name: 'get_weather', arguments: { location: 'Oslo', when: 'tomorrow' } }]);
      expect(spoken(ev)).toBe('Checking.');
    });
  }

  it('passes text through as it arrives, holding back only a possible marker prefix', () => {
    const p = new ToolCallStreamParser();
    expect(p.push('Hello there')).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(p.push(' friend <tool')).toEqual([{ type: 'text', text: ' friend ' }]);
    expect(p.inToolCall).toBe(false);
    expect(p.push('_call>{"name": "calculate", ')).toEqual([]);
    expect(p.inToolCall).toBe(true);
    expect(p.push('"arguments": {"expression": "2+2"}}</tool_call>')).toEqual([
      { type: 'tool_call', format: 'hermes', call: { name: 'calculate', arguments: { expression: '2+2' } } },
    ]);
  });

  it('does not hold back ordinary "<" in prose', () => {
    const ev = feed('if a < b then', 2);
    expect(spoken(ev)).toBe('if a < b then');
    expect(ev.every((e) => e.type === 'text')).toBe(true);
    expect(spoken(feed('3<5 is true', 1))).toBe('3<5 is true');
  });

  it('strips chat control tokens from spoken text', () => {
    expect(spoken(feed('Sure.<|im_end|><|endoftext|>', 2))).toBe('Sure.');
  });

  it('accepts the parameters alias, stringified arguments and a nested function object', () => {
    expect(calls(feed('<tool_call>{"name": "wikipedia_lookup", "parameters": {"topic": "Oslo"}}</tool_call>', 5))).toEqual([
      { name: 'wikipedia_lookup', arguments: { topic: 'Oslo' } },
    ]);
    expect(calls(feed('<tool_call>{"name": "calculate", "arguments": "{\\"expression\\": \\"1/3\\"}"}</tool_call>', 5))).toEqual([
      { name: 'calculate', arguments: { expression: '1/3' } },
    ]);
    expect(calls(feed('<tool_call>{"function": {"name": "get_time", "arguments": {}}}</tool_call>', 5))).toEqual([
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('tolerates sloppy JSON: single quotes, bare keys, trailing commas, missing close, Python literals', () => {
    expect(calls(feed("<tool_call>{name: 'get_weather', arguments: {city: 'Oslo',},}</tool_call>", 4))).toEqual([
      { name: 'get_weather', arguments: { location: 'Oslo' } },
    ]);
    // End marker swallowed as a stop token, and the closing braces never came.
    expect(calls(feed('<tool_call>{"name": "wikipedia_lookup", "arguments": {"topic": "Ada Lovelace"', 4))).toEqual([
      { name: 'wikipedia_lookup', arguments: { topic: 'Ada Lovelace' } },
    ]);
    expect(parseLooseValues("{'a': True, 'b': None, 'c': [1, 2.5e1,]}")).toEqual([{ a: true, b: null, c: [1, 25] }]);
  });

  it('parses several calls in one block', () => {
    const ev = feed('<|tool_call_start|>[get_time(location="Tokyo"), calculate(expression="6*7")]<|tool_call_end|>', 6);
    expect(calls(ev)).toEqual([
      { name: 'get_time', arguments: { location: 'Tokyo' } },
      { name: 'calculate', arguments: { expression: '6*7' } },
    ]);
    const hermes = feed(
      '<tool_call>{"name": "get_time", "arguments": {}}\n{"name": "calculate", "arguments": {"expression": "1+1"}}</tool_call>',
      6,
    );
    expect(calls(hermes)).toHaveLength(2);
  });

  it('reports invalid calls instead of running them', () => {
    const unknown = feed('<tool_call>{"name": "delete_all_files", "arguments": {}}</tool_call>', 4);
    expect(unknown).toEqual([expect.objectContaining({ type: 'tool_call_invalid', error: 'unknown tool "delete_all_files"' })]);
    const missing = feed('<|tool_call_start|>[get_weather()]<|tool_call_end|>', 4);
    expect(missing[0]).toMatchObject({ type: 'tool_call_invalid', format: 'lfm2' });
    expect(missing[0]!.type === 'tool_call_invalid' && missing[0]!.error).toMatch(/^location:/);
    const garbage = feed('<tool_call>{"name": }</tool_call>', 4);
    expect(garbage[0]).toMatchObject({ type: 'tool_call_invalid' });
    const empty = feed('<tool_call></tool_call>', 4);
    expect(empty[0]).toMatchObject({ type: 'tool_call_invalid', error: 'empty tool call' });
  });

  it('LFM2 positional and alias arguments map to the schema', () => {
    expect(parsePythonicCalls('[weather("Oslo")]')).toEqual([{ name: 'weather', arguments: { _0: 'Oslo' } }]);
    expect(calls(feed('<|tool_call_start|>[weather("Oslo")]<|tool_call_end|>', 3))).toEqual([
      { name: 'get_weather', arguments: { location: 'Oslo' } },
    ]);
  });
});

describe('tool definitions', () => {
  it('exposes four tools with JSON Schemas for the chat template', () => {
    const tools = chatTemplateTools();
    expect(tools.map((t) => t.function.name)).toEqual(['get_weather', 'wikipedia_lookup', 'calculate', 'get_time']);
    const weather = TOOL_DEFINITIONS[0]!.parameters as { type: string; required: string[]; properties: Record<string, unknown> };
    expect(weather.type).toBe('object');
    expect(weather.required).toEqual(['location']);
    expect(Object.keys(weather.properties)).toEqual(['location', 'when']);
  });

  it('validates argument types and bounds', () => {
    expect(validateToolCall('get_weather', { location: 'x' })).toMatchObject({ ok: false });
    expect(validateToolCall('get_weather', { location: 'Oslo', when: 'next year' })).toMatchObject({ ok: false });
    expect(validateToolCall('calculate', { expression: 4 })).toEqual({
      ok: true,
      call: { name: 'calculate', arguments: { expression: '4' } },
    });
    expect(validateToolCall('get_time', 'not an object')).toEqual({ ok: true, call: { name: 'get_time', arguments: {} } });
  });
});
